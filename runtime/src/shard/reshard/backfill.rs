//! The backfill and the cleanup of a resharding: parallel scans of the source index that give
//! every item its place in the target layout, or take it out of the source.

use super::ops::Checked;
use super::state::{Phase, ReshardState, SegmentProgress};
use crate::db::Db;
use crate::entity::Entity;
use crate::error::{Error, Item, Result};
use crate::item::table_of;
use crate::query::cursor::{json_to_key, key_to_json};
use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::types::AttributeValue;
use futures::stream::{self, StreamExt, TryStreamExt};
use std::sync::Arc;

/// Called with the recorded state after every scanned page.
type ProgressReport = Arc<dyn Fn(&ReshardState) + Send + Sync>;

/// How a backfill runs. `Backfill::default()`: 8 scan segments, 16 item updates in flight per
/// segment, no progress report.
#[derive(Clone)]
pub struct Backfill {
    segments: u32,
    in_flight: usize,
    page_size: Option<u32>,
    progress: Option<ProgressReport>,
}

impl Default for Backfill {
    fn default() -> Self {
        Self { segments: 8, in_flight: 16, page_size: None, progress: None }
    }
}

impl std::fmt::Debug for Backfill {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Backfill")
            .field("segments", &self.segments)
            .field("in_flight", &self.in_flight)
            .finish()
    }
}

impl Backfill {
    /// Scans in `segments` parallel segments (a resumed backfill keeps the first run's count).
    pub fn segments(mut self, segments: u32) -> Self {
        self.segments = segments.max(1);
        self
    }

    /// Sends at most `updates` item updates at once in each segment.
    pub fn in_flight(mut self, updates: usize) -> Self {
        self.in_flight = updates.max(1);
        self
    }

    /// Reads at most `items` per scan page (default: DynamoDB's 1 MB pages). Progress is
    /// recorded after every page, so smaller pages lose less work when a backfill is killed.
    pub fn page_size(mut self, items: u32) -> Self {
        self.page_size = Some(items.max(1));
        self
    }

    /// Calls `report` with the recorded state after every scanned page.
    pub fn on_progress(mut self, report: impl Fn(&ReshardState) + Send + Sync + 'static) -> Self {
        self.progress = Some(Arc::new(report));
        self
    }
}

/// What to do with each item of a scan.
#[derive(Clone, Copy)]
enum Pass {
    /// Give it its place in the target layout.
    Place,
    /// Remove its source index attributes.
    Clean,
}

impl Db {
    /// Gives every item already in the source index its place in the target layout, then moves
    /// the resharding to [`Phase::Backfilled`]. Waits first until every writer dual-writes (one
    /// metadata cache time after the start). Resumes an interrupted backfill where it stopped.
    pub async fn backfill<E: Entity>(&self, index: &str, options: Backfill) -> Result<ReshardState> {
        let state = self.resharding::<E>(index).await?.ok_or_else(|| not_started(index))?;
        if state.phase >= Phase::Backfilled {
            return Ok(state);
        }
        self.wait_for_writers(state.started).await?;
        self.scan_all::<E>(&state, &options, Pass::Place).await?;
        self.advance::<E>(index, Phase::DualWrites, Phase::Backfilled).await
    }

    /// Ends a cut-over resharding: writes stop filling the source index, and a scan removes the
    /// source attributes from every item. Returns the final state ([`Phase::Done`]); then declare
    /// the target index with the new layout in code.
    pub async fn finish_resharding<E: Entity>(&self, index: &str, options: Backfill) -> Result<ReshardState> {
        let mut state = self.resharding::<E>(index).await?.ok_or_else(|| not_started(index))?;
        if state.phase == Phase::CutOver {
            state = self.advance::<E>(index, Phase::CutOver, Phase::Done).await?;
            self.wait_for_writers(crate::shard::dynamic::state::now_ms()).await?;
        } else if state.phase != Phase::Done {
            return Err(Error::Resharding { index: index.to_owned(), reason: "cut over first".into() });
        }
        state.segments.clear();
        self.scan_all::<E>(&state, &options, Pass::Clean).await?;
        Ok(state)
    }

    /// Waits until one metadata cache time has passed since `since` (unix ms).
    async fn wait_for_writers(&self, since: u64) -> Result<()> {
        let cache = self.dynamic_shards()?.cache_time().as_millis() as u64;
        let now = crate::shard::dynamic::state::now_ms();
        let wait = (since + cache + 1).saturating_sub(now);
        tokio::time::sleep(std::time::Duration::from_millis(wait)).await;
        Ok(())
    }

    async fn scan_all<E: Entity>(&self, state: &ReshardState, options: &Backfill, pass: Pass) -> Result<()> {
        let checked = Checked::new::<E>(state)?;
        let key = self.reshard_key::<E>(&state.source);
        // A resumed backfill must scan with the segmentation its positions belong to: the first
        // run records every segment before it starts.
        let segments = match pass {
            Pass::Place if !state.segments.is_empty() => state.segments.len() as u32,
            Pass::Place => {
                let records = self.records()?;
                for segment in 0..options.segments {
                    records.save_progress(&key, segment, &SegmentProgress::default()).await?;
                }
                options.segments
            }
            Pass::Clean => options.segments,
        };
        let checked = &checked;
        let work = (0..segments).map(|segment| {
            let progress = match pass {
                Pass::Place => state.segments.get(&segment).cloned().unwrap_or_default(),
                Pass::Clean => SegmentProgress::default(),
            };
            let key = key.clone();
            async move {
                self.scan_segment::<E>(checked, (segment, segments), progress, &key, options, pass).await
            }
        });
        stream::iter(work).buffer_unordered(segments as usize).try_collect::<Vec<()>>().await?;
        Ok(())
    }

