//! The new layout of an index being resharded, and how an item's place in it follows from its
//! place in the old one: the same logical partition and sort key, a new shard id.

use crate::error::Item;
use crate::shard::{hash_shard, logical_partition, shard_partition, Boundaries, Normalization};
use aws_sdk_dynamodb::types::AttributeValue;
use serde::{Deserialize, Serialize};

/// How a hash- or range-sharded index mapping routes: generated for every such mapping, so a
/// resharding can place an item from its attributes alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShardMapping {
    /// The index.
    pub index: &'static str,
    /// The attributes of the `by` fields, in order.
    pub by: &'static [&'static str],
    /// `Some` for range shards: the normalization their routing applies.
    pub normalization: Option<Normalization>,
}

/// The layout an index is resharded into.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NewLayout {
    /// `hash = shards`, routed by the mapping's `by` fields.
    Hash {
        /// The new shard count.
        shards: u32,
    },
    /// Range shards cut at `boundaries`, routed by the mapping's `by` field.
    Range {
        /// The new boundaries (checked: first `""`, strictly increasing).
        boundaries: Vec<String>,
    },
}

impl NewLayout {
    /// Hash shards, `shards` of them.
    pub fn hash(shards: u32) -> Self {
        Self::Hash { shards }
    }

    /// Range shards cut at `boundaries`.
    pub fn range(boundaries: &Boundaries) -> Self {
        Self::Range { boundaries: boundaries.values().to_vec() }
    }

    /// The number of shards.
    pub fn shards(&self) -> u32 {
        match self {
            Self::Hash { shards } => *shards,
            Self::Range { boundaries } => boundaries.len() as u32,
        }
    }

    /// A short description for fingerprints and messages (`hash:32`, `range:<fingerprint>`).
    pub fn describe(&self) -> String {
        match self {
            Self::Hash { shards } => format!("hash:{shards}"),
            Self::Range { boundaries } => {
                format!(
                    "range:{}",
                    Boundaries::from_checked(&boundaries.iter().map(String::as_str).collect::<Vec<_>>())
                        .fingerprint()
                )
            }
        }
    }
}

/// Where an item goes in the new layout: its target partition and sort key values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    /// The target index's partition key value.
    pub partition: String,
    /// The target index's sort key value (the source's, unchanged).
    pub sort: String,
}

/// A checked new layout, ready to route.
#[derive(Debug, Clone)]
pub(crate) enum Router {
    Hash(u32),
    Range(Boundaries, Normalization),
}

impl Router {
    pub fn new(layout: &NewLayout, mapping: &ShardMapping) -> Option<Self> {
        match (layout, mapping.normalization) {
            (NewLayout::Hash { shards }, None) if *shards >= 1 => Some(Self::Hash(*shards)),
            (NewLayout::Range { boundaries }, Some(normalization)) => Boundaries::new(boundaries.clone())
                .ok()
                .map(|boundaries| Self::Range(boundaries, normalization)),
            _ => None,
        }
    }

    fn shard(&self, text: &str) -> u32 {
        match self {
            Self::Hash(shards) => hash_shard(text, *shards),
            Self::Range(boundaries, normalization) => boundaries.shard(text, *normalization),
        }
    }
}

/// The routing text of `item` under `mapping`: its `by` attributes' texts one after another
/// (numbers in their decimal form, as the derive routes them).
pub(crate) fn routing_text(item: &Item, mapping: &ShardMapping) -> Option<String> {
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
    mapping: &ShardMapping,
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

    const HASHED: ShardMapping = ShardMapping { index: "ByTitle", by: &["title"], normalization: None };
    const RANGED: ShardMapping =
        ShardMapping { index: "ByTitle", by: &["title"], normalization: Some(Normalization::NfkdLower) };

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
        let router = Router::new(&NewLayout::hash(21), &HASHED).unwrap();
        let placed = place(&item("Leaving Home", "album$#x#3"), &HASHED, &router, ("gpk", "gsk")).unwrap();
        assert_eq!(placed, Placement { partition: "album$#x#6".into(), sort: "sort".into() });
    }

    #[test]
    fn range_placement_normalizes() {
        let boundaries = Boundaries::from_json(r#"["", "h", "p"]"#).unwrap();
        let router = Router::new(&NewLayout::range(&boundaries), &RANGED).unwrap();
        let placed = place(&item("ＨＥＬＬＯ", "albums#9"), &RANGED, &router, ("gpk", "gsk")).unwrap();
        assert_eq!(placed.partition, "albums#1");
    }

    #[test]
    fn layouts_must_match_the_mapping() {
        assert!(Router::new(&NewLayout::hash(4), &RANGED).is_none());
        assert!(Router::new(&NewLayout::Range { boundaries: vec!["".into()] }, &HASHED).is_none());
        assert!(Router::new(&NewLayout::Range { boundaries: vec!["a".into()] }, &RANGED).is_none());
        assert!(Router::new(&NewLayout::hash(0), &HASHED).is_none());
        assert!(place(&item("x", "p#1"), &HASHED, &Router::Hash(2), ("missing", "gsk")).is_none());
    }

    #[test]
    fn layouts_serialize_as_tagged_json() {
        let json = serde_json::to_string(&NewLayout::hash(32)).unwrap();
        assert_eq!(json, r#"{"hash":{"shards":32}}"#);
        assert_eq!(serde_json::from_str::<NewLayout>(&json).unwrap(), NewLayout::hash(32));
    }
}
