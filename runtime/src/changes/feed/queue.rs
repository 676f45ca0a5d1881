//! The shards one pass means to read, taken in turn by its reading slots. Sans I/O.
//!
//! Passes of several processes often start together (their workers poll alike, or a backlog
//! arrives after a quiet while) and would race for the same shards, one acquisition winning and
//! the rest refused, in rounds until every shard is taken: the last shard would begin several
//! round trips late. So each pass is dealt shards of its own first: its value of the feed's
//! fence counter (one a pass, so passes that start together hold consecutive values) picks
//! where it starts in the ready shards, sorted as every process sorts them, and `concurrency`
//! passes in a row start `concurrency` shards apart. The deal only orders tries: a shard is read
//! by whoever acquires its lease, whatever was dealt.
//!
//! A pass plans from the leases as it read them; an acquisition of a shard whose lease another
//! process changed since is refused, and the slot refused stops (the pass leaves what waits to a
//! later pass, which plans it from one read of the leases).

use super::lineage::ListedShard;
use crate::metadata::lease::LeaseRecord;
use std::collections::VecDeque;

/// A shard to read and its lease as the pass last read it (`None`: no lease item).
pub(super) type Waiting = (ListedShard, Option<LeaseRecord>);

/// Where a pass starts in the shards ready to read: the ids of every ready shard (held elsewhere
/// or not), the pass's value of the feed's fence counter, and how many shards it reads at once.
#[derive(Debug, Clone, Copy)]
pub(super) struct Deal<'a> {
    pub ready: &'a [String],
    pub ticket: u64,
    pub slots: usize,
}

impl Deal<'_> {
    /// The shards dealt to the pass, in turn: `slots` of the ready shards in sorted order, from
    /// `ticket × slots` on (wrapping around), so that passes with consecutive tickets are dealt
    /// shards apart until every shard is dealt.
    fn dealt(&self) -> Vec<&str> {
        let mut ready: Vec<&str> = self.ready.iter().map(String::as_str).collect();
        ready.sort_unstable();
        ready.dedup();
        let count = ready.len() as u64;
        if count == 0 {
            return Vec::new();
        }
        let start = self.ticket.wrapping_mul(self.slots as u64) % count;
        let taken = self.slots.min(ready.len());
        (0..taken as u64).map(|step| ready[((start + step) % count) as usize]).collect()
    }
}

/// The shards of a pass not taken yet, in the order to try them.
#[derive(Debug, Default)]
pub(super) struct Queue {
    waiting: VecDeque<Waiting>,
}

impl Queue {
    /// The shards of `to_read`: those `deal` deals the pass first, in turn, then the rest in an
    /// order drawn from `seed`, so that a slot refused one tries next a shard as likely free as
    /// any, not the one after it, which the pass dealt it is taking.
    pub fn new(to_read: Vec<Waiting>, deal: Deal<'_>, seed: u64) -> Self {
        let dealt = deal.dealt();
        let (mut first, rest): (Vec<Waiting>, Vec<Waiting>) =
            to_read.into_iter().partition(|(shard, _)| dealt.contains(&shard.id.as_str()));
        first.sort_by_key(|(shard, _)| dealt.iter().position(|id| *id == shard.id));
        let mut queue = Self::shuffled(rest, seed);
        for waiting in first.into_iter().rev() {
            queue.waiting.push_front(waiting);
        }
        queue
    }

