//! Where generated code puts an entity's index keys. The derive names each mapping's values
//! (the logical partition key, the routing text, the bucket time, the sort key); the runtime
//! routes sharded ones by the mapping's layout and stores them: into the item a put writes, or
//! as the changes an update makes.

use super::{base_key_of, insert_key, IndexKeyUpdate};
use crate::error::{Item, Result};
use crate::index_key_limits::check_range_value;
use crate::shard::{range_sort_key, NoDynamicShards, ShardChooser, ShardSpec};
use crate::table::TableDefinition;
use aws_sdk_dynamodb::types::AttributeValue;

/// The index keys of one write: the item being written (with its table and the chooser of
/// dynamic shards), or the changes of an update (with the base-table key it updates).
pub struct IndexKeys<'a> {
    target: Target<'a>,
}

enum Target<'a> {
    Item { item: &'a mut Item, table: &'a TableDefinition, chooser: &'a dyn ShardChooser },
    Update { pk: &'a str, sk: &'a str, table: &'a TableDefinition, updates: Vec<IndexKeyUpdate> },
}

impl std::fmt::Debug for IndexKeys<'_> {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.target {
            Target::Item { item, table, .. } => {
                formatter.debug_struct("IndexKeys").field("table", &table.name).field("item", item).finish()
            }
            Target::Update { pk, sk, updates, .. } => formatter
                .debug_struct("IndexKeys")
                .field("pk", pk)
                .field("sk", sk)
                .field("updates", updates)
                .finish(),
        }
    }
}

impl<'a> IndexKeys<'a> {
    /// The index keys of `item`, an item of `table` being written; `chooser` picks the shards of
    /// dynamic-sharded mappings.
    pub(crate) fn of_item(
        item: &'a mut Item,
        table: &'a TableDefinition,
        chooser: &'a dyn ShardChooser,
    ) -> Self {
        IndexKeys { target: Target::Item { item, table, chooser } }
    }

    /// The index key changes of an update of the item with base-table key `pk`, `sk` in `table`.
    pub fn of_update(pk: &'a str, sk: Option<&'a str>, table: &'a TableDefinition) -> Self {
        IndexKeys { target: Target::Update { pk, sk: sk.unwrap_or_default(), table, updates: Vec::new() } }
    }

    /// The changes an update makes.
    pub fn into_updates(self) -> Vec<IndexKeyUpdate> {
        match self.target {
            Target::Update { updates, .. } => updates,
            Target::Item { .. } => Vec::new(),
        }
    }

    /// The base-table key of the item, for the layouts that read it.
    fn base(&self) -> (String, String) {
        match &self.target {
            Target::Item { item, table, .. } => base_key_of(item, table),
            Target::Update { pk, sk, .. } => ((*pk).to_owned(), (*sk).to_owned()),
        }
    }

    /// The partition key the sharded mapping `spec` gives the item: the logical partition key
    /// `logical`, routed by `text` and, for time buckets, `at_seconds`.
    pub fn partition(
        &self,
        spec: &ShardSpec,
        logical: &str,
        text: &str,
        at_seconds: Option<i64>,
    ) -> Result<String> {
        let chooser: &dyn ShardChooser = match &self.target {
            // Only the readers of a directory skip the shards a bucket's writes did not use:
            // without one, a bucket's items spread over all its shards.
            Target::Item { .. } if spec.layout.bucket().is_some() && !spec.directory => &NoDynamicShards,
            Target::Item { chooser, .. } => *chooser,
            // An update never recomputes a dynamic-sharded key (the derive refuses it).
            Target::Update { .. } => &NoDynamicShards,
        };
        spec.layout.partition((spec.index, logical), text, at_seconds, || self.base(), chooser)
    }

    /// The sort key the range-sharded mapping `spec` stores for `value`, the value of its `by`
    /// field `field`: the value normalized, the value, the item's base-table key.
    pub fn range_sort_key(&self, spec: &ShardSpec, field: &'static str, value: &str) -> Result<String> {
        let table = match &self.target {
            Target::Item { table, .. } | Target::Update { table, .. } => *table,
        };
        check_range_value(table, spec.index, field, value)?;
        let normalized =
            spec.normalization().map_or_else(|| value.to_owned(), |normalization| normalization.apply(value));
        let (pk, sk) = self.base();
        Ok(range_sort_key(&normalized, value, &[pk.as_str(), sk.as_str()]))
    }

    /// Sets the index key attribute `attribute` to `value`.
    pub fn set(&mut self, attribute: &'static str, value: String) -> Result<()> {
        match &mut self.target {
            Target::Item { item, .. } => insert_key(item, attribute, value),
            Target::Update { updates, .. } => {
                updates.push(IndexKeyUpdate::Set(attribute, AttributeValue::S(value)));
                Ok(())
            }
        }
    }

    /// Removes the index key attribute `attribute`: the item leaves a sparse index.
    pub fn remove(&mut self, attribute: &'static str) {
        if let Target::Update { updates, .. } = &mut self.target {
            updates.push(IndexKeyUpdate::Remove(attribute));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index_key_limits::tests::TABLE;
    use crate::shard::{hash_shard, Layout};

    const HASHED: ShardSpec = ShardSpec {
        index: "ByTitle",
        layout: Layout::Hash { shards: 8 },
        by: &["title"],
        directory: false,
        partition: None,
    };
    const DYNAMIC: ShardSpec = ShardSpec {
        index: "ByTitle",
        layout: Layout::Dynamic { max: 8, readable: None },
        by: &[],
        directory: false,
        partition: None,
    };

    #[test]
    fn an_items_keys_are_routed_and_written_into_it() {
        let mut item = Item::new();
        item.insert("pk".into(), AttributeValue::S("artist".into()));
        let mut keys = IndexKeys::of_item(&mut item, &TABLE, &NoDynamicShards);
        let partition = keys.partition(&HASHED, "album", "Leaving Home", None).unwrap();
        assert_eq!(partition, format!("album#{}", hash_shard("Leaving Home", 8)));
        keys.set("title_pk", partition.clone()).unwrap();
        keys.remove("title_sk");
        assert!(matches!(keys.set("pk", "again".into()), Err(crate::error::Error::ReservedAttribute { .. })));
        assert!(matches!(
            keys.partition(&DYNAMIC, "album", "", None),
            Err(crate::error::Error::DynamicShardsUnresolved { index: "ByTitle", .. })
        ));
        assert!(keys.into_updates().is_empty());
        assert_eq!(item.get("title_pk"), Some(&AttributeValue::S(partition)));
    }

    #[test]
    fn an_updates_keys_become_its_changes() {
        let mut keys = IndexKeys::of_update("artist", Some("album#x"), &TABLE);
        let partition = keys.partition(&HASHED, "album", "Leaving Home", None).unwrap();
        keys.set("title_pk", partition.clone()).unwrap();
        keys.remove("title_sk");
        assert!(keys.range_sort_key(&HASHED, "title", "").is_err(), "an empty routing value is refused");
        assert_eq!(
            keys.into_updates(),
            [
                IndexKeyUpdate::Set("title_pk", AttributeValue::S(partition)),
                IndexKeyUpdate::Remove("title_sk")
            ]
        );
    }
}