    async fn scan_segment<E: Entity>(
        &self,
        checked: &Checked,
        (segment, segments): (u32, u32),
        mut progress: SegmentProgress,
        key: &str,
        options: &Backfill,
        pass: Pass,
    ) -> Result<()> {
        let table = table_of::<E>();
        while !progress.done {
            let start = match &progress.after {
                Some(json) => Some(
                    serde_json::from_str(json).ok().and_then(|value| json_to_key(&value).ok()).ok_or_else(
                        || Error::Resharding {
                            index: checked.mapping.index.into(),
                            reason: "bad checkpoint".into(),
                        },
                    )?,
                ),
                None => None,
            };
            let page = self
                .client()
                .scan()
                .table_name(self.table_of::<E>())
                .index_name(checked.mapping.index)
                .segment(segment as i32)
                .total_segments(segments as i32)
                .filter_expression("#type = :type")
                .expression_attribute_names("#type", table.type_attribute)
                .expression_attribute_values(":type", AttributeValue::S(E::TYPE_NAME.to_owned()))
                .set_exclusive_start_key(start)
                .set_limit(options.page_size.map(|items| items as i32))
                .send()
                .await
                .map_err(|error| Error::from_sdk("Scan", error))?;
            let items = page.items.unwrap_or_default();
            progress.scanned += items.len() as u64;
            progress.written += self.rewrite_page::<E>(checked, &items, pass, options.in_flight).await?;
            match page.last_evaluated_key {
                Some(last) => progress.after = Some(key_to_json(&last).to_string()),
                None => (progress.after, progress.done) = (None, true),
            }
            if let Pass::Place = pass {
                let records = self.records()?;
                records.save_progress(key, segment, &progress).await?;
                if let (Some(report), Some(state)) = (&options.progress, records.read(key).await?) {
                    report(&state);
                }
            }
        }
        Ok(())
    }

    /// Sends the rewrites of one scanned page, `in_flight` at a time, each conditional on the
    /// item's source place (single updates: 1 WCU an item, where a transaction would take 2).
    /// Returns how many items were written.
    async fn rewrite_page<E: Entity>(
        &self,
        checked: &Checked,
        items: &[Item],
        pass: Pass,
        in_flight: usize,
    ) -> Result<u64> {
        let rewrites: Vec<Rewrite> =
            items.iter().filter_map(|item| Rewrite::of(checked, item, pass, table_of::<E>())).collect();
        let table = self.table_of::<E>().to_owned();
        let written: Vec<bool> = stream::iter(rewrites)
            .map(|rewrite| {
                let (db, table) = (self.clone(), table.clone());
                async move { rewrite.send(&db, &table).await }
            })
            .buffer_unordered(in_flight)
            .try_collect()
            .await?;
        Ok(written.iter().filter(|written| **written).count() as u64)
    }
}

/// One scanned item's change: its target place (or its source attributes removed), on the
/// condition that its source place is still the one the scan read.
#[derive(Clone)]
struct Rewrite {
    key: Item,
    expression: &'static str,
    names: Vec<(&'static str, &'static str)>,
    values: Vec<(&'static str, AttributeValue)>,
}

impl Rewrite {
    fn of(checked: &Checked, item: &Item, pass: Pass, table: &crate::table::TableDefinition) -> Option<Self> {
        let (source_pk, source_sk) = checked.source;
        let old_pk = item.get(source_pk)?.clone();
        let old_sk = item.get(source_sk)?.clone();
        let mut names = vec![("#spk", source_pk), ("#ssk", source_sk)];
        let mut values = vec![(":spk", old_pk), (":ssk", old_sk)];
        let expression = match pass {
            Pass::Place => {
                let mut placed = item.clone();
                checked.mirror(&mut placed, Phase::DualWrites);
                let (target_pk, target_sk) = checked.target;
                let pk = placed.get(target_pk)?.clone();
                let sk = placed.get(target_sk)?.clone();
                if item.get(target_pk) == Some(&pk) && item.get(target_sk) == Some(&sk) {
                    return None; // placed already: by a dual write, or an earlier run
                }
                names.extend([("#tpk", target_pk), ("#tsk", target_sk)]);
                values.extend([(":tpk", pk), (":tsk", sk)]);
                "SET #tpk = :tpk, #tsk = :tsk"
            }
            Pass::Clean => "REMOVE #spk, #ssk",
        };
        Some(Self { key: crate::item::key_of(item, table), expression, names, values })
    }

    const CONDITION: &'static str = "#spk = :spk AND #ssk = :ssk";

    /// Sends the change; `false` when a writer changed the item since the scan.
    async fn send(&self, db: &Db, table: &str) -> Result<bool> {
        let result = db
            .client()
            .update_item()
            .table_name(table)
            .set_key(Some(self.key.clone()))
            .update_expression(self.expression)
            .condition_expression(Self::CONDITION)
            .set_expression_attribute_names(Some(
                self.names.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            ))
            .set_expression_attribute_values(Some(
                self.values.iter().map(|(k, v)| (k.to_string(), v.clone())).collect(),
            ))
            .send()
            .await;
        match result {
            Ok(_) => Ok(true),
            Err(error) if error.code() == Some("ConditionalCheckFailedException") => Ok(false),
            Err(error) => Err(Error::from_sdk("UpdateItem", error)),
        }
    }
}

fn not_started(index: &str) -> Error {
    Error::Resharding { index: index.to_owned(), reason: "no resharding of it was started".into() }
}
