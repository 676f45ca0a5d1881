//! The shards of one stream as the emulator serves them, sans I/O: cut from the endpoint's own
//! shards by sequence number (a split closes a shard at the last record written before it) and
//! by a hash of the item's key (a split's children share the later records of their parent, each
//! item's in one child), as DynamoDB splits a stream's shards.

use serde_json::Value;
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};

/// A shard as served: the records of the endpoint's shard `backend` after `after` (from its
/// start when `None`) up to `until` (while open, without end), of the items whose key hashes
/// to every `(children, which)` of `path`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ServedShard {
    pub id: String,
    pub parent: Option<String>,
    pub backend: String,
    /// The first sequence number it may hold, as listed.
    pub starting: String,
    pub after: Option<String>,
    pub until: Option<String>,
    pub path: Vec<(u32, u32)>,
}

impl ServedShard {
    /// Whether it holds the record numbered `sequence`, of the item whose key hashes to `key`
    /// ([`key_hash`]).
    pub fn holds(&self, sequence: &str, key: u64) -> bool {
        let after_start = self.after.as_deref().is_none_or(|after| order(sequence, after).is_gt());
        after_start && !self.past_end(sequence) && self.owns(key)
    }

    /// Whether the record numbered `sequence` comes after its last one.
    pub fn past_end(&self, sequence: &str) -> bool {
        self.until.as_deref().is_some_and(|until| order(sequence, until).is_gt())
    }

    /// Whether the item with `keys` is one of its items.
    fn owns(&self, key: u64) -> bool {
        self.path.iter().enumerate().all(|(depth, (children, which))| {
            at_depth(key, depth) % u64::from(*children) == u64::from(*which)
        })
    }
}

/// The shards of one stream, parents before their children.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ServedStream {
    pub shards: Vec<ServedShard>,
}

/// A shard as the endpoint lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EndpointShard {
    pub id: String,
    pub parent: Option<String>,
    pub starting: String,
}

impl ServedStream {
    /// Whether every shard of `listed` is served.
    pub fn serves(&self, listed: &[EndpointShard]) -> bool {
        listed.iter().all(|shard| self.shards.iter().any(|served| served.backend == shard.id))
    }

    /// Adds the endpoint's shards not served yet, whole.
    pub fn sync(&mut self, listed: &[EndpointShard]) {
        for shard in listed {
            if !self.shards.iter().any(|served| served.backend == shard.id) {
                self.shards.push(ServedShard {
                    id: shard.id.clone(),
                    parent: shard.parent.clone(),
                    backend: shard.id.clone(),
                    starting: shard.starting.clone(),
                    after: None,
                    until: None,
                    path: Vec::new(),
                });
            }
        }
    }

    /// The endpoint's shards that open shards are cut from.
    pub fn open_backends(&self) -> Vec<String> {
        let mut backends: Vec<String> = self
            .shards
            .iter()
            .filter(|shard| shard.until.is_none())
            .map(|shard| shard.backend.clone())
            .collect();
        backends.dedup();
        backends
    }

    /// Closes every open shard cut from `backend` at `last` (the sequence number of its last
    /// record; "0" when it holds none) and gives each `children` children that hold the
    /// records after it.
    pub fn split(&mut self, backend: &str, last: &str, children: u32) {
        let children = children.max(1);
        let open: Vec<usize> = (0..self.shards.len())
            .filter(|at| self.shards[*at].backend == backend && self.shards[*at].until.is_none())
            .collect();
        for at in open {
            self.shards[at].until = Some(last.to_owned());
            let parent = self.shards[at].clone();
            for which in 0..children {
                let mut path = parent.path.clone();
                path.push((children, which));
                self.shards.push(ServedShard {
                    id: format!("{}-{which}", parent.id),
                    parent: Some(parent.id.clone()),
                    backend: backend.to_owned(),
                    starting: next_number(last),
                    after: Some(last.to_owned()),
                    until: None,
                    path,
                });
            }
        }
    }

    pub fn find(&self, id: &str) -> Option<&ServedShard> {
        self.shards.iter().find(|shard| shard.id == id)
    }
}

