//! How an item's place in the layout an index is resharded into follows from its place in the
//! old one: the same logical partition and sort key, a new shard id.

use crate::error::Item;
use crate::shard::{logical_partition, shard_partition, Router, ShardSpec};
use aws_sdk_dynamodb::types::AttributeValue;

/// Where an item goes in the new layout: its target partition and sort key values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    /// The target index's partition key value.
    pub partition: String,
    /// The target index's sort key value (the source's, unchanged).
    pub sort: String,
}

/// The routing text of `item` under `mapping`: its `by` attributes' texts one after another
/// (numbers in their decimal form, as the derive routes them).
pub(crate) fn routing_text(item: &Item, mapping: &ShardSpec) -> Option<String> {
    let mut text = String::new();
    for attribute in mapping.by {
        match item.get(*attribute)? {
            AttributeValue::S(value) | AttributeValue::N(value) => text.push_str(value),
            _ => return None,
        }
    }
    Some(text)
}

/// Where `item`, placed in the source index under `(source_pk, source_sk)`, goes in the new
/// layout; `None` when it is not in the source index (a sparse index it does not belong to).
pub(crate) fn place(
    item: &Item,
    mapping: &ShardSpec,
    router: &Router,
    (source_pk, source_sk): (&str, &str),
) -> Option<Placement> {
    let partition = item.get(source_pk)?.as_s().ok()?;
    let sort = item.get(source_sk)?.as_s().ok()?;
    let text = routing_text(item, mapping)?;
    let partition = shard_partition(logical_partition(partition), router.shard(&text));
    Some(Placement { partition, sort: sort.clone() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shard::{Boundaries, NewLayout, Normalization, RangeShards, ShardStrategy};
    use std::sync::OnceLock;

    fn compiled() -> &'static RangeShards {
        static SHARDS: OnceLock<RangeShards> = OnceLock::new();
        SHARDS.get_or_init(|| RangeShards::new(Boundaries::from_checked(&["", "m"])))
    }

    const HASHED: ShardSpec = ShardSpec {
        index: "ByTitle",
        strategy: ShardStrategy::Hash { shards: 8 },
        by: &["title"],
        bucket: None,
    };
    const RANGED: ShardSpec = ShardSpec {
        index: "ByTitle",
        strategy: ShardStrategy::Range {
            normalization: Normalization::NfkdLower,
            overflow: 1,
            boundaries: compiled,
        },
        by: &["title"],
        bucket: None,
    };

    fn item(title: &str, pk: &str) -> Item {
        [
            ("title".to_owned(), AttributeValue::S(title.to_owned())),
            ("gpk".to_owned(), AttributeValue::S(pk.to_owned())),
            ("gsk".to_owned(), AttributeValue::S("sort".to_owned())),
        ]
        .into_iter()
        .collect()
    }

    #[test]
    fn hash_placement_keeps_the_logical_partition_and_sort_key() {
        let router = HASHED.router_for(&NewLayout::hash(21)).unwrap();
        let placed = place(&item("Leaving Home", "album$#x#3"), &HASHED, &router, ("gpk", "gsk")).unwrap();
        assert_eq!(placed, Placement { partition: "album$#x#6".into(), sort: "sort".into() });
    }

    #[test]
    fn range_placement_normalizes() {
        let boundaries = Boundaries::from_json(r#"["", "h", "p"]"#).unwrap();
        let router = RANGED.router_for(&NewLayout::range(&boundaries)).unwrap();
        let placed = place(&item("ＨＥＬＬＯ", "albums#9"), &RANGED, &router, ("gpk", "gsk")).unwrap();
        assert_eq!(placed.partition, "albums#1");
    }

    #[test]
    fn layouts_must_match_the_mapping() {
        assert!(RANGED.router_for(&NewLayout::hash(4)).is_none());
        assert!(HASHED.router_for(&NewLayout::Range { boundaries: vec!["".into()] }).is_none());
        assert!(RANGED.router_for(&NewLayout::Range { boundaries: vec!["a".into()] }).is_none());
        assert!(HASHED.router_for(&NewLayout::hash(0)).is_none());
        assert!(place(&item("x", "p#1"), &HASHED, &Router::Hash(2), ("missing", "gsk")).is_none());
    }

    #[test]
    fn layouts_serialize_as_tagged_json() {
        let json = serde_json::to_string(&NewLayout::hash(32)).unwrap();
        assert_eq!(json, r#"{"hash":{"shards":32}}"#);
        assert_eq!(serde_json::from_str::<NewLayout>(&json).unwrap(), NewLayout::hash(32));
    }
}
