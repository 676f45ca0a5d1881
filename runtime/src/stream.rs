//! Running a read as a stream: [`Db::stream`] takes a query or a scan alike.

use crate::db::Db;
use crate::query::{FromItem, Query, QueryStream};
use crate::scan::{Scan, ScanStream};

/// A read that [`Db::stream`] runs: a [`Query`] (its items in sort-key order, with a cursor) or
/// a [`Scan`] (every item of a type, in no particular order).
pub trait Streamable: sealed::Sealed {
    /// The stream the read runs as.
    type Stream;

    #[doc(hidden)]
    fn stream_on(self, db: &Db) -> Self::Stream;
}

mod sealed {
    /// Only dynashard's reads run as streams.
    pub trait Sealed {}
    impl<E, F> Sealed for crate::query::Query<E, F> {}
    impl<T> Sealed for crate::scan::Scan<T> {}
}

impl<E: FromItem + Send + 'static, F> Streamable for Query<E, F> {
    type Stream = QueryStream<E>;

    fn stream_on(self, db: &Db) -> QueryStream<E> {
        db.stream_query(self)
    }
}

impl<T: Send + 'static> Streamable for Scan<T> {
    type Stream = ScanStream<T>;

    fn stream_on(self, db: &Db) -> ScanStream<T> {
        ScanStream::new(db, self)
    }
}

impl Db {
    /// Runs a query or a scan as a stream of its items; its `.stats()` tell what it has cost so
    /// far. Nothing is sent before the stream is first polled.
    ///
    /// A [`Query`] yields its items in sort-key order (or reverse, when descending), as a
    /// [`QueryStream`] that can also hand back a cursor. Pages are fetched on demand; while one
    /// page drains, the next is already requested, so a long listing costs about one round trip
    /// per page. A sharded query reads all its shards and yields one ordered stream: range
    /// shards one after another, reading up to [`concurrency`](Query::concurrency) shards ahead;
    /// other shards merged on the sort-key bytes, every shard asked at once and then only while
    /// the merged output still needs it; time buckets one after another, named as the read
    /// reaches them. With a [`limit`](Query::limit), each request asks a shard for about its
    /// share of what is still wanted, rounded up to whole read units.
    ///
    /// A [`Scan`] yields every item of its entity types in no particular order, as a
    /// [`ScanStream`], its segments read in parallel.
    ///
    /// ```no_run
    /// # use dynashard::{Db, Entity, Table};
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Table)] #[table(name = "Music", pk = "pk", sk = "sk")] struct Music;
    /// # #[derive(Entity, Serialize, Deserialize)]
    /// # #[entity(table = Music, pk = "{artist}", sk = "song#{title}")]
    /// # struct Song { artist: String, title: String }
    /// # async fn example(db: Db) -> dynashard::Result<()> {
    /// use futures::TryStreamExt;
    /// let mine: Vec<Song> = db.stream(Song::query("Solar Fields")).try_collect().await?;
    /// let all: Vec<Song> = db.stream(Song::scan().segments(8)).try_collect().await?;
    /// # Ok(()) }
    /// ```
    pub fn stream<R: Streamable>(&self, read: R) -> R::Stream {
        read.stream_on(self)
    }
}
