//! Where a read stands, and the cursor that resumes there, in either direction.

use super::cursor;
use super::sharded::cursor as sharded_cursor;
use super::sharded::resume::{PageEnd, Start};
use super::QueryPlan;
use crate::db::Db;
use std::sync::Arc;

/// Where a read stands: enough to encode its cursor.
pub(crate) struct Position {
    plan: Arc<QueryPlan>,
    start: Arc<Start>,
    item_bytes: Option<u64>,
}

impl Position {
    /// The position `start` of a read of `plan`, with items of about `item_bytes` so far.
    pub(crate) fn new(plan: Arc<QueryPlan>, start: Arc<Start>, item_bytes: Option<u64>) -> Self {
        Position { plan, start, item_bytes }
    }

    /// The same position in the read of the query in the other direction (a page end resumes
    /// the same way both ways), without the horizon of this direction: with the page before's,
    /// when it is right after a page's first item and knows it.
    pub(crate) fn reversed(&self) -> Position {
        let mut plan = (*self.plan).clone();
        plan.descending = !plan.descending;
        let start = match self.start.as_ref() {
            Start::After(end) => {
                Arc::new(Start::After(PageEnd { horizon: end.back.clone(), back: None, ..end.clone() }))
            }
            Start::Beginning => Arc::new(Start::Beginning),
        };
        Position { plan: Arc::new(plan), start, item_bytes: self.item_bytes }
    }

    /// The cursor resuming here.
    pub(crate) fn encode(&self, db: &Db) -> String {
        let plan = &self.plan;
        let fingerprint = cursor::fingerprint(plan);
        let signing_key = db.cursor_key();
        match &plan.shards {
            Some(shards) => {
                let position = (self.start.as_ref(), self.item_bytes);
                sharded_cursor::encode(&fingerprint, shards, plan.partition_attribute, position, signing_key)
            }
            None => {
                let key = match self.start.as_ref() {
                    Start::After(end) => Some(&end.key),
                    Start::Beginning => None,
                };
                cursor::encode(&fingerprint, key, signing_key)
            }
        }
    }
}
