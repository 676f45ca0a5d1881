//! Recording a write's time-bucket partitions in their index's directory (see
//! [`crate::shard::directory_partition`]) before the write is sent.
//!
//! **Invariant** (what lets a reader skip every partition its directory does not list): an item
//! that a dynashard write puts in a partition of a `directory` index was sent only after that
//! partition's shard was in the directory, acknowledged by DynamoDB. Directory items are only ever
//! added to (`ADD` to a number set, which repeats harmlessly) and never removed by dynashard, so
//! a process that recorded a partition once may skip recording it again: its cache can only be
//! missing entries, never hold false ones, and a missing entry costs one more idempotent write.
//! Nothing here depends on timing: a strongly consistent read of the table reads the directory
//! strongly consistent, so it lists every entry acknowledged before it; an eventually consistent
//! read (every read of a global secondary index) reads it eventually consistent, and may miss an
//! entry acknowledged a moment before it, as it may miss the item itself.

use crate::db::Db;
use crate::entity::Entity;
use crate::error::{Error, Item, Result};
use crate::index_keys::IndexKeyUpdate;
use crate::item::table_of;
use crate::shard::{directory_partition, directory_sort_key, BucketPartition, DIRECTORY_SHARDS};
use crate::table::TableDefinition;
use aws_sdk_dynamodb::types::AttributeValue;
use futures::stream::{self, StreamExt, TryStreamExt};
use std::collections::{BTreeMap, BTreeSet, HashSet};

/// Directory items a write records at once.
const RECORDED_AT_ONCE: usize = 16;

/// The directory partitions a write puts an item in, to record before it is sent.
#[derive(Debug, Clone, Default)]
pub(crate) struct Buckets {
    table: Option<&'static TableDefinition>,
    partitions: Vec<BucketPartition>,
}

impl Buckets {
    /// The partitions an item of `E` lands in: one per `directory` index it is in.
    pub fn of_item<E: Entity>(item: &Item) -> Self {
        Self::of::<E>(|attribute| item.get(attribute))
    }

    /// The partitions an update of `E` moves its item into.
    pub fn of_updates<E: Entity>(updates: &[IndexKeyUpdate]) -> Self {
        Self::of::<E>(|attribute| {
            updates.iter().find_map(|update| match update {
                IndexKeyUpdate::Set(name, value) if *name == attribute => Some(value),
                _ => None,
            })
        })
    }

    fn of<'a, E: Entity>(value_of: impl Fn(&str) -> Option<&'a AttributeValue>) -> Self {
        if !E::SHARDS.iter().any(|spec| spec.directory) {
            return Self::default();
        }
        let table = table_of::<E>();
        let partitions = E::SHARDS
            .iter()
            .filter(|spec| spec.directory)
            .filter_map(|spec| {
                let bucket = spec.layout.bucket()?;
                let index = table.indexes.iter().find(|index| index.name == spec.index)?;
                let attribute = index.partition_key.first()?.name;
                let key = value_of(attribute)?.as_s().ok()?;
                BucketPartition::of_key(spec.index, bucket, key)
            })
            .collect();
        Buckets { table: Some(table), partitions }
    }

    /// Adds the partitions of `other` (of the same table).
    pub fn extend(&mut self, other: Buckets) {
        self.table = self.table.or(other.table);
        self.partitions.extend(other.partitions);
    }
}

impl Db {
    /// Records `buckets` in their directories, those this `Db` has not recorded yet, before a
    /// write puts items there.
    pub(crate) async fn record_buckets(&self, buckets: &Buckets) -> Result<()> {
        let Some(table) = buckets.table else { return Ok(()) };
        let name = self.name_of(table.name).to_owned();
        // The partitions not recorded yet, by directory item: one `ADD` of every shard a bucket
        // gets, the items recorded a few at a time.
        let mut items: BTreeMap<(&str, &str, i64), Vec<BucketPartition>> = BTreeMap::new();
        for partition in &buckets.partitions {
            if !self.buckets.contains(&(name.clone(), partition.clone())) {
                let item = (partition.index, partition.partition.as_str(), partition.start);
                items.entry(item).or_default().push(partition.clone());
            }
        }
        let mut sends = Vec::with_capacity(items.len());
        for partitions in items.into_values() {
            let name = name.as_str();
            sends
                .push(async move { self.record_bucket(table, name, &partitions).await.map(|()| partitions) });
        }
        let mut recorded = stream::iter(sends).buffer_unordered(RECORDED_AT_ONCE);
        while let Some(partitions) = recorded.try_next().await? {
            for partition in partitions {
                self.buckets.insert((name.clone(), partition));
            }
        }
        Ok(())
    }