    /// The shards of `to_read` in an order drawn from `seed`.
    fn shuffled(mut to_read: Vec<Waiting>, seed: u64) -> Self {
        let mut state = seed;
        // Fisher and Yates's shuffle, by SplitMix64.
        for at in (1..to_read.len()).rev() {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut mixed = state;
            mixed = (mixed ^ (mixed >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            mixed = (mixed ^ (mixed >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            mixed ^= mixed >> 31;
            to_read.swap(at, (mixed % (at as u64 + 1)) as usize);
        }
        Self { waiting: VecDeque::from(to_read) }
    }

    /// The next shard to try.
    pub fn next(&mut self) -> Option<Waiting> {
        self.waiting.pop_front()
    }

    /// The shards still waiting.
    #[cfg(test)]
    pub fn ids(&self) -> Vec<String> {
        self.waiting.iter().map(|(shard, _)| shard.id.clone()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shard(id: &str) -> ListedShard {
        ListedShard { id: id.to_owned(), parent: None, ending: None }
    }

    /// A deal of nothing: every shard in an order drawn from the seed.
    const NONE: Deal<'static> = Deal { ready: &[], ticket: 0, slots: 4 };

    fn ids(count: usize) -> Vec<String> {
        (0..count).map(|n| format!("shard {n:03}")).collect()
    }

    #[test]
    fn each_seed_tries_every_shard_once_in_an_order_of_its_own() {
        let to_read: Vec<Waiting> = (0..64).map(|n| (shard(&format!("shard {n}")), None)).collect();
        let orders: Vec<Vec<String>> =
            (0..16).map(|seed| Queue::new(to_read.clone(), NONE, seed).ids()).collect();
        for order in &orders {
            let mut sorted = order.clone();
            sorted.sort();
            let mut all = to_read.iter().map(|(shard, _)| shard.id.clone()).collect::<Vec<_>>();
            all.sort();
            assert_eq!(sorted, all, "every shard once");
        }
        let firsts: std::collections::HashSet<&String> = orders.iter().map(|order| &order[0]).collect();
        assert!(firsts.len() >= 10, "16 seeds start at {} shards of 64", firsts.len());
        assert_eq!(Queue::new(to_read.clone(), NONE, 7).ids(), orders[7], "one order a seed");
        let mut empty = Queue::new(Vec::new(), NONE, 3);
        assert!(empty.next().is_none());
    }

    #[test]
    fn passes_with_consecutive_tickets_are_dealt_every_shard_once() {
        for (shards, slots, passes) in [(64, 4, 16), (256, 4, 64), (64, 1, 64), (16, 4, 4)] {
            let ready = ids(shards);
            // Listed in another order than sorted: every process sorts alike.
            let listed: Vec<Waiting> = ready.iter().rev().map(|id| (shard(id), None)).collect();
            for start in [0, 13, u64::MAX - 3] {
                let mut firsts = Vec::new();
                for pass in 0..passes as u64 {
                    let deal = Deal { ready: &ready, ticket: start.wrapping_add(pass), slots };
                    let order = Queue::new(listed.clone(), deal, pass).ids();
                    assert_eq!(order.len(), shards, "every shard is still tried");
                    firsts.extend(order.into_iter().take(slots));
                }
                firsts.sort();
                if start == u64::MAX - 3 {
                    // The counter wraps only past u64::MAX: the deal may then overlap, never panic.
                    continue;
                }
                assert_eq!(firsts, ready, "{passes} passes of {slots} from ticket {start}");
            }
        }
    }

    #[test]
    fn a_deal_skips_shards_held_elsewhere_and_tolerates_odd_inputs() {
        let ready = ids(8);
        // Shards 2 and 3, dealt to ticket 0 (slots 4: shards 0 to 3), are held elsewhere.
        let to_read: Vec<Waiting> = ready
            .iter()
            .filter(|id| !id.ends_with('2') && !id.ends_with('3'))
            .map(|id| (shard(id), None))
            .collect();
        let order = Queue::new(to_read, Deal { ready: &ready, ticket: 0, slots: 4 }, 9).ids();
        assert_eq!(&order[..2], ["shard 000", "shard 001"], "the dealt shards first, in turn");
        assert_eq!(order.len(), 6);
        for slots in [0, 1, 100, usize::MAX] {
            for ticket in [0, 1, u64::MAX] {
                let to_read: Vec<Waiting> = ready.iter().map(|id| (shard(id), None)).collect();
                let order = Queue::new(to_read, Deal { ready: &ready, ticket, slots }, 1).ids();
                assert_eq!(order.len(), 8, "slots {slots}, ticket {ticket}");
            }
        }
        let duplicated = [ready.clone(), ready.clone()].concat();
        let to_read: Vec<Waiting> = ready.iter().map(|id| (shard(id), None)).collect();
        assert_eq!(
            Queue::new(to_read, Deal { ready: &duplicated, ticket: 1, slots: 4 }, 1).ids()[0],
            "shard 004"
        );
    }
}
