//! The `Db` handle: a DynamoDB client plus the table names it addresses.

use crate::consumption::{Consumed, HotKeyTracking, HotKeys, Meter};
use crate::entity::Entity;
use crate::error::{Error, Result};
use crate::metadata::ShardMetadata;
use crate::retry::RetryPolicy;
use crate::table::Table;
use aws_sdk_dynamodb::Client;
use std::collections::HashMap;
use std::sync::Arc;

/// The entry point for reads and writes: wraps an `aws_sdk_dynamodb::Client`.
///
/// Cheap to clone. Table names default to the declared ones; override them per deployment with
/// [`Db::with_table_name`].
#[derive(Clone, Debug)]
pub struct Db {
    client: Client,
    table_names: Arc<HashMap<&'static str, String>>,
    cursor_key: Option<Arc<[u8]>>,
    retry_policy: RetryPolicy,
    /// The shard metadata of its tables, shared by its clones.
    pub(crate) shards: crate::metadata::registry::Registry,
    /// The item sizes its limited reads have seen, shared by its clones.
    pub(crate) item_sizes: Arc<crate::item_size::SizeMemory>,
    /// The time-bucket directory entries its writes recorded, shared by its clones.
    pub(crate) buckets: Arc<crate::shard::RecordedBuckets>,
    /// The shard of each directory-listed time bucket its writes use, shared by its clones.
    pub(crate) bucket_affinity: Arc<crate::shard::BucketAffinity>,
    /// The stream listings its change feeds plan from, shared by its clones.
    pub(crate) stream_listings: Arc<crate::client::StreamListings>,
    /// The client of the tables' streams, made from `client` on first use unless given.
    streams: Arc<tokio::sync::OnceCell<aws_sdk_dynamodbstreams::Client>>,
    /// What it consumed and was throttled on, shared by its clones.
    meter: Meter,
}

impl Db {
    /// A handle on `client` using the declared table names. Its [`client`](Db::client) is a copy
    /// of `client`'s configuration with an interceptor that counts throttled attempts
    /// ([`Measured::throttles`](crate::consumption::Measured::throttles)); a configuration
    /// without an HTTP client of its own gets a new one (a connection pool of its own). Make
    /// further `Db`s from [`Db::client`] (or clone the `Db`) to share it.
    pub fn new(client: Client) -> Self {
        Self {
            client: crate::consumption::CountThrottles::on(client),
            table_names: Arc::default(),
            cursor_key: None,
            retry_policy: RetryPolicy::DEFAULT,
            shards: Default::default(),
            item_sizes: Arc::default(),
            buckets: Arc::default(),
            bucket_affinity: Arc::default(),
            stream_listings: Arc::default(),
            streams: Arc::default(),
            meter: Meter::default(),
        }
    }

    /// Tracks hot keys as `tracking` says, from now on (the counts so far are dropped).
    pub fn with_hot_key_tracking(mut self, tracking: HotKeyTracking) -> Self {
        self.meter.hot = Some(crate::consumption::Tracker::new(tracking));
        self
    }

    /// Tracks no hot keys: [`Db::hot_keys`] is then empty.
    pub fn without_hot_key_tracking(mut self) -> Self {
        self.meter.hot = None;
        self
    }

    /// The `n` keys this `Db` and its clones consumed the most units on, and were throttled on
    /// the most, over the tracking window (the last minute by default; see [`HotKeyTracking`]).
    ///
    /// ```no_run
    /// # async fn example(db: dynashard::Db) {
    /// for key in db.hot_keys(10).consumed {
    ///     let place = &key.place;
    ///     println!("{} {:?} {}: {:.0} units ({:.0}%)", place.table, place.index, place.partition_key, key.count, 100.0 * key.share);
    /// }
    /// # }
    /// ```
    pub fn hot_keys(&self, n: usize) -> HotKeys {
        self.meter.hot.as_ref().map_or_else(HotKeys::empty, |tracker| tracker.top(n))
    }

    /// The `n` keys this `Db` and its clones consumed the most units on over the tracking
    /// window, and the `n` throttled most, as a [heat map](crate::heat::HeatMap): a slice a
    /// period of the window, each key's units and throttles in it (empty when it tracks no hot
    /// keys). Reads and writes are counted together, so they are measured against what a
    /// partition writes a second: a key hot on reads shows hotter than it is.
    ///
    /// ```no_run
    /// # async fn example(db: dynashard::Db) {
    /// println!("{}", db.heat_map(20).terminal(120, true));
    /// # }
    /// ```
    pub fn heat_map(&self, n: usize) -> crate::heat::HeatMap {
        match &self.meter.hot {
            Some(tracker) => crate::heat::HeatMap::of_history(tracker.history(n)),
            None => crate::heat::HeatMapBuilder::new(std::time::Duration::from_secs(1)).build(),
        }
    }