    /// Records `partitions` (of one bucket of one logical partition) in their directory item.
    async fn record_bucket(
        &self,
        table: &'static TableDefinition,
        name: &str,
        partitions: &[BucketPartition],
    ) -> Result<()> {
        let Some(first) = partitions.first() else { return Ok(()) };
        let Some(sort_key) = table.sort_key else {
            // The derive refuses `directory` on a table without a sort key.
            let reason = format!("table `{}` has no sort key to keep a bucket directory in", table.name);
            return Err(Error::InvalidQuery { reason });
        };
        let pk = directory_partition(first.index, &first.partition);
        let sk = directory_sort_key(first.start);
        let shards: BTreeSet<u32> = partitions.iter().map(|partition| partition.shard).collect();
        let shards: Vec<String> = shards.iter().map(u32::to_string).collect();
        let send = || {
            self.client()
                .update_item()
                .table_name(name)
                .key(table.partition_key, AttributeValue::S(pk.clone()))
                .key(sort_key, AttributeValue::S(sk.clone()))
                .update_expression("ADD #shards :shards")
                .expression_attribute_names("#shards", DIRECTORY_SHARDS)
                .expression_attribute_values(":shards", AttributeValue::Ns(shards.clone()))
                .send()
        };
        let attempt =
            || async { send().await.map(|_| ()).map_err(|error| Error::from_sdk("UpdateItem", error)) };
        crate::retry::retrying_throttled(self.retry_policy(), attempt).await
    }
}

impl Db {
    /// Records in the bucket directory of `E`'s index `index` every partition that holds an
    /// item of it, read with a scan of the index: for items put before the index declared
    /// `directory`, or put by other means than dynashard. Returns how many partitions the
    /// directory lists for them. Writes running meanwhile record their own.
    ///
    /// ```no_run
    /// # use dynashard::{Entity, Table};
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Table)] #[table(name = "Sensors", pk = "pk", sk = "sk")] #[gsi(Readings(pk = "rpk", sk = "rsk"))] struct Sensors;
    /// # #[derive(Entity, Serialize, Deserialize)]
    /// # #[entity(table = Sensors, pk = "sensor#{sensor}", sk = "at#{at}")]
    /// # #[gsi(Readings(pk = "reading", sk = "{at}#{sensor}"))]
    /// # #[shard(Readings(hash = 4, by = sensor, bucket = "hour", at = at, directory))]
    /// # struct Reading { sensor: String, at: i64 }
    /// # async fn example(db: dynashard::Db) -> dynashard::Result<()> {
    /// let listed = db.record_bucket_directory::<Reading>("Readings").await?;
    /// println!("{listed} partitions listed");
    /// # Ok(()) }
    /// ```
    pub async fn record_bucket_directory<E: Entity>(&self, index: &str) -> Result<u64> {
        let table = table_of::<E>();
        let declared = E::SHARDS.iter().filter(|spec| spec.directory && spec.index == index);
        let mut found = declared.filter_map(|spec| {
            let definition = table.indexes.iter().find(|definition| definition.name == spec.index)?;
            Some((spec.index, spec.layout.bucket()?, definition.partition_key.first()?.name))
        });
        let Some((index, bucket, attribute)) = found.next_back() else {
            let reason = format!("`{}` maps no index `{index}` with a bucket directory", E::TYPE_NAME);
            return Err(Error::InvalidQuery { reason });
        };
        let name = self.name_of(table.name).to_owned();
        let (mut start, mut listed) = (None, HashSet::new());
        loop {
            let scan = || {
                self.client()
                    .scan()
                    .table_name(&name)
                    .index_name(index)
                    .projection_expression("#pk")
                    .expression_attribute_names("#pk", attribute)
                    .set_exclusive_start_key(start.clone())
                    .send()
            };
            let attempt = || async { scan().await.map_err(|error| Error::from_sdk("Scan", error)) };
            let output = crate::retry::retrying_throttled(self.retry_policy(), attempt).await?;
            let partitions: Vec<BucketPartition> = output
                .items()
                .iter()
                .filter_map(|item| BucketPartition::of_key(index, bucket, item.get(attribute)?.as_s().ok()?))
                .filter(|partition| listed.insert(partition.clone()))
                .collect();
            self.record_buckets(&Buckets { table: Some(table), partitions }).await?;
            start = output.last_evaluated_key;
            if start.is_none() {
                return Ok(listed.len() as u64);
            }
        }
    }
}
