//! Typed queries: entry points generated from key templates, sort-key conditions, streams,
//! pages and cursors.
//!
//! ```no_run
//! # use dynashard::{Db, Entity, Table};
//! # use serde::{Deserialize, Serialize};
//! # #[derive(Table)] #[table(name = "Music", pk = "pk", sk = "sk")] struct Music;
//! # #[derive(Entity, Serialize, Deserialize)]
//! # #[entity(table = Music, pk = "{artist}", sk = "song#{album}#{title}")]
//! # struct Song { artist: String, album: String, title: String }
//! # async fn example(db: Db) -> dynashard::Result<()> {
//! use futures::TryStreamExt;
//! // Every song of one album with a title from "A" to "M", newest first, at most 20.
//! let query = Song::query("Solar Fields").eq("Leaving Home").between("A", "M").descending().limit(20);
//! let songs: Vec<Song> = db.stream(query).try_collect().await?;
//! # Ok(()) }
//! ```

mod conditions;
mod count;
mod counts;
pub(crate) mod cursor;
mod decode;
mod gate;
mod hydrate;
mod merged;
mod native;
mod page;
#[cfg(test)]
mod pinned_tests;
mod position;
mod range;
mod reader;
mod request;
mod resolve;
mod routing;
mod sharded;
mod shards;
mod sort;
mod stats;
mod stream;
mod traced;
pub(crate) use traced::StreamSpan;

pub use crate::count::Countable;
pub use crate::projection::{IndexSlot, Projected};
pub use crate::shard::{Layout, ShardMode, Shards};
pub use crate::stream::Streamable;
pub use conditions::{Done, End, Next};
pub use conditions::{Narrow, PrefixCondition, RangeCondition};
pub(crate) use count::count;
pub use cursor::CursorError;
pub use decode::FromItem;
pub use merged::DEFAULT_MAX_KEYS;
pub(crate) use native::NativeCondition;
pub use native::{same_kind, Native, NativeKeyPart};
pub use page::Page;
pub(crate) use range::SortRange;
pub use routing::Normalized;
pub use sharded::sizing::RequestSizing;
pub use stats::{QueryStats, StatsSnapshot};
pub use stream::QueryStream;

use crate::error::{Error, KeyError};
use crate::expression::Condition;
use crate::key::{KeyTemplate, Segment};
use crate::table::{IndexDefinition, TableDefinition};
use std::marker::PhantomData;

/// Shard queries a sharded read runs at once unless told otherwise: enough for the first
/// requests to every shard of a layout of up to 32 shards to go out together.
pub const DEFAULT_CONCURRENCY: usize = 32;

/// A query over one partition of a table or index, yielding `E`s in sort-key order.
///
/// Built by the generated entry points (`Song::query(artist)`, `Album::query_gsi1()`, ...) and
/// narrowed with typed sort-key conditions; run with [`crate::Db::stream`] or
/// [`crate::Db::page`]. Key values are checked when the query runs: an invalid value is an
/// [`Error::InvalidKey`] from the stream, and nothing is sent.
#[must_use = "a query does nothing until it is run with Db::stream or Db::page"]
pub struct Query<E, F = Done> {
    pub(crate) plan: QueryPlan,
    marker: PhantomData<fn() -> (E, F)>,
}

impl<E, F> Clone for Query<E, F> {
    fn clone(&self) -> Self {
        Query { plan: self.plan.clone(), marker: PhantomData }
    }
}

impl<E, F> std::fmt::Debug for Query<E, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Query").field("plan", &self.plan).finish()
    }
}

