//! Counting a read's items without reading them: [`Db::count`] takes a query or a scan alike.

use crate::db::Db;
use crate::error::Result;
use crate::query::{FromItem, Query};
use crate::scan::Scan;
use std::future::Future;

/// A read that [`Db::count`] counts: a [`Query`] or a [`Scan`].
pub trait Countable: sealed::Sealed {
    #[doc(hidden)]
    fn count_on<'a>(&'a self, db: &'a Db) -> impl Future<Output = Result<u64>> + Send + 'a;
}

mod sealed {
    /// Only dynashard's reads are counted.
    pub trait Sealed {}
    impl<E, F> Sealed for crate::query::Query<E, F> {}
    impl<T> Sealed for crate::scan::Scan<T> {}
}

impl<E: FromItem, F> Countable for Query<E, F> {
    fn count_on<'a>(&'a self, db: &'a Db) -> impl Future<Output = Result<u64>> + Send + 'a {
        crate::query::count(db, self)
    }
}

impl<T> Countable for Scan<T> {
    fn count_on<'a>(&'a self, db: &'a Db) -> impl Future<Output = Result<u64>> + Send + 'a {
        crate::scan::count(db, self)
    }
}

impl Db {
    /// How many items a stream of `read` would yield, counted by DynamoDB (`Select=COUNT`)
    /// without returning them: every page of every partition (or scan segment), in parallel
    /// (up to the read's `concurrency`). It costs the read units of reading the items, but
    /// nothing is sent back.
    ///
    /// A query counts every shard it would read (a dynamic count's readable shards, a
    /// resharding's target after its cut-over, a time window's buckets, only those its bucket
    /// directory lists when the index keeps one) with its sort-key
    /// conditions and filter, up to its [`limit`](Query::limit); items of entity types other
    /// than the query's are not counted. A query that
    /// [starts after a key](Query::start_after) is refused: a count covers the whole query. So
    /// is a query on an index that does not hold the entity-type attribute (a keys-only index):
    /// DynamoDB could not tell its items' types apart ([`Error::InvalidQuery`](crate::Error::InvalidQuery)).
    ///
    /// ```no_run
    /// # use dynashard::{Db, Entity, Table};
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Table)] #[table(name = "Music", pk = "pk", sk = "sk")] struct Music;
    /// # #[derive(Entity, Serialize, Deserialize)]
    /// # #[entity(table = Music, pk = "{artist}", sk = "song#{album}#{title}")]
    /// # struct Song { artist: String, album: String, title: String }
    /// # async fn example(db: Db) -> dynashard::Result<()> {
    /// let songs = db.count(&Song::query("Solar Fields").begins_with("Leaving Home")).await?;
    /// let everything = db.count(&Song::scan().segments(8)).await?;
    /// # Ok(()) }
    /// ```
    pub async fn count(&self, read: &impl Countable) -> Result<u64> {
        read.count_on(self).await
    }
}
