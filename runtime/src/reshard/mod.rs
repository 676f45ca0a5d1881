//! Migrations: stored items moved from one declaration to another while writers and readers go
//! on ([`Migration`], started by [`Db::start_migration`](crate::Db::start_migration)). Two kinds
//! take the steps below: the resharding of a hash- or range-sharded index (its items moved to a
//! new layout: a new shard count, or new boundaries), and a mapping added to an entity whose
//! items exist ([`Migration::add_mapping`]: the target is the added index itself, the backfill
//! scans the entity's items in the table, and there is no source to clean at the finish).
//!
//! The new layout lives in a spare index of the same table (declared with `#[gsi(...)]` like the
//! source, string keys). Each phase is an explicit step, recorded in the shard metadata table;
//! processes read it there (every
//! [`ShardMetadata::cache_for`](crate::metadata::ShardMetadata::cache_for)), but nothing waits for
//! them: the table's change log is what makes the move safe.
//!
//! 1. [`Db::start_resharding`](crate::Db::start_resharding): **dual writes**. Every put also
//!    writes the item's place in the new layout (same logical partition and sort key, the shard
//!    the new layout picks) into the target index's attributes. Reads still use the source.
//! 2. [`Db::backfill`](crate::Db::backfill): a read of the source index in parts (pieces of its
//!    partitions read by Query when they are known without reading, else parallel scan
//!    segments, see [`Backfill::segments`]) gives every
//!    existing item its place in the target, with conditional updates sent 25 to a request, or,
//!    with [`Backfill::batched`], whole items in `BatchWriteItem`s while existing items are
//!    frozen. Each part records its position after every page, so a backfill that was
//!    interrupted (or whose process was killed) continues where it stopped.
//! 3. [`Db::cut_over`](crate::Db::cut_over): queries of the source index read the target index,
//!    with the new layout. Writes go on to both.
//! 4. [`Db::finish_resharding`](crate::Db::finish_resharding): writes stop filling the source
//!    index, and a scan removes the source attributes from every item placed in the target.
//!    Then declare the target index with the new layout in code (`#[shard(TARGET(hash = 32, ...))]`).
//!
//! Throughout, the **catch-up** ([`Db::catch_up`](crate::Db::catch_up),
//! [`Db::run_catch_up`](crate::Db::run_catch_up)) reads the table's stream and places every item
//! a write left without its place: a writer that had not yet seen the resharding, a request that
//! arrived late, a program that does not use dynashard. Every step applies the log to its end
//! before it moves on. The invariant it keeps, and why it holds, are in `catch_up.rs`: every
//! item that exists has its place in the target once the catch-up has read the log past the
//! item's last write, whatever the timing.
//!
//! Reads return every item exactly once, in order, in every phase: before the cut-over they read
//! the complete source layout, after it the target layout. A cursor from before the cut-over (or
//! the reverse) resumes after it where its page ended (see `query::sharded::crossing`); once the
//! finish has begun, one of the source layout is refused
//! ([`CursorError::LayoutChanged`](crate::query::CursorError::LayoutChanged)).

mod backfill;
mod catch_up;
mod follow;
mod guard;
mod migration;
mod ops;
mod pace;
mod page;
mod pieces;
mod place;
mod progress;
mod rewrite;
mod send;
mod state_machine;
mod suggest;
mod task;
mod verify;
mod view;

pub use crate::index_keys::AddedMapping;
pub(crate) use crate::metadata::reshard_records::Records;
pub use crate::metadata::{
    Budget, Capacity, MigrationKind, Phase, Placement, ReshardState, ScanKind, ScanPlan, SegmentProgress,
    Verified,
};
pub use crate::shard::Layout;
pub use backfill::Backfill;
pub use catch_up::CatchUpPass;
pub(crate) use guard::{follow_up, FollowUp, ReshardGuard};
pub use migration::Migration;
pub use ops::CutOver;
pub use progress::ReshardProgress;
pub use state_machine::StateMachine;
pub use task::{ReshardStep, ReshardTask, TaskOutcome};
pub use verify::{Verification, Verify};
pub(crate) use view::Reshards;

use crate::entity::Entity;
use crate::item::table_of;
use crate::metadata::mappings;

/// Whether writes of `E` may have to fill a resharding's target layout: its table declares shard
/// metadata (only such a table can be resharded, so that every `Db` writing it knows where to
/// look) and `E` has hash- or range-sharded mappings.
pub(crate) fn reshardable<E: Entity>() -> bool {
    table_of::<E>().shard_metadata.is_some() && mappings::<E>().next().is_some()
}

fn not_started(index: &str) -> crate::error::Error {
    crate::error::Error::Resharding {
        index: index.to_owned(),
        reason: "no resharding of it was started".into(),
    }
}

/// The scan position recorded as `after` (a key, as JSON), where a scan of `index` resumes.
fn resume_at(after: Option<&String>, index: &str) -> crate::error::Result<Option<crate::error::Item>> {
    let Some(json) = after else { return Ok(None) };
    let key = serde_json::from_str(json).ok().and_then(|value| crate::key_record::json_to_key(&value).ok());
    key.map(Some).ok_or_else(|| crate::error::Error::Resharding {
        index: index.to_owned(),
        reason: "bad scan position".into(),
    })
}
