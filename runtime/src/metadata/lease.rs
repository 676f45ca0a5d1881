//! Leases on work items (the shards of a stream a change feed reads, the scan segments of a
//! resharding's backfill), one item of the shard metadata table each, so that any number of
//! processes can share the work and each item is worked on by one of them at a time.
//!
//! A lease item holds its owner (absent: free), a **fence** raised by every acquisition, a
//! **beat** raised by every renewal and checkpoint, the checkpoint (the sequence number of the
//! last record handled, the scan position after the last page), counts of what was read and
//! written, and whether the work item was done to its end. Every change a holder makes
//! is conditioned on the owner and the fence it acquired: once another process took the lease,
//! nothing the old holder writes lands, however late its request arrives.
//!
//! A lease held by another process expires when its beat has not moved for the lease time, as
//! measured by the process that watches it (its own monotonic clock; clocks of different
//! machines are never compared). Taking it over is conditioned on the fence and beat that were
//! watched, so two processes cannot both take it. Expiry only decides when a shard is taken
//! over, never what is written: a slow holder that lost its lease may still deliver records it
//! read, which is why delivery is at least once.

use super::store::Store;
use crate::error::{Error, Item, Result};
use crate::metadata::items::{delete_items, read_items};
use crate::metadata::table::{metadata_error, put_new, unless_condition_failed, PARTITION};
use aws_sdk_dynamodb::types::AttributeValue;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Lease items [`Leases::create`] makes at once.
const CREATED_AT_ONCE: usize = 16;

/// A shard's lease item as stored (besides its key).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct LeaseRecord {
    /// The process holding it, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// Raised by every acquisition.
    #[serde(default)]
    pub fence: u64,
    /// Raised by every renewal and checkpoint.
    #[serde(default)]
    pub beat: u64,
    /// The sequence number of the last record handled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<String>,
    /// Whether the shard was read to its end.
    #[serde(default)]
    pub ended: bool,
    /// When the shard was recorded (unix ms; 0: not known).
    #[serde(default)]
    pub since: u64,
    /// What was read (records, items) up to the checkpoint.
    #[serde(default)]
    pub read: u64,
    /// What was written up to the checkpoint.
    #[serde(default)]
    pub written: u64,
    /// Read capacity consumed up to the checkpoint, in thousandths of a unit.
    #[serde(default)]
    pub read_capacity: u64,
    /// Write capacity consumed up to the checkpoint, in thousandths of a unit.
    #[serde(default)]
    pub write_capacity: u64,
}

/// A lease this process holds.
#[derive(Debug, Clone)]
pub(crate) struct Lease {
    pub key: String,
    pub owner: String,
    pub fence: u64,
    pub checkpoint: Option<String>,
    /// When the shard was recorded (unix ms; 0: not known).
    pub since: u64,
    /// What was read and written up to the checkpoint.
    pub tally: Tally,
}

/// What a lease's holders read and wrote up to its checkpoint.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Tally {
    pub read: u64,
    pub written: u64,
    /// Capacity consumed, in thousandths of a unit.
    pub capacity: crate::metadata::Capacity,
}

/// A lease this process works under: marked in its set of them until dropped, so that a worker
/// of this process that stopped (its task dropped mid-page) leaves a lease its next worker takes
/// again at once, while one still running keeps it.
#[derive(Debug)]
pub(crate) struct Working {
    set: Arc<Mutex<HashSet<String>>>,
    key: String,
}

impl Working {
    /// Marks `key` in `set`; `None` when it already is.
    pub fn new(set: &Arc<Mutex<HashSet<String>>>, key: &str) -> Option<Self> {
        let mut marked = set.lock().unwrap_or_else(PoisonError::into_inner);
        marked.insert(key.to_owned()).then(|| Working { set: Arc::clone(set), key: key.to_owned() })
    }
}

impl Drop for Working {
    fn drop(&mut self) {
        self.set.lock().unwrap_or_else(PoisonError::into_inner).remove(&self.key);
    }
}

/// What a process saw of a lease held by another, and since when (its own clock).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Watched {
    fence: u64,
    beat: u64,
    since: Instant,
}

/// Whether a lease held by another process has expired, by what this process watched of it;
/// updates `watched` with what it sees now.
pub(crate) fn expired(
    watched: &mut Option<Watched>,
    record: &LeaseRecord,
    lease: Duration,
    now: Instant,
) -> bool {
    match watched {
        Some(seen) if seen.fence == record.fence && seen.beat == record.beat => {
            now.saturating_duration_since(seen.since) >= lease
        }
        _ => {
            *watched = Some(Watched { fence: record.fence, beat: record.beat, since: now });
            lease.is_zero() // a lease of no time is taken over at once
        }
    }
}

