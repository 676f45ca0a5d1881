//! Reading one leased shard: from its checkpoint (or its oldest record) to its end or to what it
//! holds now, handing each page of records over and recording the checkpoint after it.

use super::holding::Beating;
use super::lineage::ListedShard;
use super::{ChangeFeed, ChangePage};
use crate::changes::ChangeRecord;
use crate::error::{Error, Result};
use crate::metadata::lease::{Lease, Leases};
use crate::telemetry::{record_outcome, Operation};
use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodbstreams::types::ShardIteratorType;
use std::future::Future;
use std::time::Instant;
use tracing::Instrument;

/// Empty pages in a row after which an open shard counts as read to what it holds now: the
/// Streams API can answer an empty page before records further on. A closed shard is read until
/// the API says it ended, whatever its pages, unless it was read past the end the stream listed
/// for it and still answers pages (an emulator that lists an end for its one open shard): then
/// it is read as an open one, and stays unended.
const EMPTY_PAGES_AT_END: u32 = 3;

/// How long a recorded shard may stay unread before its first records may be trimmed (a
/// stream keeps records 24 hours).
const UNREAD_FOR_MS: u64 = 23 * 3_600_000;

/// A page of an open shard shorter than asked for and smaller than this ended at the shard's last
/// record (a page is also cut at 1 MB, which says nothing of what follows).
const TAIL_PAGE_BYTES: i64 = 512 * 1024;

/// How the reading of one shard ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ShardRead {
    /// Read to its end: the shard is closed, and its children may be read.
    Ended,
    /// Read to the last record it held when read; it stays open.
    CaughtUp,
    /// Another process took the lease; this one stopped.
    Lost,
}

impl ChangeFeed {
    /// Reads the shard `shard` of the stream `arn` under `lease`, handing every page of records to
    /// `handler` and recording the checkpoint after it, until the shard ends or a page is short
    /// of what was asked (the shard held no more then: a pass ends while writes go on, and the
    /// lease passes to whoever waits for it). Returns how it ended and the records read.
    pub(super) async fn read_shard<H, Fut>(
        &self,
        arn: &str,
        listed: &ListedShard,
        lease: &mut Lease,
        handler: &H,
    ) -> Result<(ShardRead, u64)>
    where
        H: Fn(ChangePage) -> Fut + Sync,
        Fut: Future<Output = Result<()>> + Send,
    {
        let leases = Leases { db: (&self.db).into(), table: self.metadata_table() };
        let shard = listed.id.as_str();
        let mut iterator = self.iterator(arn, shard, lease).await?;
        let (mut empty, mut records_read, mut beaten) = (0, 0u64, Instant::now());
        let mut position = lease.checkpoint.clone();
        loop {
            let Some(current) = iterator.take() else {
                return self.end(&leases, lease, None).await.map(|read| (read, records_read));
            };
            let operation = Operation {
                name: "stream_page",
                sends: "GetRecords",
                table: &self.table,
                entity: "",
                definition: None,
            };
            let span = operation.span();
            span.record("aws.dynamodb.limit", self.page);
            let request = self.db.streams().await.get_records().shard_iterator(current).limit(self.page);
            let page = match request.send().instrument(span.clone()).await {
                Ok(page) => page,
                Err(error) if error.code() == Some("ExpiredIteratorException") => {
                    iterator = self.iterator(arn, shard, lease).await?;
                    continue;
                }
                Err(error) if error.code() == Some("TrimmedDataAccessException") => {
                    return Err(self.gap(format!("shard {shard} was trimmed past its checkpoint")));
                }
                Err(error) => {
                    let error = Error::from_sdk("GetRecords", error);
                    record_outcome(&span, Err(&error));
                    return Err(error);
                }
            };
            let records = page.records().iter().map(ChangeRecord::try_from).collect::<Result<Vec<_>>>()?;
            span.record("aws.dynamodb.count", crate::telemetry::int(records.len()));
            let bytes: i64 = page.records().iter().filter_map(|record| record.dynamodb()?.size_bytes()).sum();
            let next = page.next_shard_iterator;
            if !records.is_empty() {
                let Some(last) = records.last().and_then(|record| record.sequence_number.clone()) else {
                    return Err(crate::changes::invalid("a stream record without its sequence number"));
                };
                records_read += records.len() as u64;
                position = Some(last.clone());
                // A short, small page of an open shard ends at the last record it held when it
                // was read: the pass ends there while writes go on, and the lease passes on.
                let open = !listed.closed() || listed.read_to_listed_end(position.as_deref());
                let short = open && records.len() < self.page as usize && bytes < TAIL_PAGE_BYTES;
                let (beating, held) = Beating::start(&self.db, self.metadata_table(), lease, self.lease);
                let page = ChangePage { shard: shard.to_owned(), records, lease: held };
                let Some(handled) = beating.hand_over(handler(page)).await else {
                    return Ok((ShardRead::Lost, records_read));
                };
                handled?;
                if next.is_none() {
                    return self.end(&leases, lease, Some(&last)).await.map(|read| (read, records_read));
                }
                if !leases.beat(lease, Some(&last), false).await? {
                    return Ok((ShardRead::Lost, records_read));
                }
                if short {
                    return Ok((ShardRead::CaughtUp, records_read));
                }
                (empty, beaten) = (0, Instant::now());
            } else if next.is_some() {
                empty += 1;
                let open = !listed.closed() || listed.read_to_listed_end(position.as_deref());
                if open && empty >= EMPTY_PAGES_AT_END {
                    return Ok((ShardRead::CaughtUp, records_read));
                }
                if beaten.elapsed() > self.lease / 3 {
                    if !leases.beat(lease, None, false).await? {
                        return Ok((ShardRead::Lost, records_read));
                    }
                    beaten = Instant::now();
                }
            }
            iterator = next;
        }
    }

