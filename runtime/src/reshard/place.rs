//! Placing items as a strongly consistent read shows them now: what the catch-up's records still
//! need, and what a backfill's scan read too early (its item changed before its place was written).

use super::pace::Meter;
use super::rewrite::{Pass, Rewrite};
use crate::batch::{key_of, KeyRead};
use crate::db::Db;
use crate::entity::{Entity, PrimaryKey};
use crate::error::{Error, Item, Result};
use crate::item::table_of;
use crate::metadata::table::unless_condition_failed;
use crate::metadata::Checked;
use std::collections::HashMap;

impl Db {
    /// The items of `E` under `keys` (strongly consistent), in order; `None` where there is none.
    pub(super) async fn read_now<E: Entity>(
        &self,
        keys: Vec<PrimaryKey>,
        meter: Option<&Meter>,
    ) -> Result<Vec<Option<Item>>> {
        let on_request = |units: f64| meter.into_iter().for_each(|meter| meter.read(units));
        let read = KeyRead {
            db: self,
            table: table_of::<E>(),
            keys,
            consistent: true,
            concurrency: 4,
            retry: self.retry_policy(),
            on_request: meter.map(|_| &on_request as crate::batch::OnRequest),
            entities: &[E::TYPE_NAME],
        };
        read.run().await
    }

    /// Sends the changes of `latest` the items still need, as a strongly consistent read of them
    /// shows: most records are of writes that placed their item themselves, or of items the
    /// backfill placed, and a read costs a fifth of a write. Returns how many items were placed,
    /// and how many were left out because their place breaks a key limit.
    pub(super) async fn place_needed<E: Entity>(
        &self,
        latest: HashMap<PrimaryKey, Rewrite>,
    ) -> Result<(u64, u64)> {
        if latest.is_empty() {
            return Ok((0, 0));
        }
        let (keys, rewrites): (Vec<PrimaryKey>, Vec<Rewrite>) = latest.into_iter().unzip();
        let current = self.read_now::<E>(keys, None).await?;
        let (mut needed, mut refused) = (Vec::new(), 0);
        for (rewrite, current) in rewrites.into_iter().zip(current) {
            if !current.is_some_and(|current| rewrite.needed_by(&current)) {
                continue;
            }
            match rewrite.check(table_of::<E>()) {
                Ok(()) => needed.push(rewrite),
                Err(error) => {
                    // A writer that bypassed dynashard's checks: the verification reports it.
                    tracing::warn!(target: "dynashard::reshard", %error, "an item's place breaks a key limit; left out");
                    refused += 1;
                }
            }
        }
        Ok((self.send_rewrites::<E>(needed, 4, None).await?.0, refused))
    }

    /// Places again the items of `skipped` (rewrites whose condition did not hold: the item
    /// changed between the scan's read and the write, or the scan read an index that had not yet
    /// caught up with it), from a strongly consistent read of them. A change made after that read
    /// is in the change log the catch-up reads, so one round is enough. Returns how many items
    /// were written.
    pub(super) async fn place_again<E: Entity>(
        &self,
        checked: &Checked,
        skipped: Vec<Rewrite>,
        in_flight: usize,
        meter: Option<&Meter>,
    ) -> Result<u64> {
        let keys: Vec<PrimaryKey> =
            skipped.iter().filter_map(|rewrite| key_of(table_of::<E>(), &rewrite.key_item())).collect();
        if keys.is_empty() {
            return Ok(0);
        }
        let current = self.read_now::<E>(keys, meter).await?;
        let rewrites: Vec<Rewrite> = current
            .iter()
            .flatten()
            .filter_map(|item| Rewrite::of(checked, item, Pass::Place, table_of::<E>()))
            .collect();
        rewrites.iter().try_for_each(|rewrite| rewrite.check(table_of::<E>()))?;
        Ok(self.send_rewrites::<E>(rewrites, in_flight, meter).await?.0)
    }

    /// Takes `item` (as read) out of the target layout, on the condition that the source still
    /// does not hold it and its target place is still as read; returns whether it did.
    pub(super) async fn unplace<E: Entity>(&self, checked: &Checked, item: &Item) -> Result<bool> {
        let Some((source_pk, _)) = checked.source() else { return Ok(false) };
        let (target_pk, target_sk) = checked.target;
        let (Some(pk), Some(sk)) = (item.get(target_pk), item.get(target_sk)) else { return Ok(false) };
        let result = self
            .client()
            .update_item()
            .table_name(self.table_of::<E>())
            .set_key(Some(crate::item::key_of(item, table_of::<E>())))
            .update_expression("REMOVE #tpk, #tsk")
            .condition_expression("attribute_not_exists(#spk) AND #tpk = :tpk AND #tsk = :tsk")
            .expression_attribute_names("#spk", source_pk)
            .expression_attribute_names("#tpk", target_pk)
            .expression_attribute_names("#tsk", target_sk)
            .expression_attribute_values(":tpk", pk.clone())
            .expression_attribute_values(":tsk", sk.clone())
            .send()
            .await;
        let removed =
            unless_condition_failed(result).map_err(|error| Error::from_sdk("UpdateItem", error))?;
        Ok(removed.is_some())
    }
}

/// Whether `image`, an item of `E` with a place in the target, belongs in neither layout: its own
/// fields keep it out of the (sparse) source index. Judged from the entity, not from the source
/// attributes stored, which a writer in the last phase leaves out on purpose.
/// (An added mapping's item that leaves its sparse index is taken out by its rewrite.)
pub(super) fn stray<E: Entity>(checked: &Checked, image: &Item) -> bool {
    let Some((source_pk, _)) = checked.source() else { return false };
    if !image.contains_key(checked.target.0) || image.contains_key(source_pk) {
        return false;
    }
    let Ok(entity) = crate::item::from_item::<E>(image.clone()) else { return false };
    crate::item::to_item(&entity).is_ok_and(|item| !item.contains_key(source_pk))
}