/// The lease items of one metadata table.
pub(crate) struct Leases<'a> {
    pub db: Store<'a>,
    pub table: &'a str,
}

impl Leases<'_> {
    /// The lease items under `keys` (strongly consistent), by key: a hundred a request, the
    /// requests at once (a stream split 256 ways takes three, one round trip).
    pub async fn read(&self, keys: &[String]) -> Result<HashMap<String, LeaseRecord>> {
        let items = read_items(self.db, self.table, keys).await?;
        let parse = |(key, item): (String, Item)| match serde_dynamo::from_item(item) {
            Ok(record) => Ok((key, record)),
            Err(_) => Err(Error::ShardMetadataMalformed { partition: key, reason: "bad lease".into() }),
        };
        items.into_iter().map(parse).collect()
    }

    /// Takes the lease under `key` for `owner`, as `seen` (`None`: no item yet): free, expired or
    /// already `owner`'s. Its fence is above `seen`'s and at least `floor` (leases whose fences
    /// must be comparable with other leases' take `floor` from a [`Fences`](super::fences::Fences) counter). `None` when
    /// another process changed it first.
    pub async fn acquire(
        &self,
        key: &str,
        seen: Option<&LeaseRecord>,
        owner: &str,
        floor: u64,
    ) -> Result<Option<Lease>> {
        let fence = (seen.map_or(0, |record| record.fence) + 1).max(floor);
        let request =
            self.update(key).update_expression("SET #owner = :owner, #fence = :fence, #beat = :beat");
        let request = match seen {
            None => request
                .condition_expression("attribute_not_exists(#key)")
                .expression_attribute_names("#key", PARTITION),
            Some(record) => request
                .condition_expression("#fence = :seen_fence AND #beat = :seen_beat")
                .expression_attribute_values(":seen_fence", number(record.fence))
                .expression_attribute_values(":seen_beat", number(record.beat)),
        };
        let beat = seen.map_or(0, |record| record.beat) + 1;
        let result = request
            .expression_attribute_names("#owner", "owner")
            .expression_attribute_names("#fence", "fence")
            .expression_attribute_names("#beat", "beat")
            .expression_attribute_values(":owner", AttributeValue::S(owner.to_owned()))
            .expression_attribute_values(":fence", number(fence))
            .expression_attribute_values(":beat", number(beat))
            .send()
            .await;
        let taken = unless_condition_failed(result)
            .map_err(|error| metadata_error(self.table, "UpdateItem", error))?;
        Ok(taken.map(|_| Lease {
            key: key.to_owned(),
            owner: owner.to_owned(),
            fence,
            checkpoint: seen.and_then(|record| record.checkpoint.clone()),
            since: seen.map_or(0, |record| record.since),
            tally: seen.map_or(Tally::default(), |record| Tally {
                read: record.read,
                written: record.written,
                capacity: crate::metadata::Capacity {
                    read: record.read_capacity,
                    write: record.write_capacity,
                },
            }),
        }))
    }

    /// Makes the lease items under `keys`, of shards first seen, free, unless they exist:
    /// before the shards are recorded, so that a recorded shard always has one until it is
    /// forgotten. Several at once: a stream split in many shards records them all in one pass.
    pub async fn create(&self, keys: &[String]) -> Result<()> {
        for some in keys.chunks(CREATED_AT_ONCE) {
            futures::future::try_join_all(some.iter().map(|key| self.create_one(key))).await?;
        }
        Ok(())
    }

    /// Makes the lease item under `key`, free, unless it exists.
    async fn create_one(&self, key: &str) -> Result<bool> {
        let record = LeaseRecord { since: crate::metadata::now_ms(), ..LeaseRecord::default() };
        put_new(self.db, self.table, key, serde_dynamo::to_item(&record)?).await
    }

    /// Shows `lease` is alive: raises its beat, and records `checkpoint` (and that the shard was
    /// read to its end) when given. `false` when another process took the lease.
    pub async fn beat(&self, lease: &mut Lease, checkpoint: Option<&str>, ended: bool) -> Result<bool> {
        self.beat_with(lease, checkpoint, None, ended).await
    }

    /// [`Leases::beat`], recording with the checkpoint what was read and written up to it.
    pub async fn beat_with(
        &self,
        lease: &mut Lease,
        checkpoint: Option<&str>,
        tally: Option<Tally>,
        ended: bool,
    ) -> Result<bool> {
        let mut update = String::from("SET #beat = #beat + :one");
        let mut request = self.held(lease);
        if let Some(tally) = tally {
            update.push_str(", #read = :read, #written = :written, #rc = :rc, #wc = :wc");
            request = request
                .expression_attribute_names("#read", "read")
                .expression_attribute_names("#written", "written")
                .expression_attribute_names("#rc", "read_capacity")
                .expression_attribute_names("#wc", "write_capacity")
                .expression_attribute_values(":read", number(tally.read))
                .expression_attribute_values(":written", number(tally.written))
                .expression_attribute_values(":rc", number(tally.capacity.read))
                .expression_attribute_values(":wc", number(tally.capacity.write));
        }
        if let Some(sequence) = checkpoint {
            update.push_str(", #checkpoint = :checkpoint");
            request = request
                .expression_attribute_names("#checkpoint", "checkpoint")
                .expression_attribute_values(":checkpoint", AttributeValue::S(sequence.to_owned()));
        }
        if ended {
            update.push_str(", #ended = :true REMOVE #owner");
            request = request
                .expression_attribute_names("#ended", "ended")
                .expression_attribute_values(":true", AttributeValue::Bool(true));
        }
        let result = request
            .update_expression(update)
            .expression_attribute_names("#beat", "beat")
            .expression_attribute_values(":one", number(1))
            .send()
            .await;
        let held = unless_condition_failed(result)
            .map_err(|error| metadata_error(self.table, "UpdateItem", error))?;
        if held.is_some() {
            if let Some(sequence) = checkpoint {
                lease.checkpoint = Some(sequence.to_owned());
            }
            lease.tally = tally.unwrap_or(lease.tally);
        }
        Ok(held.is_some())
    }

    /// Gives `lease` up, so another process can take it at once.
    pub async fn release(&self, lease: &Lease) -> Result<()> {
        let result = self.held(lease).update_expression("REMOVE #owner").send().await;
        unless_condition_failed(result).map_err(|error| metadata_error(self.table, "UpdateItem", error))?;
        Ok(())
    }

    /// Deletes the lease items under `keys` (of shards forgotten).
    pub async fn forget(&self, keys: &[String]) -> Result<()> {
        delete_items(self.db, self.table, keys.iter().map(String::as_str)).await
    }

    fn update(
        &self,
        key: &str,
    ) -> aws_sdk_dynamodb::operation::update_item::builders::UpdateItemFluentBuilder {
        self.db
            .client()
            .update_item()
            .table_name(self.table)
            .key(PARTITION, AttributeValue::S(key.to_owned()))
    }

    /// An update of `lease`'s item on the condition that `lease` still holds it.
    fn held(
        &self,
        lease: &Lease,
    ) -> aws_sdk_dynamodb::operation::update_item::builders::UpdateItemFluentBuilder {
        self.update(&lease.key)
            .condition_expression("#owner = :owner AND #fence = :fence")
            .expression_attribute_names("#owner", "owner")
            .expression_attribute_names("#fence", "fence")
            .expression_attribute_values(":owner", AttributeValue::S(lease.owner.clone()))
            .expression_attribute_values(":fence", number(lease.fence))
    }
}

