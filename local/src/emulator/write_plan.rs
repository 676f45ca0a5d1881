//! What one item write addresses and leaves behind (sans-IO): its key, and its item after the
//! write as far as the request tells it.

use super::expression::update_effects;
use super::schema::TableSchema;
use super::wire::{WireItem, WireValue};
use serde::Deserialize;
use std::collections::HashMap;

/// Which write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WriteKind {
    Put,
    Update,
    Delete,
    /// A transaction's `ConditionCheck`: writes nothing, consumes like a write.
    Check,
}

/// The fields of `PutItem`, `UpdateItem`, `DeleteItem` and of a transaction's actions that the
/// emulator reads.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(crate) struct ItemWrite {
    pub table_name: String,
    #[serde(default)]
    pub item: Option<WireItem>,
    #[serde(default)]
    pub key: Option<WireItem>,
    #[serde(default)]
    pub update_expression: Option<String>,
    #[serde(default)]
    pub expression_attribute_names: HashMap<String, String>,
    #[serde(default)]
    pub expression_attribute_values: HashMap<String, WireValue>,
}

/// The primary key attributes of `item`.
pub(crate) fn key_of(schema: &TableSchema, item: &WireItem) -> WireItem {
    schema
        .key
        .hash
        .iter()
        .chain(&schema.key.range)
        .filter_map(|name| item.get_key_value(name))
        .map(|(name, value)| (name.clone(), value.clone()))
        .collect()
}

impl ItemWrite {
    /// The key of the item written.
    pub(crate) fn key(&self, schema: &TableSchema, kind: WriteKind) -> Option<WireItem> {
        match kind {
            WriteKind::Put => self.item.as_ref().map(|item| key_of(schema, item)),
            _ => self.key.clone(),
        }
    }

    /// The item after the write, as far as the request tells it, given the item before: a put's
    /// item; nothing after a delete; for an update, the item before with the attributes the
    /// update sets to a value or removes changed (what it changes through functions, arithmetic
    /// or nested paths is known only once it ran).
    pub(crate) fn after(
        &self,
        kind: WriteKind,
        key: &WireItem,
        before: Option<&WireItem>,
    ) -> Option<WireItem> {
        match kind {
            WriteKind::Put => self.item.clone(),
            WriteKind::Delete => None,
            WriteKind::Check => before.cloned(),
            WriteKind::Update => {
                let mut item = before.cloned().unwrap_or_else(|| key.clone());
                if let Some(expression) = &self.update_expression {
                    let effects = update_effects(expression, &self.expression_attribute_names);
                    for (name, placeholder) in effects.assigned {
                        if let Some(value) = self.expression_attribute_values.get(placeholder) {
                            item.insert(name.to_owned(), value.clone());
                        }
                    }
                    for name in effects.removed {
                        item.remove(name);
                    }
                }
                Some(item)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::schema::tests::schema;
    use super::*;

    fn write(json: &str) -> ItemWrite {
        serde_json::from_str(json).expect("a write")
    }

    #[test]
    fn updates_are_applied_as_far_as_known() {
        let schema = schema();
        let update = write(
            r##"{"TableName":"T","Key":{"pk":{"S":"p"},"sk":{"S":"s"}},
                "UpdateExpression":"SET #g = :g, n = n + :one REMOVE kpk",
                "ExpressionAttributeNames":{"#g":"gpk"},
                "ExpressionAttributeValues":{":g":{"S":"hot"},":one":{"N":"1"}}}"##,
        );
        let key = update.key(&schema, WriteKind::Update).expect("a key");
        let before: WireItem =
            serde_json::from_str(r#"{"pk":{"S":"p"},"sk":{"S":"s"},"kpk":{"S":"k"},"n":{"N":"1"}}"#)
                .expect("an item");
        let after = update.after(WriteKind::Update, &key, Some(&before)).expect("an item after");
        assert_eq!(after.get("gpk"), Some(&WireValue::S("hot".into())));
        assert_eq!(after.get("n"), Some(&WireValue::N("1".into())), "arithmetic is known only afterwards");
        assert!(!after.contains_key("kpk"));
        let fresh = update.after(WriteKind::Update, &key, None).expect("an item after");
        assert_eq!(fresh.len(), 3, "an update of a missing item creates it from its key");
    }

    #[test]
    fn puts_are_keyed_by_their_item() {
        let schema = schema();
        let put = write(r#"{"TableName":"T","Item":{"pk":{"S":"p"},"sk":{"S":"s"},"x":{"S":"y"}}}"#);
        assert_eq!(put.key(&schema, WriteKind::Put).map(|key| key.len()), Some(2));
        assert!(put.after(WriteKind::Delete, &WireItem::new(), None).is_none());
    }
}
