//! One segment of one side of a verification: scanned page by page, each item judged, what looks
//! wrong confirmed by a strongly consistent read, reported, and repaired when asked.

use super::checks::{Checks, Fault, SegmentCheck, Side};
use super::Verify;
use crate::batch::key_of;
use crate::db::Db;
use crate::entity::{Entity, PrimaryKey};
use crate::error::{Error, Item, Result};
use crate::index_keys::find_index;
use crate::item::table_of;
use crate::key_record::key_to_json;
use crate::metadata::Checked;
use crate::reshard::rewrite::{Pass, Rewrite};
use crate::table::{IndexProjection, TableDefinition};
use aws_sdk_dynamodb::types::AttributeValue;

/// What `side` finds wrong with `item`, if anything. An item in the target without a source
/// place is extra only when its own fields keep it out of the source (a sparse index): one that
/// belongs there lacks its source place, which is its writers' layout, not the resharding's.
pub(super) fn fault<E: Entity>(side: Side, checked: &Checked, item: &Item) -> Option<Fault> {
    let table = table_of::<E>();
    let (target_pk, _) = checked.target;
    match side {
        Side::Source => {
            // Something to write means: in the source, and not (rightly) placed in the target.
            Rewrite::of(checked, item, Pass::Place, table)?;
            Some(if item.contains_key(target_pk) { Fault::Misplaced } else { Fault::Missing })
        }
        Side::Target => crate::reshard::place::stray::<E>(checked, item).then_some(Fault::Extra),
    }
}

/// The index `side` scans, when it holds every attribute the side judges by; `None`: scan the
/// table (strongly consistent).
fn index_of(side: Side, checked: &Checked, table: &TableDefinition) -> Option<&'static str> {
    let (index, needed): (&str, Vec<&str>) = match side {
        Side::Source => {
            let mut needed = vec![checked.target.0, checked.target.1, table.type_attribute];
            needed.extend(checked.mapping.by.iter().copied());
            (checked.mapping.index, needed)
        }
        // Whether an item belongs in the source is judged from the whole entity.
        Side::Target => {
            let definition = find_index(table.indexes, checked.target_index)?;
            return (definition.projection == IndexProjection::All).then_some(definition.name);
        }
    };
    let definition = find_index(table.indexes, index)?;
    let keys = |name: &str| {
        [table.partition_key].into_iter().chain(table.sort_key).any(|key| key == name)
            || definition.partition_key.iter().chain(definition.sort_key).any(|key| key.name == name)
    };
    let holds = needed.iter().all(|name| match definition.projection {
        IndexProjection::All => true,
        IndexProjection::KeysOnly => keys(name),
        IndexProjection::Include(attributes) => keys(name) || attributes.contains(name),
    });
    holds.then_some(definition.name)
}

impl Db {
    /// Scans segment `segment` (of `segments`) of `side` from where `progress` stopped, recording
    /// its position and findings after every page, until its end or the run's deadline; returns
    /// what it found, and whether it reached the end.
    #[allow(clippy::too_many_arguments)] // one segment of one side: every argument is its own
    pub(super) async fn check_segment<E: Entity>(
        &self,
        checked: &Checked,
        side: Side,
        segment: u32,
        segments: u32,
        mut progress: SegmentCheck,
        records: &Checks<'_>,
        options: &Verify,
    ) -> Result<(super::Verification, bool)> {
        let table = table_of::<E>();
        let index = index_of(side, checked, table);
        let marker = match side {
            Side::Source => checked.source.0,
            Side::Target => checked.target.0,
        };
        while !progress.done && !options.past_deadline() {
            let start = crate::reshard::resume_at(progress.after.as_ref(), checked.mapping.index)?;
            let page = self
                .client()
                .scan()
                .table_name(self.table_of::<E>())
                .set_index_name(index.map(str::to_owned))
                .consistent_read(index.is_none())
                .segment(segment as i32)
                .total_segments(segments as i32)
                .filter_expression("#type = :type AND attribute_exists(#marker)")
                .expression_attribute_names("#type", table.type_attribute)
                .expression_attribute_names("#marker", marker)
                .expression_attribute_values(":type", AttributeValue::S(E::TYPE_NAME.to_owned()))
                .set_exclusive_start_key(start)
                .set_limit(options.page_size.map(|items| items.min(i32::MAX as u32) as i32))
                .return_consumed_capacity(aws_sdk_dynamodb::types::ReturnConsumedCapacity::Total)
                .send()
                .await
                .map_err(|error| Error::from_sdk("Scan", error))?;
            let units = page.consumed_capacity.as_ref().and_then(|consumed| consumed.capacity_units);
            let place = (self.table_of::<E>(), index, E::TYPE_NAME);
            self.meter().add(place, crate::consumption::Kind::Read, units.unwrap_or(0.0));
            let items = page.items.unwrap_or_default();
            progress.found.scanned += items.len() as u64;
            let suspects: Vec<PrimaryKey> = items
                .iter()
                .filter(|item| fault::<E>(side, checked, item).is_some())
                .filter_map(|item| key_of(table, item))
                .collect();
            if !suspects.is_empty() {
                let current = self.read_now::<E>(suspects.clone(), None).await?;
                for (key, item) in suspects.into_iter().zip(current) {
                    let Some(item) = item else { continue }; // deleted since
                    let Some(fault) = fault::<E>(side, checked, &item) else {
                        continue; // the index lagged behind a write: nothing wrong
                    };
                    progress.note(fault, key);
                    if options.repair && self.repair::<E>(checked, fault, &item).await? {
                        progress.found.repaired += 1;
                    }
                }
            }
            match page.last_evaluated_key {
                Some(last) => progress.after = Some(key_to_json(&last).to_string()),
                None => (progress.after, progress.done) = (None, true),
            }
            records.save(side, segment, &progress).await?;
        }
        Ok((progress.found, progress.done))
    }

    /// Repairs `fault` of `item` (as read, strongly consistent), on the condition that it is
    /// still so; returns whether it was repaired.
    async fn repair<E: Entity>(&self, checked: &Checked, fault: Fault, item: &Item) -> Result<bool> {
        let table = table_of::<E>();
        match fault {
            Fault::Missing | Fault::Misplaced => {
                // A writer may change the item between the read and the repair: read it again and
                // retry, a few times (a change made meanwhile is in the log the catch-up reads).
                let mut item = item.clone();
                for _ in 0..3 {
                    let Some(rewrite) = Rewrite::of(checked, &item, Pass::Place, table) else {
                        return Ok(true);
                    };
                    rewrite.check(table)?;
                    if self.send_rewrites::<E>(vec![rewrite], 1, None).await?.0 == 1 {
                        return Ok(true);
                    }
                    let Some(key) = key_of(table, &item) else { return Ok(false) };
                    let Some(now) = self.read_now::<E>(vec![key], None).await?.pop().flatten() else {
                        return Ok(true);
                    };
                    item = now;
                }
                Ok(false)
            }
            Fault::Extra => self.unplace::<E>(checked, item).await,
        }
    }
}