pub(super) fn number(value: u64) -> AttributeValue {
    AttributeValue::N(value.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(fence: u64, beat: u64) -> LeaseRecord {
        LeaseRecord { owner: Some("other".into()), fence, beat, ..LeaseRecord::default() }
    }

    #[test]
    fn a_lease_expires_when_its_beat_stands_still_for_the_lease_time() {
        let (lease, start) = (Duration::from_secs(10), Instant::now());
        let mut watched = None;
        assert!(!expired(&mut watched, &record(1, 5), lease, start), "first seen: not expired");
        assert!(!expired(&mut watched, &record(1, 5), lease, start + Duration::from_secs(9)));
        assert!(expired(&mut watched, &record(1, 5), lease, start + Duration::from_secs(10)));
        assert!(
            !expired(&mut watched, &record(1, 6), lease, start + Duration::from_secs(30)),
            "a beat restarts the watch"
        );
        assert!(
            !expired(&mut watched, &record(2, 6), lease, start + Duration::from_secs(41)),
            "so does a new fence"
        );
        assert!(expired(&mut watched, &record(2, 6), lease, start + Duration::from_secs(51)));
        assert!(expired(&mut None, &record(1, 1), Duration::ZERO, start), "no lease time: at once");
    }

    #[test]
    fn lease_records_round_trip_through_items() {
        let record = LeaseRecord {
            owner: Some("w1".into()),
            fence: 3,
            beat: 9,
            checkpoint: Some("42".into()),
            ended: true,
            since: 7,
            read: 11,
            written: 5,
            read_capacity: 5_500,
            write_capacity: 6_000,
        };
        let item: Item = serde_dynamo::to_item(&record).unwrap();
        assert_eq!(item["fence"], AttributeValue::N("3".into()));
        assert_eq!(serde_dynamo::from_item::<_, LeaseRecord>(item).unwrap(), record);
        let free: LeaseRecord = serde_dynamo::from_item(Item::new()).unwrap();
        assert_eq!(free, LeaseRecord::default(), "missing attributes read as a free, new lease");
    }
}
