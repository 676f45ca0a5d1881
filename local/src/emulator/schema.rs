//! What the emulator knows of a table: its keys and indexes, read from `DescribeTable`.

use super::wire::{projected_size, wire_item_size, WireItem, WireValue};
use serde::Deserialize;

/// The key attributes and ARN of a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TableSchema {
    pub name: String,
    pub arn: String,
    pub key: KeySchema,
    /// Global secondary indexes: each has partitions of its own.
    pub indexes: Vec<IndexSchema>,
    /// Attributes of local secondary index keys: writes to them are charged to the table's
    /// partition.
    pub local_indexes: Vec<IndexSchema>,
}

/// Partition key attributes (one, or up to four for a multi-attribute index key) and sort key
/// attributes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct KeySchema {
    pub hash: Vec<String>,
    pub range: Vec<String>,
}

/// A secondary index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct IndexSchema {
    pub name: String,
    pub arn: String,
    pub key: KeySchema,
    pub projection: Projection,
}

/// Which attributes an index entry holds besides the keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Projection {
    All,
    KeysOnly,
    Include(Vec<String>),
}

/// An item's entry in an index: its partition, its key values and its size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct IndexEntry<'i> {
    pub partition: String,
    /// The index key's values (partition, then sort), to tell a moved entry from an updated one.
    pub key: Vec<&'i WireValue>,
    /// The projected attributes, to tell a changed entry from an unchanged one.
    pub projected: Vec<(&'i str, &'i WireValue)>,
    pub size: usize,
}

impl KeySchema {
    /// The partition key value of `item` (several attributes joined by `#`); `None` when one is
    /// missing or not a key type.
    pub(crate) fn partition(&self, item: &WireItem) -> Option<String> {
        let mut parts = Vec::with_capacity(self.hash.len());
        for name in &self.hash {
            parts.push(item.get(name)?.key_text()?);
        }
        Some(parts.join("#"))
    }

    /// Every key attribute: partition, then sort.
    pub(crate) fn names(&self) -> Vec<String> {
        self.hash.iter().chain(&self.range).cloned().collect()
    }

    fn attributes(&self) -> Vec<&str> {
        self.hash.iter().chain(&self.range).map(String::as_str).collect()
    }
}

impl TableSchema {
    /// The entry of `item` in `index`; `None` when the item lacks one of the index's key
    /// attributes (a sparse index leaves it out).
    pub(crate) fn entry<'i>(&self, index: &IndexSchema, item: &'i WireItem) -> Option<IndexEntry<'i>> {
        let partition = index.key.partition(item)?;
        let mut key = Vec::new();
        for name in index.key.attributes() {
            key.push(item.get(name)?);
        }
        let mut names = self.key.attributes();
        names.extend(index.key.attributes());
        let (projected, size): (Vec<(&str, &WireValue)>, usize) = match &index.projection {
            Projection::All => {
                (item.iter().map(|(name, value)| (name.as_str(), value)).collect(), wire_item_size(item))
            }
            Projection::KeysOnly => {
                (pick(item, names.iter().copied()), projected_size(item, names.iter().copied()))
            }
            Projection::Include(extra) => {
                names.extend(extra.iter().map(String::as_str));
                (pick(item, names.iter().copied()), projected_size(item, names.iter().copied()))
            }
        };
        Some(IndexEntry { partition, key, projected, size })
    }

    /// The index named `name` (global or local).
    pub(crate) fn index(&self, name: &str) -> Option<&IndexSchema> {
        self.indexes.iter().chain(&self.local_indexes).find(|index| index.name == name)
    }

    /// Whether `name` is a local secondary index.
    pub(crate) fn is_local(&self, name: &str) -> bool {
        self.local_indexes.iter().any(|index| index.name == name)
    }
}

fn pick<'i, 'n>(item: &'i WireItem, names: impl Iterator<Item = &'n str>) -> Vec<(&'i str, &'i WireValue)> {
    let mut picked: Vec<(&str, &WireValue)> = names
        .filter_map(|name| item.get_key_value(name))
        .map(|(name, value)| (name.as_str(), value))
        .collect();
    picked.sort_by(|a, b| a.0.cmp(b.0));
    picked.dedup_by(|a, b| a.0 == b.0);
    picked
}

