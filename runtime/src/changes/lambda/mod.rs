//! A table's stream as AWS Lambda delivers it: the event's records decoded, and a
//! batch handled in order with the answer that tells Lambda where to resume.

mod batch;
mod events;

pub use batch::{BatchOutcome, BatchStop, StopCause, StreamBatch};
