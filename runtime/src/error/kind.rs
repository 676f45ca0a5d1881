//! A stable name for each kind of error, for metrics and traces.

use super::Error;

impl Error {
    /// The variant's name (`"Throttled"`, `"ConditionFailed"`, ...): few values, stable across
    /// releases, for metrics and traces (a span's `error.type`). A service error is named by
    /// DynamoDB's code when it gave one.
    pub fn kind(&self) -> &str {
        match self {
            Error::Service { code: Some(code), .. } => code,
            Error::InvalidKey { .. } => "InvalidKey",
            Error::InvalidIndexKey { .. } => "InvalidIndexKey",
            Error::ItemTooLarge { .. } => "ItemTooLarge",
            Error::UpdatedItemTooLarge { .. } => "UpdatedItemTooLarge",
            Error::ExpressionTooLarge { .. } => "ExpressionTooLarge",
            Error::ReservedAttribute { .. } => "ReservedAttribute",
            Error::ConditionFailed { .. } => "ConditionFailed",
            Error::Overflow { .. } => "Overflow",
            Error::InvalidNumber { .. } => "InvalidNumber",
            Error::OverlappingActions { .. } => "OverlappingActions",
            Error::InvalidTtl { .. } => "InvalidTtl",
            Error::ListIndexOutOfRange { .. } => "ListIndexOutOfRange",
            Error::InvalidTableName { .. } => "InvalidTableName",
            Error::AlreadyExists => "AlreadyExists",
            Error::NotFound => "NotFound",
            Error::VersionConflict { .. } => "VersionConflict",
            Error::WrongEntityType { .. } => "WrongEntityType",
            Error::IndexNarrowerThanDeclared { .. } => "IndexNarrowerThanDeclared",
            Error::Undecodable(..) => "Undecodable",
            Error::Conversion(..) => "Conversion",
            Error::Service { .. } => "Service",
            Error::Throttled { .. } => "Throttled",
            Error::Timeout { .. } => "Timeout",
            Error::IndexKeyIncomplete { .. } => "IndexKeyIncomplete",
            Error::UpsertIncomplete { .. } => "UpsertIncomplete",
            Error::NotRangeSharded { .. } => "NotRangeSharded",
            Error::ShardMetadataMissing { .. } => "ShardMetadataMissing",
            Error::ShardMetadataMalformed { .. } => "ShardMetadataMalformed",
            Error::InvalidShardCount { .. } => "InvalidShardCount",
            Error::ShardMetadataNotConfigured => "ShardMetadataNotConfigured",
            Error::ShardMetadataUndeclared { .. } => "ShardMetadataUndeclared",
            Error::ReshardingUnresolved { .. } => "ReshardingUnresolved",
            Error::DynamicShardsUnresolved { .. } => "DynamicShardsUnresolved",
            Error::Resharding { .. } => "Resharding",
            Error::MappingIncomplete { .. } => "MappingIncomplete",
            Error::Frozen { .. } => "Frozen",
            Error::StreamRequired { .. } => "StreamRequired",
            Error::ChangeFeedGap { .. } => "ChangeFeedGap",
            Error::InvalidChangeRecord { .. } => "InvalidChangeRecord",
            Error::InvalidQuery { .. } => "InvalidQuery",
            Error::WindowTooWide { .. } => "WindowTooWide",
            Error::TooManyKeys { .. } => "TooManyKeys",
            Error::InvalidCursor { .. } => "InvalidCursor",
            Error::KeyDecode(..) => "KeyDecode",
            Error::UnknownEntityType { .. } => "UnknownEntityType",
            Error::Background { .. } => "Background",
            Error::TableNotActive { .. } => "TableNotActive",
            Error::DuplicateBatchKey { .. } => "DuplicateBatchKey",
            Error::VersionedBatchWrite { .. } => "VersionedBatchWrite",
            Error::BatchIncomplete { .. } => "BatchIncomplete",
            Error::TransactionCanceled { .. } => "TransactionCanceled",
            Error::TransactionTooLarge { .. } => "TransactionTooLarge",
            Error::TransactionTooBig { .. } => "TransactionTooBig",
            Error::DuplicateTransactionKey { .. } => "DuplicateTransactionKey",
        }
    }
}