/// `DescribeTable`'s answer, as far as the emulator reads it.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(crate) struct DescribeTableOutput {
    table: TableDescription,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct TableDescription {
    table_name: String,
    table_arn: String,
    key_schema: Vec<KeyElement>,
    #[serde(default)]
    global_secondary_indexes: Vec<IndexDescription>,
    #[serde(default)]
    local_secondary_indexes: Vec<IndexDescription>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct IndexDescription {
    index_name: String,
    #[serde(default)]
    index_arn: Option<String>,
    key_schema: Vec<KeyElement>,
    #[serde(default)]
    projection: Option<ProjectionDescription>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct KeyElement {
    attribute_name: String,
    key_type: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct ProjectionDescription {
    #[serde(default)]
    projection_type: Option<String>,
    #[serde(default)]
    non_key_attributes: Vec<String>,
}

fn key_schema(elements: &[KeyElement]) -> KeySchema {
    let mut key = KeySchema::default();
    for element in elements {
        match element.key_type.as_str() {
            "HASH" => key.hash.push(element.attribute_name.clone()),
            _ => key.range.push(element.attribute_name.clone()),
        }
    }
    key
}

impl From<DescribeTableOutput> for TableSchema {
    fn from(output: DescribeTableOutput) -> Self {
        let table = output.table;
        let index = |description: IndexDescription| {
            let projection = match description.projection {
                Some(ProjectionDescription { projection_type: Some(kind), non_key_attributes }) => {
                    match kind.as_str() {
                        "KEYS_ONLY" => Projection::KeysOnly,
                        "INCLUDE" => Projection::Include(non_key_attributes),
                        _ => Projection::All,
                    }
                }
                _ => Projection::All,
            };
            let arn = description
                .index_arn
                .unwrap_or_else(|| format!("{}/index/{}", table.table_arn, description.index_name));
            IndexSchema {
                name: description.index_name,
                arn,
                key: key_schema(&description.key_schema),
                projection,
            }
        };
        TableSchema {
            key: key_schema(&table.key_schema),
            indexes: table.global_secondary_indexes.into_iter().map(index).collect(),
            local_indexes: table.local_secondary_indexes.into_iter().map(index).collect(),
            name: table.table_name,
            arn: table.table_arn,
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A table `T` (`pk`, `sk`) with an `ALL` index `G` (`gpk`, `gsk`), a `KEYS_ONLY` index `K`
    /// (`kpk`) and a multi-attribute `INCLUDE` index `M` (`a` and `b`, projecting `note`).
    pub(crate) fn schema() -> TableSchema {
        let json = r#"{"Table":{"TableName":"T","TableArn":"arn:aws:dynamodb:ddblocal:000000000000:table/T",
            "KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],
            "GlobalSecondaryIndexes":[
              {"IndexName":"G","KeySchema":[{"AttributeName":"gpk","KeyType":"HASH"},{"AttributeName":"gsk","KeyType":"RANGE"}],
               "Projection":{"ProjectionType":"ALL"},"IndexArn":"arn:aws:dynamodb:ddblocal:000000000000:table/T/index/G"},
              {"IndexName":"K","KeySchema":[{"AttributeName":"kpk","KeyType":"HASH"}],"Projection":{"ProjectionType":"KEYS_ONLY"}},
              {"IndexName":"M","KeySchema":[{"AttributeName":"a","KeyType":"HASH"},{"AttributeName":"b","KeyType":"HASH"}],
               "Projection":{"ProjectionType":"INCLUDE","NonKeyAttributes":["note"]}}]}}"#;
        serde_json::from_str::<DescribeTableOutput>(json).expect("a description").into()
    }

    fn item(json: &str) -> WireItem {
        serde_json::from_str(json).expect("an item")
    }

    #[test]
    fn describe_table_is_read() {
        let schema = schema();
        assert_eq!(schema.key.hash, ["pk"]);
        assert_eq!(schema.key.range, ["sk"]);
        assert_eq!(schema.indexes.len(), 3);
        assert_eq!(
            schema.index("K").map(|index| index.arn.as_str()),
            Some("arn:aws:dynamodb:ddblocal:000000000000:table/T/index/K")
        );
        assert_eq!(schema.index("M").map(|index| index.key.hash.len()), Some(2));
    }

    #[test]
    fn entries_follow_projections_and_sparseness() {
        let schema = schema();
        let item = item(
            r#"{"pk":{"S":"p"},"sk":{"S":"s"},"gpk":{"S":"g"},"gsk":{"S":"1"},"kpk":{"S":"k"},
            "a":{"S":"x"},"b":{"N":"2"},"note":{"S":"nn"},"big":{"S":"0123456789"}}"#,
        );
        let all = schema.entry(&schema.indexes[0], &item).expect("in G");
        assert_eq!((all.partition.as_str(), all.size), ("g", super::wire_item_size(&item)));
        let keys = schema.entry(&schema.indexes[1], &item).expect("in K");
        assert_eq!(keys.size, (2 + 1) + (2 + 1) + (3 + 1), "table keys and index key");
        let multi = schema.entry(&schema.indexes[2], &item).expect("in M");
        assert_eq!(multi.partition, "x#2");
        assert_eq!(multi.size, (2 + 1) + (2 + 1) + (1 + 1) + (1 + 2) + (4 + 2));
        let sparse = super::WireItem::from([("pk".to_owned(), WireValue::S("p".into()))]);
        assert!(schema.entry(&schema.indexes[0], &sparse).is_none());
    }
}
