//! The partition-limit emulator in front of DynamoDB Local: metering, throttling as DynamoDB
//! does, and dynamic shard counts that grow only when a partition is the limit.

mod batches;
mod dynamic;
mod heat;
mod hot_keys;
mod measured;
mod model;
mod spans;
mod throttling;