/// Everything a query run needs; built by generated code.
#[doc(hidden)]
#[derive(Clone, Debug)]
pub struct QueryPlan {
    pub(crate) table: &'static TableDefinition,
    pub(crate) index: Option<&'static IndexDefinition>,
    /// The index the query was built for, which cursors name: `index` differs from it after a
    /// resharding's cut-over redirects the query.
    pub(crate) queried_index: Option<&'static IndexDefinition>,
    pub(crate) type_name: &'static str,
    pub(crate) partition_attribute: &'static str,
    pub(crate) partition_value: String,
    /// The partition key values of a merge ([`Query::merge`]), sorted; empty for one key.
    pub(crate) keys: Vec<String>,
    /// The most keys a merge may read.
    pub(crate) max_keys: usize,
    /// The sort-key range of each of `keys`, when a merge's queries differ in it (empty when
    /// they do not: `range` is every key's); and of each partition, in lane order.
    pub(crate) key_ranges: Vec<SortRange>,
    pub(crate) lane_ranges: Vec<SortRange>,
    pub(crate) sort_attribute: Option<&'static str>,
    pub(crate) sort_template: Option<&'static KeyTemplate>,
    pub(crate) position: usize,
    pub(crate) prefix: String,
    pub(crate) range: SortRange,
    pub(crate) descending: bool,
    pub(crate) limit: Option<usize>,
    pub(crate) page_size: Option<usize>,
    pub(crate) consistent: bool,
    pub(crate) filter: Option<Condition>,
    pub(crate) skip_other_types: bool,
    pub(crate) start_after: Option<String>,
    pub(crate) error: Option<QueryError>,
    pub(crate) native_partition: Vec<(&'static str, aws_sdk_dynamodb::types::AttributeValue)>,
    pub(crate) native_sort: Vec<(&'static str, aws_sdk_dynamodb::types::AttributeValue)>,
    pub(crate) native_range: Option<(&'static str, NativeCondition)>,
    pub(crate) shards: Option<Shards>,
    pub(crate) concurrency: usize,
    pub(crate) sizing: RequestSizing,
    pub(crate) max_partitions: u64,
    pub(crate) routing: Option<(Layout, Option<usize>)>,
    /// The attributes to read (a view's), besides the keys; `None` reads whole items.
    pub(crate) projection: Option<&'static [&'static str]>,
    /// Whether the items read are replaced by the base table's items under their keys.
    pub(crate) hydrate: bool,
    /// Whether items past their time to live are left out.
    pub(crate) unexpired: bool,
    /// Whether it reads a mapping declared `added`, whose reads wait for its migration.
    pub(crate) added: bool,
    /// Whether it reads such a mapping before the migration's cut-over all the same.
    pub(crate) accept_partial: bool,
}

/// A problem found while building a query, reported when it runs.
#[derive(Clone, Debug)]
pub(crate) enum QueryError {
    InvalidKey { attribute: &'static str, template: &'static str, reason: KeyError },
    WindowTooWide { partitions: u128, max: u64 },
    Other(String),
}

impl QueryError {
    pub(crate) fn into_error(self) -> Error {
        match self {
            QueryError::InvalidKey { attribute, template, reason } => {
                Error::InvalidKey { attribute, template, reason }
            }
            QueryError::WindowTooWide { partitions, max } => Error::WindowTooWide { partitions, max },
            QueryError::Other(reason) => Error::InvalidQuery { reason },
        }
    }
}

/// Where a query reads: the table or one of its indexes, and which key attributes.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct QueryTarget {
    pub table: &'static TableDefinition,
    pub index: Option<&'static IndexDefinition>,
    pub type_name: &'static str,
    pub partition_attribute: &'static str,
    pub sort_attribute: Option<&'static str>,
    pub sort_template: Option<&'static KeyTemplate>,
}

impl<E, F> Query<E, F> {
    /// A query of the partition `partition` (a composed key, or the error composing it).
    #[doc(hidden)]
    pub fn new(target: QueryTarget, partition: Result<String, Error>) -> Self {
        let mut plan = QueryPlan {
            table: target.table,
            index: target.index,
            queried_index: target.index,
            type_name: target.type_name,
            partition_attribute: target.partition_attribute,
            partition_value: String::new(),
            keys: Vec::new(),
            max_keys: merged::DEFAULT_MAX_KEYS,
            key_ranges: Vec::new(),
            lane_ranges: Vec::new(),
            sort_attribute: target.sort_attribute,
            sort_template: target.sort_template,
            position: 0,
            prefix: String::new(),
            range: SortRange::all(),
            descending: false,
            limit: None,
            page_size: None,
            consistent: false,
            filter: None,
            skip_other_types: false,
            start_after: None,
            error: None,
            native_partition: Vec::new(),
            native_sort: Vec::new(),
            native_range: None,
            shards: None,
            concurrency: DEFAULT_CONCURRENCY,
            sizing: RequestSizing::Floor,
            max_partitions: crate::shard::DEFAULT_MAX_PARTITIONS,
            routing: None,
            projection: None,
            hydrate: false,
            unexpired: false,
            added: false,
            accept_partial: false,
        };
        match partition {
            Ok(value) => plan.partition_value = value,
            Err(error) => plan.error = Some(to_query_error(error)),
        }
        if let Some(template) = target.sort_template {
            while let Some(Segment::Literal(text)) = template.segments.get(plan.position) {
                plan.prefix.push_str(text);
                plan.position += 1;
            }
            let more = plan.position < template.segments.len();
            plan.range =
                if more { SortRange::begins_with(&plan.prefix) } else { SortRange::equals(&plan.prefix) };
        }
        Query { plan, marker: PhantomData }
    }

