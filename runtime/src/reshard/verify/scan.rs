//! One segment of one side of a verification: scanned page by page, each item judged, what looks
//! wrong confirmed by a strongly consistent read, reported, and repaired when asked.

use super::checks::{Checks, Fault, SegmentCheck, Side};
use super::options::Verify;
use crate::batch::key_of;
use crate::db::Db;
use crate::entity::{Entity, PrimaryKey};
use crate::error::{Item, Result};
use crate::index_keys::find_index;
use crate::item::table_of;
use crate::key_record::key_to_json;
use crate::metadata::Checked;
use crate::reshard::page::{PageRead, Part};
use crate::reshard::pieces::Piece;
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
pub(super) fn index_of(side: Side, checked: &Checked, table: &TableDefinition) -> Option<&'static str> {
    let (index, needed): (&str, Vec<&str>) = match side {
        Side::Source => {
            // An added mapping's items are judged from the whole entity, in the table.
            let mapping = checked.resharded()?;
            let mut needed = vec![checked.target.0, checked.target.1, table.type_attribute];
            needed.extend(mapping.by.iter().copied());
            (mapping.index, needed)
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

/// Which part of its side one segment of a verification reads.
#[derive(Debug, Clone, Copy)]
pub(super) struct Reading<'a> {
    pub segment: u32,
    /// The side's segments.
    pub total: u32,
    /// The piece it reads by Query; `None`: a segment of a parallel Scan.
    pub piece: Option<&'a Piece>,
}

impl Db {
    /// Reads `part` of `side` from where `progress` stopped, recording its position and findings
    /// after every page, until its end or the run's deadline; returns what it found, and whether
    /// it reached the end.
    pub(super) async fn check_segment<E: Entity>(
        &self,
        checked: &Checked,
        side: Side,
        part: Reading<'_>,
        mut progress: SegmentCheck,
        records: &Checks<'_>,
        options: &Verify,
    ) -> Result<(super::Verification, bool)> {
        let table = table_of::<E>();
        let index = index_of(side, checked, table);
        // The attribute every item of the side holds, and the side's keys (an added mapping's
        // source side is every item of the entity).
        let (marker, keys) = match side {
            Side::Source => (checked.source().map(|keys| keys.0), checked.source()),
            Side::Target => (Some(checked.target.0), Some(checked.target)),
        };
        let type_name = AttributeValue::S(E::TYPE_NAME.to_owned());
        let values = [(":type", type_name)];
        let names = [("#type", table.type_attribute), ("#marker", marker.unwrap_or_default())];
        let (read_part, filter, names) = match (part.piece, keys) {
            // A Query of the side's index: every item it reads holds the marker, its key.
            (Some(piece), Some(keys)) if index.is_some() => {
                (Part::Piece { piece, keys }, "#type = :type", &names[..1])
            }
            _ if marker.is_none() => {
                (Part::Segment { segment: part.segment, total: part.total }, "#type = :type", &names[..1])
            }
            _ => (
                Part::Segment { segment: part.segment, total: part.total },
                "#type = :type AND attribute_exists(#marker)",
                &names[..],
            ),
        };
        while !progress.done && !options.past_deadline() {
            let start = crate::reshard::resume_at(progress.after.as_ref(), checked.index())?;
            let read = PageRead {
                table: self.table_of::<E>(),
                index,
                consistent: index.is_none(),
                filter,
                names,
                values: &values,
                start,
                limit: options.page_size,
            };
            let page = self.read_part(read_part, read).await?;
            let place = (self.table_of::<E>(), index, E::TYPE_NAME);
            self.meter().add(place, crate::consumption::Kind::Read, page.units);
            let items = page.items;
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
            match page.last {
                Some(last) => progress.after = Some(key_to_json(&last).to_string()),
                None => (progress.after, progress.done) = (None, true),
            }
            records.save(side, part.segment, &progress).await?;
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