/// The order of two sequence numbers: decimal numbers of any length.
pub(crate) fn order(a: &str, b: &str) -> Ordering {
    let (a, b) = (a.trim_start_matches('0'), b.trim_start_matches('0'));
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

/// The decimal number after `number`.
fn next_number(number: &str) -> String {
    let mut digits: Vec<u8> = number.bytes().filter(u8::is_ascii_digit).collect();
    let mut at = digits.len();
    loop {
        if at == 0 {
            digits.insert(0, b'1');
            break;
        }
        at -= 1;
        if digits[at] == b'9' {
            digits[at] = b'0';
        } else {
            digits[at] += 1;
            break;
        }
    }
    String::from_utf8(digits).unwrap_or_default()
}

/// The decimal number before `number` (`0` stays `0`).
pub(crate) fn previous_number(number: &str) -> String {
    let mut digits: Vec<u8> = number.bytes().filter(u8::is_ascii_digit).collect();
    if digits.iter().all(|digit| *digit == b'0') {
        return "0".to_owned();
    }
    for digit in digits.iter_mut().rev() {
        if *digit == b'0' {
            *digit = b'9';
        } else {
            *digit -= 1;
            break;
        }
    }
    let text = String::from_utf8(digits).unwrap_or_default();
    let trimmed = text.trim_start_matches('0');
    if trimmed.is_empty() {
        "0".to_owned()
    } else {
        trimmed.to_owned()
    }
}

/// A hash of an item's key (a stream record's `Keys`), its attributes taken in name order
/// whatever order the record lists them in: computed once a record, however many shards ask
/// whether they hold it.
pub(crate) fn key_hash(keys: &Value) -> u64 {
    let sorted: BTreeMap<&str, &Value> = keys
        .as_object()
        .map(|keys| keys.iter().map(|(name, value)| (name.as_str(), value)).collect())
        .unwrap_or_default();
    // SipHash with fixed keys: the same in every process of one build.
    let mut hasher = std::hash::DefaultHasher::new();
    serde_json::to_string(&sorted).unwrap_or_default().hash(&mut hasher);
    hasher.finish()
}

/// The key hash `key` at `depth` of splits: mixed with the depth (SplitMix64's finalizer), so
/// that the children of a child share its items as evenly as it shares its parent's.
fn at_depth(key: u64, depth: usize) -> u64 {
    let mut mixed = key ^ (depth as u64).wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    mixed = (mixed ^ (mixed >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    mixed = (mixed ^ (mixed >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    mixed ^ (mixed >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn stream() -> ServedStream {
        let mut stream = ServedStream::default();
        let listed = EndpointShard { id: "shard-a".into(), parent: None, starting: "100".into() };
        stream.sync(&[listed]);
        stream
    }

    #[test]
    fn a_split_closes_the_shard_and_shares_the_later_records_by_item() {
        let mut stream = stream();
        stream.split("shard-a", "105", 4);
        let parent = stream.find("shard-a").cloned().expect("the parent");
        assert_eq!(parent.until.as_deref(), Some("105"));
        assert!(parent.holds("105", key_hash(&json!({"pk": {"S": "a"}}))));
        assert!(!parent.holds("106", key_hash(&json!({"pk": {"S": "a"}}))));
        let children: Vec<&ServedShard> =
            stream.shards.iter().filter(|shard| shard.parent.is_some()).collect();
        assert_eq!(children.len(), 4);
        assert!(children.iter().all(|child| child.starting == "106"));
        for n in 0..200 {
            let keys = key_hash(&json!({"pk": {"S": format!("item {n}")}, "sk": {"S": "x"}}));
            let holders = children.iter().filter(|child| child.holds("106", keys)).count();
            assert_eq!(holders, 1, "every later record in exactly one child");
            assert_eq!(children.iter().filter(|child| child.holds("105", keys)).count(), 0);
        }
    }

    #[test]
    fn a_child_split_again_keeps_its_items_among_its_own_children() {
        let mut stream = stream();
        stream.split("shard-a", "105", 2);
        stream.split("shard-a", "110", 2);
        assert_eq!(stream.shards.len(), 7, "one parent, two children, four grandchildren");
        for n in 0..200 {
            let keys = key_hash(&json!({"pk": {"S": format!("item {n}")}}));
            let child = stream.shards[1..3].iter().find(|child| child.holds("107", keys)).expect("a child");
            let grandchild =
                stream.shards[3..].iter().find(|shard| shard.holds("111", keys)).expect("a grandchild");
            assert_eq!(grandchild.parent.as_deref(), Some(child.id.as_str()));
        }
    }

    #[test]
    fn sequence_numbers_are_ordered_as_numbers() {
        assert_eq!(order("99", "100"), Ordering::Less);
        assert_eq!(order("000100", "100"), Ordering::Equal);
        assert_eq!(next_number("199"), "200");
        assert_eq!(next_number("999"), "1000");
        assert_eq!(next_number("0"), "1");
        assert_eq!(previous_number("200"), "199");
        assert_eq!(previous_number("1000"), "999");
        assert_eq!(previous_number("1"), "0");
        assert_eq!(previous_number("0"), "0");
    }
}
