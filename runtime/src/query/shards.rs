//! The shard layout a query reads: which partitions, and how their results combine.

use crate::shard::{ShardMode, Shards};

impl<E, F> super::Query<E, F> {
    /// Reads `shards` instead of the query's single partition. Generated code calls this.
    #[doc(hidden)]
    pub fn sharded(mut self, shards: Shards) -> Self {
        self.plan.shards = Some(shards);
        self
    }

    /// The shards this query reads, if its index is sharded. A time-bucketed query describes
    /// its partitions by its window and names them when it runs; [`Shards::partition_keys`]
    /// names them either way.
    pub fn plan_shards(&self) -> Option<&Shards> {
        self.plan.shards.as_ref()
    }

    /// Runs at most `queries` shard queries at once (default
    /// [`DEFAULT_CONCURRENCY`](super::DEFAULT_CONCURRENCY), 32). A merge sends its first requests
    /// to every shard together when it may; range shards and time buckets are read ahead up to
    /// this many partitions, each holding at most two pages.
    pub fn concurrency(mut self, queries: usize) -> Self {
        self.plan.concurrency = queries.max(1);
        self
    }

    /// How a merged page sizes its first request to each shard (default
    /// [`RequestSizing::Floor`](super::RequestSizing::Floor), the fewest read units):
    /// [`RequestSizing::OneRoundTrip`](super::RequestSizing::OneRoundTrip) asks each for more,
    /// so that a page rarely waits on a second round trip, as long as the
    /// [`concurrency`](Self::concurrency) lets every shard be asked at once. Reads that are not
    /// merged (range shards, an unsharded partition) ask for what is missing either way.
    ///
    /// ```
    /// # use dynashard::{Entity, Table};
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Table)] #[table(name = "Music", pk = "pk", sk = "sk")] #[gsi(gsi1(pk = "gsi1pk", sk = "gsi1sk"))] struct Music;
    /// use dynashard::query::RequestSizing;
    ///
    /// #[derive(Entity, Serialize, Deserialize)]
    /// #[entity(table = Music, pk = "{artist}", sk = "album#{title}")]
    /// #[gsi(gsi1(pk = "albums", sk = "{title}"))]
    /// #[shard(gsi1(hash = 21, by = title))]
    /// struct Album { artist: String, title: String }
    ///
    /// // A page of 100 titles in one round trip to the 21 shards, at about three times the
    /// // read units of an unsharded page rather than 1.8 times.
    /// let fast = Album::query_gsi1().limit(100).request_sizing(RequestSizing::OneRoundTrip);
    /// # drop(fast);
    /// ```
    pub fn request_sizing(mut self, sizing: super::RequestSizing) -> Self {
        self.plan.sizing = sizing;
        self
    }

    /// Reads at most `partitions` partitions (default [`DEFAULT_MAX_PARTITIONS`](crate::shard::DEFAULT_MAX_PARTITIONS)): a
    /// time-bucketed query whose window covers more (buckets times shards) fails with
    /// [`Error::WindowTooWide`](crate::Error::WindowTooWide) before anything is sent.
    ///
    /// ```
    /// # use dynashard::{Entity, Table};
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Table)] #[table(name = "Sensors", pk = "pk", sk = "sk")] #[gsi(Readings(pk = "rpk", sk = "rsk"))] struct Sensors;
    /// #[derive(Entity, Serialize, Deserialize)]
    /// #[entity(table = Sensors, pk = "sensor#{sensor}", sk = "at#{at}")]
    /// #[gsi(Readings(pk = "reading", sk = "{at}#{sensor}"))]
    /// #[shard(Readings(hash = 4, by = sensor, bucket = "minute", at = at))]
    /// struct Reading { sensor: String, at: i64 }
    ///
    /// let day = 86_400;
    /// // A week of minute buckets over 4 shards: 40,320 partitions, within the default bound.
    /// let week = Reading::query_readings(0, 7 * day - 1);
    /// // A year of them (2.1 million) is refused when it runs, unless the bound allows it.
    /// let year = Reading::query_readings(0, 365 * day - 1).max_partitions(3_000_000);
    /// # drop((week, year));
    /// ```
    pub fn max_partitions(mut self, partitions: u64) -> Self {
        self.plan.max_partitions = partitions;
        self
    }
}

impl super::QueryPlan {
    /// The plan with the partitions of its time window named, when it has one; a window over
    /// the plan's bound, or one that ends before it starts, fails the plan instead.
    pub(crate) fn with_window_named(mut self) -> Self {
        let unnamed = self.shards.as_ref().filter(|shards| shards.partitions.is_empty());
        let Some(shards) = unnamed else { return self };
        let Some(window) = shards.window.clone() else { return self };
        let lazy = shards.mode == ShardMode::Buckets;
        if window.from > window.to {
            let reason = "the time window ends before it starts".to_owned();
            self.error.get_or_insert(super::QueryError::Other(reason));
            return self;
        }
        let max = self.max_partitions;
        if window.partitions() > u128::from(max) {
            let partitions = window.partitions();
            self.error.get_or_insert(super::QueryError::WindowTooWide { partitions, max });
            return self;
        }
        // Buckets read one after another are named as the read reaches them.
        if !lazy {
            if let (Ok(keys), Some(shards)) = (window.partition_keys(max), &mut self.shards) {
                shards.partitions = keys;
            }
        }
        self
    }

    /// The partition key value of shard `shard`: the plan's own partition when unsharded.
    pub(crate) fn partition(&self, shard: usize) -> &str {
        self.shards.as_ref().and_then(|shards| shards.partitions.get(shard)).unwrap_or(&self.partition_value)
    }

    /// How many partitions the plan reads (1 when unsharded).
    pub(crate) fn shard_count(&self) -> usize {
        self.shards.as_ref().map_or(1, |shards| {
            match (shards.layout.dynamic_max(), &shards.window, shards.mode) {
                (Some(max), _, _) => max as usize,
                // Requests to a window read bucket after bucket count under their shard.
                (None, Some(window), ShardMode::Buckets) => window.shards.len(),
                (None, _, _) => shards.partitions.len(),
            }
        })
    }
}
