//! A page handed over under its shard's lease: the lease beats from a task of its own while the
//! handler runs, and the handler is given the lease's fence and a signal of its loss.
//!
//! The invariant, enforced by the fence and never by timing: **once a shard's lease was taken
//! over, nothing its earlier holder does lands where the handler follows the fence rule.** Each
//! acquisition takes a fence from the feed's counter (`metadata::fences::Fences`),
//! taken after the acquisition saw the shard's fence and its parent's end, so it is higher than
//! the fence of every earlier holder of the shard and of its parents (a child shard is read only
//! after its parent ended). A handler that stores its fence with what it writes, and writes only where the stored
//! fence is not higher ([`FeedLease::fenced`]), cannot overwrite what a later holder wrote, however
//! late its request arrives; the feed's own checkpoints follow the same rule.
//!
//! The beats keep a slow handler's lease (a handler waiting on a downstream call for longer than
//! the lease), so that its shard is not taken over while it works. Only a holder that cannot beat
//! for the lease time (its process frozen, its thread blocked, the metadata table out of reach)
//! loses it; when a beat finds the lease taken, or none landed for the lease time, the handler's
//! future is dropped and the page is left to the next holder.

use crate::db::Db;
use crate::entity::{Entity, Field};
use crate::expression::Condition;
use crate::metadata::lease::{Lease, Leases};
use std::future::Future;
use std::time::Duration;
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// The least time between two beats of a lease while a handler runs, whatever the lease time.
const MIN_BEAT_EVERY: Duration = Duration::from_millis(10);

/// The lease of the shard a [`ChangePage`](super::ChangePage) was handed over under: its fence,
/// and whether this process still holds it.
///
/// A handler whose writes must never be overtaken by an older holder's (a projection of the
/// items, a copy in another store) stores [`fence`](FeedLease::fence) with each item it writes and
/// writes only where the stored fence is not higher: [`fenced`](FeedLease::fenced) is that
/// condition for a dynashard entity.
#[derive(Debug, Clone)]
pub struct FeedLease {
    fence: u64,
    lost: watch::Receiver<bool>,
}

impl FeedLease {
    /// The lease's fence: higher than the fence of every earlier holder of this shard and of
    /// every holder of its parent shards.
    pub fn fence(&self) -> u64 {
        self.fence
    }

    /// Whether the page is no longer covered by the lease: another process took the lease
    /// over (or may have: no beat landed for the lease time), or the page's hand-over is over
    /// (the handler returned, or the feed was dropped).
    pub fn is_lost(&self) -> bool {
        *self.lost.borrow() || self.lost.has_changed().is_err()
    }

    /// Completes once the page is no longer covered by the lease (see
    /// [`is_lost`](FeedLease::is_lost)): for work a handler runs beside its own future, which the
    /// feed drops when it finds the lease taken.
    pub async fn lost(&self) {
        let mut lost = self.lost.clone();
        // An error: the sender is gone with the hand-over.
        let _ = lost.wait_for(|lost| *lost).await;
    }

    /// The condition that the item's `field` holds no fence higher than this lease's (or none
    /// at all): a write under it lands only where no later holder of the shard wrote. Store
    /// [`fence`](FeedLease::fence) in `field` with the same write.
    ///
    /// ```
    /// # use dynashard::{Entity, Table};
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Table)]
    /// # #[table(name = "Views", pk = "pk", sk = "sk")]
    /// # struct Views;
    /// #[derive(Entity, Serialize, Deserialize)]
    /// #[entity(table = Views, pk = "order#{id}", sk = "view")]
    /// struct OrderView { id: String, total_cents: u64, fence: u64 }
    ///
    /// async fn apply(db: &dynashard::Db, page: &dynashard::changes::ChangePage, mut view: OrderView)
    ///     -> dynashard::Result<()> {
    ///     view.fence = page.lease.fence();
    ///     match db.put(&view).condition(page.lease.fenced(OrderView::fields().fence)).await {
    ///         Err(dynashard::Error::ConditionFailed { .. }) => Ok(()), // a later holder wrote it
    ///         other => other,
    ///     }
    /// }
    /// ```
    pub fn fenced<E: Entity>(&self, field: Field<E, u64>) -> Condition {
        field.not_exists().or(field.le(self.fence))
    }
}

/// The beats of one lease while a page is handed over, from a task of their own (so that they go
/// on while the handler runs, unless the handler blocks every thread the runtime has); stopped
/// when dropped.
pub(super) struct Beating {
    task: JoinHandle<()>,
    lost: watch::Receiver<bool>,
}

impl Drop for Beating {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Beating {
    /// Starts beating `lease` in the metadata table `table` every third of `every_lease`; the
    /// handle the handler is given with it.
    pub fn start(db: &Db, table: &str, lease: &Lease, every_lease: Duration) -> (Beating, FeedLease) {
        let (lost_tx, lost) = watch::channel(false);
        let fence = lease.fence;
        let (db, table, mut lease) = (db.clone(), table.to_owned(), lease.clone());
        let every = (every_lease / 3).max(MIN_BEAT_EVERY);
        let task = tokio::spawn(async move {
            let leases = Leases { db: (&db).into(), table: &table };
            let mut beats = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
            beats.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            let mut landed = tokio::time::Instant::now();
            loop {
                beats.tick().await;
                match tokio::time::timeout(every, leases.beat(&mut lease, None, false)).await {
                    Ok(Ok(true)) => landed = tokio::time::Instant::now(),
                    Ok(Ok(false)) => break,
                    // A beat that failed or took too long is tried again at the next one; once
                    // none has landed for the lease time, another process may have taken the
                    // lease over, and the page is given up as lost (it is handed over again).
                    failed => {
                        let error = match failed {
                            Ok(Err(error)) => error.to_string(),
                            _ => "no answer in time".to_owned(),
                        };
                        tracing::warn!(target: "dynashard::changes", error, lease = lease.key, "a lease beat failed");
                        if landed.elapsed() >= every_lease {
                            break;
                        }
                    }
                }
            }
            let _ = lost_tx.send(true);
        });
        (Beating { task, lost: lost.clone() }, FeedLease { fence, lost })
    }

    /// Awaits `handling` while the lease is held: `None` when a beat found the lease taken (the
    /// handler's future is dropped unfinished).
    pub async fn hand_over<F: Future>(self, handling: F) -> Option<F::Output> {
        let mut lost = self.lost.clone();
        let taken = async move {
            if lost.wait_for(|lost| *lost).await.is_err() {
                // The beats stopped without finding the lease taken: the handler decides.
                std::future::pending::<()>().await;
            }
        };
        tokio::select! {
            biased;
            output = handling => Some(output),
            () = taken => None,
        }
    }
}
