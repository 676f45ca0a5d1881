//! Everything the derives' generated code names, and nothing else: generated code reaches this
//! crate only through this module (aliased `__dynashard` inside each expansion), so the public
//! API can change without breaking it, and a derive of another release fails here, by name.

pub use crate::collection::Collection;
pub use crate::entity::{Entity, Field, Key, PrimaryKey};
pub use crate::error::{Error, Item, KeyError, Result};
pub use crate::expression::{Condition, Nested, NestedField, RawExpression};
pub use crate::index::Index;
pub use crate::index_keys::{
    attribute_name, const_str_eq, find_index, AddedMapping, FieldChanges, IndexKeyUpdate, IndexKeys,
};
pub use crate::item::{from_item, from_item_checked};
pub use crate::key::{DecodeKeyPart, KeyPart, KeyPartDecodeError, KeyRole, KeyTemplate, KeyWriter, Segment};
pub use crate::key_fields::{store_key_field, KeyField};
pub use crate::projection::{
    contains, covers, index_slot, slot_covers, CoveredBy, IndexItem, IndexSlot, Pick, Projected, Verdict,
    MAX_INDEXES,
};
pub use crate::query::{
    same_kind, Done, End, FromItem, Native, NativeKeyPart, Next, Normalized, Query, QueryTarget,
};
pub use crate::scan::Scan;
pub use crate::sets::SetAttribute;
pub use crate::shard::{
    logical_partition, Boundaries, BoundarySource, BucketTime, Layout, Normalization, RangeShards,
    RoutingText, ShardSpec, Shards, TimeBucket,
};
pub use crate::table::{
    Billing, IndexDefinition, IndexProjection, KeyAttribute, ScalarKind, StreamView, Table, TableDefinition,
    WarmThroughput,
};
pub use crate::timestamp::{read_stamp, stamp_attributes, Timestamp};
pub use crate::view::{view_from_item, View};
pub use aws_sdk_dynamodb::types::AttributeValue;
pub use serde;
pub use std::boxed::Box;
pub use std::option::Option::{self, None, Some};
pub use std::result::Result::{Err, Ok};
pub use std::string::String;
pub use std::vec::Vec;
pub use time::OffsetDateTime;

/// The table of an entity whose derive failed: the crate does not compile, and its uses report
/// nothing more.
#[derive(Debug)]
pub struct FallbackTable;

impl Table for FallbackTable {
    const DEFINITION: TableDefinition = TableDefinition {
        name: "fallback",
        partition_key: "pk",
        sort_key: None,
        type_attribute: crate::table::DEFAULT_TYPE_ATTRIBUTE,
        indexes: &[],
        billing: Billing::PayPerRequest,
        shard_metadata: None,
        ttl: None,
        stream: None,
        deletion_protection: false,
        point_in_time_recovery: false,
        warm_throughput: None,
        tags: &[],
    };
}

/// An entity's `table = ...` type as its generated code reads it. `TableProbe::<T>::DEFINITION`
/// is `T`'s definition when `T` is a table; when it is not, the inherent constants do not apply
/// and [`NotATable`]'s stand in (`FallbackTable`'s definition, `DECLARED` false), so that the
/// entity's `type Table` bound is the one error, and the compile-time checks against the table,
/// guarded by `DECLARED`, stay silent.
#[derive(Debug)]
pub struct TableProbe<T>(std::marker::PhantomData<T>);

impl<T: Table> TableProbe<T> {
    /// `T`'s definition.
    pub const DEFINITION: &'static TableDefinition = T::DEFINITION_REF;
    /// `T` is a table.
    pub const DECLARED: bool = true;
}

/// The constants of a [`TableProbe`] of a type that is not a table.
pub trait NotATable {
    /// A stand-in definition.
    const DEFINITION: &'static TableDefinition = FallbackTable::DEFINITION_REF;
    /// The type is not a table.
    const DECLARED: bool = false;
}

impl<T> NotATable for TableProbe<T> {}