    /// The read and write units this `Db` and its clones consumed since it was made, per table or
    /// index and entity type (gets, queries, puts, updates and deletes).
    ///
    /// ```no_run
    /// # async fn example(db: dynashard::Db) {
    /// for total in db.consumed() {
    ///     println!("{} {:?} {}: {} read, {} write units", total.table, total.index, total.entity, total.read_units, total.write_units);
    /// }
    /// # }
    /// ```
    pub fn consumed(&self) -> Vec<Consumed> {
        self.meter.totals.all()
    }

    /// Where its requests count what they consumed.
    pub(crate) fn meter(&self) -> &Meter {
        &self.meter
    }

    /// Reads the tables' streams (change feeds, the catch-up of a resharding) through `client`.
    /// Without it, one is made on first use: for a loopback endpoint named by
    /// `AWS_ENDPOINT_URL_DYNAMODB_STREAMS` or `AWS_ENDPOINT_URL_DYNAMODB` (DynamoDB Local serves
    /// both APIs on one port), as [`streams_client_for_endpoint`](crate::client::streams_client_for_endpoint)
    /// makes it; otherwise from the standard aws-config chain, in the DynamoDB client's region and
    /// with its timeouts.
    pub fn with_streams_client(mut self, client: aws_sdk_dynamodbstreams::Client) -> Self {
        self.streams = Arc::new(tokio::sync::OnceCell::new_with(Some(client)));
        // What another client listed is not what this one lists (an endpoint of its own).
        self.stream_listings = Arc::default();
        self
    }

    /// The client of the tables' streams.
    pub async fn streams(&self) -> &aws_sdk_dynamodbstreams::Client {
        self.streams.get_or_init(|| crate::client::streams_client_like(&self.client)).await
    }

    /// Retries batch calls per `policy` unless a call sets its own with `.retry(..)`.
    ///
    /// ```no_run
    /// # fn example(client: aws_sdk_dynamodb::Client) {
    /// let policy = dynashard::RetryPolicy { max_attempts: 20, ..Default::default() };
    /// let db = dynashard::Db::new(client).with_retry_policy(policy);
    /// assert_eq!(db.retry_policy(), policy);
    /// # }
    /// ```
    pub fn with_retry_policy(mut self, policy: RetryPolicy) -> Self {
        self.retry_policy = policy;
        self
    }

    /// The default retry policy of batch calls.
    pub fn retry_policy(&self) -> RetryPolicy {
        self.retry_policy
    }

    /// Uses `name` as the real name of table `T` (e.g. `Music-prod`). A name DynamoDB would
    /// refuse (3 to 255 characters of `a-z A-Z 0-9 _ - .`) fails with
    /// [`Error::InvalidTableName`](crate::Error::InvalidTableName).
    ///
    /// ```
    /// # use dynashard::{Db, Table};
    /// # #[derive(Table)] #[table(name = "Music", pk = "pk", sk = "sk")] struct Music;
    /// # fn example(client: aws_sdk_dynamodb::Client) -> dynashard::Result<()> {
    /// let db = Db::new(client).with_table_name::<Music>("Music-prod")?;
    /// assert!(db.clone().with_table_name::<Music>("prod/music").is_err());
    /// # Ok(()) }
    /// ```
    pub fn with_table_name<T: Table>(mut self, name: impl Into<String>) -> crate::error::Result<Self> {
        let name = name.into();
        crate::table::check_name(&name)?;
        Arc::make_mut(&mut self.table_names).insert(T::DEFINITION.name, name);
        Ok(self)
    }

    /// Signs query cursors with HMAC-SHA256 under `key`, so clients cannot forge them; cursors
    /// signed with another key (or unsigned) are then rejected.
    pub fn with_cursor_key(mut self, key: impl AsRef<[u8]>) -> Self {
        self.cursor_key = Some(Arc::from(key.as_ref()));
        self
    }

    pub(crate) fn cursor_key(&self) -> Option<&[u8]> {
        self.cursor_key.as_deref()
    }

    /// The underlying SDK client, for anything dynashard does not cover.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// The real name of table `T`.
    pub fn table_name<T: Table>(&self) -> &str {
        self.name_of(T::DEFINITION.name)
    }

    pub(crate) fn name_of(&self, declared: &'static str) -> &str {
        self.table_names.get(declared).map(String::as_str).unwrap_or(declared)
    }

    pub(crate) fn table_of<E: Entity>(&self) -> &str {
        self.table_name::<E::Table>()
    }

    /// Keeps shard metadata (dynamic shard counts, resharding phases) as `metadata` describes,
    /// for every table this `Db` writes: its table name replaces the one a table declares
    /// (`#[table(shard_metadata = "...")]`), so give every process of a deployment the same.
    pub fn with_shard_metadata(mut self, metadata: ShardMetadata) -> Self {
        self.shards.give(metadata);
        self
    }

    /// The shard metadata this `Db` was given; [`Error::ShardMetadataNotConfigured`] without one.
    pub fn shard_metadata(&self) -> Result<&ShardMetadata> {
        self.shards.given().ok_or(Error::ShardMetadataNotConfigured)
    }
}

impl<'a> From<&'a Db> for crate::metadata::store::Store<'a> {
    fn from(db: &'a Db) -> Self {
        crate::metadata::store::Store::new(&db.client, db.retry_policy)
    }
}