    /// Records that the shard was read to its end (after `last`, if given).
    async fn end(&self, leases: &Leases<'_>, lease: &mut Lease, last: Option<&str>) -> Result<ShardRead> {
        Ok(match leases.beat(lease, last, true).await? {
            true => ShardRead::Ended,
            false => ShardRead::Lost,
        })
    }

    /// An iterator of `shard` just after `lease`'s checkpoint, or at its oldest record. A shard
    /// never read that was recorded longer ago than the stream keeps records may have lost its
    /// first records unread: a gap (told by this process's clock against the recording one's,
    /// with an hour to spare; a wrong clock can only raise it without cause).
    async fn iterator(&self, arn: &str, shard: &str, lease: &Lease) -> Result<Option<String>> {
        let request = self.db.streams().await.get_shard_iterator().stream_arn(arn).shard_id(shard);
        let request = match &lease.checkpoint {
            Some(sequence) => {
                request.shard_iterator_type(ShardIteratorType::AfterSequenceNumber).sequence_number(sequence)
            }
            None => {
                let age = crate::metadata::now_ms().saturating_sub(lease.since);
                if lease.since > 0 && age > UNREAD_FOR_MS {
                    return Err(self.gap(format!(
                        "shard {shard} was recorded {} h ago and never read: the stream may have trimmed its first records",
                        age / 3_600_000
                    )));
                }
                request.shard_iterator_type(ShardIteratorType::TrimHorizon)
            }
        };
        match request.send().await {
            Ok(output) => Ok(output.shard_iterator),
            Err(error) if error.code() == Some("TrimmedDataAccessException") => {
                Err(self.gap(format!("shard {shard} was trimmed past its checkpoint")))
            }
            Err(error) if error.code() == Some("ResourceNotFoundException") => {
                Err(self.gap(format!("shard {shard} is no longer in the stream")))
            }
            Err(error) => Err(Error::from_sdk("GetShardIterator", error)),
        }
    }
}