    pub(crate) fn retype<G>(self) -> Query<E, G> {
        Query { plan: self.plan, marker: PhantomData }
    }

    /// The same query, yielding `V`s.
    pub(crate) fn yielding<V>(self) -> Query<V, F> {
        Query { plan: self.plan, marker: PhantomData }
    }

    /// The same query, reading only `attributes` (and the keys) of each item, as `V`s.
    pub(crate) fn projected<V>(mut self, attributes: &'static [&'static str]) -> Query<V, F> {
        self.plan.projection = Some(attributes);
        self.yielding()
    }

    pub(crate) fn fail(&mut self, error: Error) {
        self.plan.error.get_or_insert(to_query_error(error));
    }

    /// Reads in descending sort-key order.
    pub fn descending(mut self) -> Self {
        self.plan.descending = true;
        self
    }

    /// Yields at most `limit` items in all (a stream); in [`crate::Db::page`], at most `limit`
    /// items per page.
    pub fn limit(mut self, limit: usize) -> Self {
        self.plan.limit = Some(limit);
        self
    }

    /// Items per page for [`crate::Db::page`] (default 100), and the `Limit` of each request.
    /// A page size of 0 fails the query with [`Error::InvalidQuery`] when it runs.
    pub fn page_size(mut self, size: usize) -> Self {
        self.plan.page_size = Some(size);
        self
    }

    /// Uses strongly consistent reads (the base table and local indexes; a query of a global
    /// index then fails with [`Error::InvalidQuery`]).
    pub fn consistent(mut self) -> Self {
        self.plan.consistent = true;
        self
    }

    /// Keeps only items for which `condition` holds (a DynamoDB filter expression: filtered
    /// items still consume read capacity).
    pub fn filter(mut self, condition: Condition) -> Self {
        self.plan.filter = Some(Condition::join(self.plan.filter.take(), condition));
        self
    }

    /// Leaves out items past their time to live that DynamoDB has not deleted yet (it deletes
    /// expired items within a few days, not at once): a filter keeping items whose `#[ttl]`
    /// attribute is missing or later than now. Fails with [`Error::InvalidQuery`] on a table that
    /// declares no `ttl`, or through an index that does not hold it.
    pub fn unexpired(mut self) -> Self {
        self.plan.unexpired = true;
        self
    }

    /// Skips items of other entity types instead of failing with [`Error::WrongEntityType`]
    /// (for a single entity) or [`Error::UnknownEntityType`] (for a collection).
    pub fn skip_other_types(mut self) -> Self {
        self.plan.skip_other_types = true;
        self
    }

    /// Resumes after the item a cursor from [`crate::Db::page`] points at.
    pub fn start_after(mut self, cursor: impl Into<String>) -> Self {
        self.plan.start_after = Some(cursor.into());
        self
    }
}

impl QueryPlan {
    /// The filter to send: the query's own, and the time-to-live filter when it leaves out
    /// expired items (checked to have a `ttl` attribute by `request::check`).
    pub(crate) fn filter_now(&self) -> Option<Condition> {
        let ttl = self.table.ttl.filter(|_| self.unexpired);
        let unexpired =
            ttl.map(|attribute| Condition::unexpired(attribute, crate::metadata::now_ms() / 1_000));
        match (self.filter.clone(), unexpired) {
            (filter, Some(unexpired)) => Some(Condition::join(filter, unexpired)),
            (filter, None) => filter,
        }
    }
}

fn to_query_error(error: Error) -> QueryError {
    match error {
        Error::InvalidKey { attribute, template, reason } => {
            QueryError::InvalidKey { attribute, template, reason }
        }
        other => QueryError::Other(other.to_string()),
    }
}
