//! The reader's part in a bucket directory: asking for its next part when the merge waits on
//! one, and handing what it lists to the merge.

use super::{Merge, DIRECTORY};
use crate::consumption::carry;
use crate::query::request::RawPage;
use crate::query::sharded::directory;
use crate::query::sharded::lanes::DirectorySpan;
use std::sync::Arc;

impl Merge {
    /// Sends a request for the next part of the bucket directory when the merge waits on it.
    pub(super) fn dispatch_listing(&mut self) {
        if self.listing || self.tasks.len() >= self.plan.concurrency {
            return;
        }
        let span = match &self.window_listing {
            Some((_, next)) => self.merger.unlisted().and_then(|_| {
                let span = self.lanes.window_span()?;
                Some(DirectorySpan { low: next.clone().unwrap_or(span.low), ..span })
            }),
            None => self.merger.unlisted().and_then(|from| self.lanes.directory_span(from)),
        };
        let Some(span) = span else { return };
        self.listing = true;
        // A window merged as one needs every entry before it can start.
        let wanted = if self.window_listing.is_some() { None } else { self.remaining };
        let limit = directory::entries_wanted(wanted);
        let (db, plan, stats) = (self.db.clone(), Arc::clone(&self.plan), self.stats.clone());
        self.tasks
            .spawn(carry(async move { (DIRECTORY, directory::read(&db, &plan, span, limit, &stats).await) }));
    }

    /// Hands an answer of the bucket directory to the merge: the groups it lists, and how far.
    pub(super) fn accept_listing(&mut self, page: &RawPage) {
        self.listing = false;
        let entries = directory::entries(&self.plan, page);
        if let Some((lanes, next)) = self.window_listing.as_mut() {
            // A window merged as one is listed whole, once every part is read.
            lanes.extend(self.lanes.window_lanes(&entries));
            *next = directory::after_last(&entries);
            if page.last_evaluated_key.is_none() || next.is_none() {
                let lanes = std::mem::take(lanes);
                self.merger.list([(0, lanes)], 1);
            }
            return;
        }
        let through = match (&page.last_evaluated_key, entries.last()) {
            (Some(_), Some((start, _))) => self.lanes.group_after(*start),
            _ => self.lanes.groups().count,
        };
        self.merger.list(self.lanes.listed_groups(entries), through);
    }
}
