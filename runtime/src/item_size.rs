//! An item's size as DynamoDB counts it against the 400 KB limit.

use crate::error::Item;
use aws_sdk_dynamodb::types::AttributeValue;

/// DynamoDB's item size limit: 400 KB.
pub const MAX_ITEM_BYTES: usize = 400 * 1024;

/// The size of an item: the UTF-8 length of each attribute name plus the size of its value.
pub fn item_size(item: &Item) -> usize {
    item.iter().map(|(name, value)| name.len() + value_size(value)).sum()
}

/// The size of one attribute value, following DynamoDB's documented rules (numbers are counted
/// at their upper bound: one byte per two significant digits plus one).
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
    let digits = number.bytes().filter(u8::is_ascii_digit).count();
    digits.div_ceil(2) + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_names_and_values() {
        let mut item = Item::new();
        item.insert("pk".into(), AttributeValue::S("artist".into()));
        item.insert("n".into(), AttributeValue::N("12345".into()));
        item.insert("l".into(), AttributeValue::L(vec![AttributeValue::Bool(true)]));
        assert_eq!(item_size(&item), (2 + 6) + (1 + 4) + (1 + 3 + 2));
    }
}
