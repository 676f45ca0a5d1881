//! The stream's shards as a feed last listed them, kept by the `Db` for every feed of the table
//! in the process, and listed again only when a pass could miss a shard without it.
//!
//! # Why a listing is kept
//!
//! Listing a stream takes a `DescribeTable` (the stream's ARN: is it still the table's?) and a
//! `DescribeStream` a hundred shards, and DynamoDB Streams serves `DescribeStream` at most ten
//! times a second: the workers of a feed that each listed the stream every pass would be
//! throttled from a handful of them on. So a pass plans from the listing kept, unless it no
//! longer holds every shard the pass could read ([`lineage::still_covers`]):
//!
//! - a stream adds a shard only as a child of a shard it closes (a split, a roll-over, or all of
//!   them when the stream is turned off), and a pass reads a shard only after its parent was
//!   read to its end, which a reader learns from the stream itself (its last page has no next
//!   iterator), not from a listing; so a listing misses nothing a pass could read until one of
//!   its shards ended without its children in it; then the pass lists again;
//! - the feed's record names every shard any process recorded and has not forgotten: a listing
//!   that holds other shards than it is older than another process's (it found new shards, or
//!   forgot ones trimmed from the stream), so this one lists again too;
//! - a listing is of one stream: it is used only by a feed whose record names that stream.
//!
//! A replaced stream (turned off and on) closes the old stream's shards, so its readers reach
//! their ends, list again, and find the table's stream changed: a gap, as before. None of this
//! rests on how old a listing is.

use super::lineage;
use super::stream::{self, stream_of, FeedRecord};
use super::ChangeFeed;
use crate::client::Listing;
use crate::error::Result;
use std::collections::BTreeSet;
use std::sync::Arc;

/// A listing for one pass, and whether it was listed for it.
pub(super) struct ForPass {
    pub listing: Arc<Listing>,
    pub fresh: bool,
}

impl ForPass {
    /// Whether the pass can plan from it: listed now, or kept and still holding every shard the
    /// pass could read (see the module documentation).
    pub fn usable(&self, recorded: Option<&FeedRecord>, ended: &BTreeSet<String>) -> bool {
        self.fresh
            || recorded
                .is_some_and(|record| lineage::still_covers(&self.listing.shards, &record.shards, ended))
    }
}

impl ChangeFeed {
    /// The listing a pass plans from: the one kept for the stream the feed's record names,
    /// unless `fresh` is asked for or none is kept; a fresh one lists the table's stream now
    /// and fails with a gap when it is not the stream recorded.
    ///
    /// A process lists a table's stream once at a time. A listing that began after this call
    /// is as fresh as one this pass would make, since the pass read the feed's record before
    /// it asked: what the listing holds that the record lacks is new, never forgotten (a shard
    /// is forgotten once a listing misses it, and a stream does not list it again). So passes
    /// that need a fresh listing at once (a shard ended) wait for one and share it.
    pub(super) async fn listing(&self, recorded: Option<&FeedRecord>, fresh: bool) -> Result<ForPass> {
        let listings = &self.db.stream_listings;
        let kept = recorded.and_then(|record| listings.get(&self.table, &record.stream));
        if let Some(listing) = kept.filter(|_| !fresh) {
            return Ok(ForPass { listing, fresh: false });
        }
        let asked = listings.begun();
        let one_at_a_time = listings.one_at_a_time(&self.table);
        let _listing = one_at_a_time.lock().await;
        let listing = match listings.begun_after(&self.table, asked) {
            Some(listing) => listing,
            None => {
                let number = listings.begin();
                let (arn, _) = stream_of(&self.db, &self.table).await?;
                let shards = stream::list_shards(&self.db, &arn).await?;
                tracing::debug!(target: "dynashard::changes", table = self.table, shards = shards.len(), "stream listed");
                let listing = Arc::new(Listing { arn, shards });
                listings.keep(&self.table, listing.clone(), number);
                listing
            }
        };
        if let Some(record) = recorded.filter(|record| record.stream != listing.arn) {
            let arn = &listing.arn;
            return Err(self.gap(format!("the table's stream was replaced ({} is now {arn})", record.stream)));
        }
        Ok(ForPass { listing, fresh: true })
    }
}
