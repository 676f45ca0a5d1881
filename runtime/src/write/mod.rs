//! The one pipeline every write runs (put, update, delete, batch writes, transactions):
//!
//! 1. **Layouts** ([`Layouts`]): what the write must know of `E`'s shard layouts, resolved once
//!    per attempt: the resharding phases of its mappings (read where the cache is stale) and the
//!    shard metadata its dynamic counts are cached in.
//! 2. **Item** ([`Draft`]): the entity's body, key and type attributes are serialized once; each
//!    attempt writes the index keys for the counts known (reading the counts it lacks first),
//!    adds the dual write of every resharding under way, and checks the complete item.
//! 3. **Guards** ([`Guards`]): the condition the write adds (create only, must exist, version,
//!    the freeze of a batched backfill), which also explains a failed condition.
//! 4. **Request** ([`WriteRequest`]): the parts of one conditional write, sent on its own or in
//!    a transaction; batch writes send the items in `BatchWriteItem` requests. A put of an
//!    entity with a `#[created_at]` field is sent as an update ([`keeping_created`]) that keeps
//!    an existing item's creation time.
//! 5. **Send and retry**: with the `Db`'s retry policy through the one retry helper; a put
//!    throttled on a dynamic-sharded partition raises its count ([`Layouts::grow_after`]), and
//!    an update follows the item it changed into the target layouts ([`Layouts::follow_update`]).

mod directory;
mod draft;
mod guards;
mod layouts;
mod replace;
mod request;

pub(crate) use directory::Buckets;
pub(crate) use draft::{Built, Draft};
pub(crate) use guards::{next_version, Guards};
pub(crate) use layouts::Layouts;
pub(crate) use replace::keeping_created;
pub(crate) use request::{
    condition_check, CheckAction, DeleteAction, Explain, PutAction, UpdateAction, WriteRequest,
};

pub(crate) use crate::reshard::reshardable;
