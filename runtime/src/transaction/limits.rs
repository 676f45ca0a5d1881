//! DynamoDB's limits on one transaction.

/// DynamoDB's limit of actions in one transaction.
pub const MAX_TRANSACTION_ACTIONS: usize = 100;

/// DynamoDB's limit on the aggregate size of a transaction's items: 4 MB.
pub const MAX_TRANSACTION_BYTES: usize = 4 * 1024 * 1024;
