//! An item's size as DynamoDB counts it against the 400 KB limit, and the mean sizes a `Db`
//! remembers to size its reads.

use aws_sdk_dynamodb::types::AttributeValue;
use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

/// DynamoDB's item size limit: 400 KB.
pub const MAX_ITEM_BYTES: usize = 400 * 1024;

/// The size of an item: the UTF-8 length of each attribute name plus the size of its value.
pub fn item_size(item: &HashMap<String, AttributeValue>) -> usize {
    item.iter().map(|(name, value)| name.len() + value_size(value)).sum()
}

/// The size of one attribute value, following DynamoDB's documented rules (a number is one byte
/// per two significant digits, leading and trailing zeros trimmed, plus one).
pub fn value_size(value: &AttributeValue) -> usize {
    match value {
        AttributeValue::S(text) => text.len(),
        AttributeValue::N(number) => number_size(number),
        AttributeValue::B(blob) => blob.as_ref().len(),
        AttributeValue::Bool(_) | AttributeValue::Null(_) => 1,
        AttributeValue::Ss(set) => set.iter().map(String::len).sum(),
        AttributeValue::Ns(set) => set.iter().map(|n| number_size(n)).sum(),
        AttributeValue::Bs(set) => set.iter().map(|b| b.as_ref().len()).sum(),
        AttributeValue::L(list) => 3 + list.iter().map(|v| 1 + value_size(v)).sum::<usize>(),
        AttributeValue::M(map) => 3 + map.iter().map(|(k, v)| 1 + k.len() + value_size(v)).sum::<usize>(),
        _ => 0,
    }
}

fn number_size(number: &str) -> usize {
    let mantissa = number.split(['e', 'E']).next().unwrap_or(number);
    let digits = || mantissa.bytes().filter(u8::is_ascii_digit);
    let significant = match digits().position(|digit| digit != b'0') {
        Some(first) => {
            let trailing = digits().rev().take_while(|digit| *digit == b'0').count();
            digits().count() - first - trailing
        }
        None => 1, // zero
    };
    significant.div_ceil(2) + 1
}

/// The mean item size of every table and index a [`Db`](crate::Db) has read with a limit, so the
/// first page of a later read is sized right too. Only the index's own: in one table, indexes
/// hold items of other entities and projections, so a mean from another index is no better
/// than a guess (a read without one asks one partition first to learn it).
#[derive(Debug, Default)]
pub(crate) struct SizeMemory(Mutex<HashMap<(&'static str, &'static str), u64>>);

impl SizeMemory {
    /// The mean item size last seen on `table` and `index` (`""` for the table itself).
    pub(crate) fn recall(&self, table: &'static str, index: &'static str) -> Option<u64> {
        let sizes = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        sizes.get(&(table, index)).copied()
    }

    /// Remembers the mean item size seen on `table` and `index`.
    pub(crate) fn remember(&self, table: &'static str, index: &'static str, mean: u64) {
        let mut sizes = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        sizes.insert((table, index), mean);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_size_is_remembered_for_its_own_index_only() {
        let memory = SizeMemory::default();
        memory.remember("Music", "ByTitle", 480);
        assert_eq!(memory.recall("Music", "ByTitle"), Some(480));
        assert_eq!(memory.recall("Music", "ByYear"), None, "another index holds other items");
        assert_eq!(memory.recall("Music", ""), None);
        assert_eq!(memory.recall("Books", "ByTitle"), None);
        memory.remember("Music", "ByTitle", 510);
        assert_eq!(memory.recall("Music", "ByTitle"), Some(510), "the last mean");
    }

    #[test]
    fn counts_names_and_values() {
        let mut item = HashMap::new();
        item.insert("pk".into(), AttributeValue::S("artist".into()));
        item.insert("n".into(), AttributeValue::N("12345".into()));
        item.insert("l".into(), AttributeValue::L(vec![AttributeValue::Bool(true)]));
        assert_eq!(item_size(&item), (2 + 6) + (1 + 4) + (1 + 3 + 2));
    }

    #[test]
    fn numbers_count_their_significant_digits() {
        for (number, size) in [
            ("0", 2),
            ("7", 2),
            ("12", 2),
            ("123", 3),
            ("1000", 2),
            ("0.0012", 2),
            ("-1.5E+10", 2),
            ("100200", 3),
        ] {
            assert_eq!(number_size(number), size, "{number}");
        }
    }
}
