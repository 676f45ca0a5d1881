//! Parallel scans: every item of one entity type (or of a collection's types) in a table or an
//! index, read by several segments at once and yielded as one stream.
//!
//! A scan runs as a query does: `db.stream(scan)` gives a [`ScanStream`] with its
//! [`stats`](ScanStream::stats).
//!
//! ```no_run
//! # async fn example<E: dynashard::Entity>(db: dynashard::Db) -> dynashard::Result<()> {
//! use dynashard::Scan;
//! use futures::TryStreamExt;
//! // `Song::scan()` for a concrete entity type.
//! let all: Vec<E> = db.stream(Scan::<E>::entity().segments(8)).try_collect().await?; // in no particular order
//! # Ok(()) }
//! ```

mod count;
mod run;
mod stream;

pub(crate) use count::count;
pub use stream::ScanStream;

use crate::collection::Collection;
use crate::entity::Entity;
use crate::error::{Item, Result};
use crate::expression::Condition;
use crate::item::{from_item_checked, table_of};
use crate::query::FromItem;
use crate::table::{Table, TableDefinition};

/// Segments of a scan unless set with [`Scan::segments`].
pub(crate) const DEFAULT_SEGMENTS: u32 = 4;

/// Segment requests in flight at once unless set with [`Scan::concurrency`] (and never more
/// than there are segments).
pub(crate) const DEFAULT_CONCURRENCY: usize = 8;

/// How a scan turns a raw item into its output (`Ok(None)` skips the item).
type Decode<T> = fn(Item, bool) -> Result<Option<T>>;

/// A parallel scan, built with the derives' `Song::scan()` (an entity type) or
/// `Discography::scan()` (a collection), or in generic code [`Scan::entity`] and
/// [`Scan::collection`]; run it with [`Db::stream`](crate::Db::stream).
///
/// The table (or index) is split into [`Scan::segments`] that DynamoDB reads independently
/// (`Segment`/`TotalSegments`); up to [`Scan::concurrency`] of them are read at once, each page
/// after page. Items arrive **in no particular order**: interleaved across segments, and within
/// a segment in DynamoDB's storage order. Only items of the scanned entity types are returned:
/// a filter on the entity-type attribute is applied by DynamoDB (filtered items still consume
/// read capacity).
#[must_use = "a scan does nothing until run with `db.stream(scan)`"]
pub struct Scan<T> {
    plan: ScanPlan,
    decode: Decode<T>,
}

impl<T> Clone for Scan<T> {
    fn clone(&self) -> Self {
        Scan { plan: self.plan.clone(), decode: self.decode }
    }
}

impl<T> std::fmt::Debug for Scan<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scan").field("plan", &self.plan).finish_non_exhaustive()
    }
}

/// What a scan reads, and how.
#[derive(Clone, Debug)]
pub(crate) struct ScanPlan {
    pub table: &'static TableDefinition,
    pub index: Option<String>,
    pub type_names: Vec<&'static str>,
    pub segments: u32,
    pub concurrency: Option<usize>,
    pub filter: Option<Condition>,
    /// Whether items past their time to live are left out.
    pub unexpired: bool,
    pub limit: Option<usize>,
    pub page_size: Option<usize>,
    pub consistent: bool,
}

impl ScanPlan {
    fn new(table: &'static TableDefinition, type_names: Vec<&'static str>) -> Self {
        Self {
            table,
            index: None,
            type_names,
            segments: DEFAULT_SEGMENTS,
            concurrency: None,
            filter: None,
            unexpired: false,
            limit: None,
            page_size: None,
            consistent: false,
        }
    }
}

impl<E: Entity> Scan<E> {
    /// Every item of entity type `E` in its table (what the derive's `E::scan()` gives).
    pub fn entity() -> Self {
        Scan { plan: ScanPlan::new(table_of::<E>(), vec![E::TYPE_NAME]), decode: from_item_checked::<E> }
    }
}

impl<C: Collection> Scan<C> {
    /// Every item of the entity types of collection `C` in its table, each decoded as its
    /// variant (what the derive's `C::scan()` gives).
    pub fn collection() -> Self {
        let table = <C::Table as Table>::DEFINITION_REF;
        Scan {
            plan: ScanPlan::new(table, <C as FromItem>::TYPE_NAMES.to_vec()),
            decode: <C as FromItem>::from_item,
        }
    }
}

impl<T: Send + 'static> Scan<T> {
    /// Scans the global secondary index `name` instead of the table (for a sparse index: only
    /// the items in it). An index the table does not declare fails the stream with
    /// [`crate::Error::InvalidQuery`].
    pub fn index(mut self, name: impl Into<String>) -> Self {
        self.plan.index = Some(name.into());
        self
    }

    /// Splits the scan into `segments` parallel segments (default 4; DynamoDB
    /// allows 1 to 1,000,000, others fail the stream with [`crate::Error::InvalidQuery`]).
    pub fn segments(mut self, segments: u32) -> Self {
        self.plan.segments = segments;
        self
    }

    /// Reads at most `requests` segments at once (default: every segment, up to 8; at least 1).
    pub fn concurrency(mut self, requests: usize) -> Self {
        self.plan.concurrency = Some(requests.max(1));
        self
    }

    /// Keeps only items for which `condition` holds (a DynamoDB filter expression: filtered
    /// items still consume read capacity).
    pub fn filter(mut self, condition: Condition) -> Self {
        self.plan.filter = Some(Condition::join(self.plan.filter.take(), condition));
        self
    }

    /// Leaves out items past their time to live that DynamoDB has not deleted yet, as
    /// [`Query::unexpired`](crate::Query::unexpired) does.
    pub fn unexpired(mut self) -> Self {
        self.plan.unexpired = true;
        self
    }

    /// Yields at most `limit` items in all, then stops reading. Also the `Limit` of each request
    /// unless a [`Scan::page_size`] is set.
    pub fn limit(mut self, limit: usize) -> Self {
        self.plan.limit = Some(limit);
        self
    }

    /// The `Limit` of each request: items DynamoDB reads per page, before filtering.
    pub fn page_size(mut self, size: usize) -> Self {
        self.plan.page_size = Some(size.max(1));
        self
    }

    /// Uses strongly consistent reads (the base table and local indexes; a scan of a global index
    /// then fails with [`crate::Error::InvalidQuery`]).
    pub fn consistent(mut self) -> Self {
        self.plan.consistent = true;
        self
    }
}
