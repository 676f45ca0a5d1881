//! DynamoDB's limits on index key values, checked on the finished item: after shard suffixes,
//! time buckets and range sort keys are added, before anything is sent.
//!
//! A partition key value may hold at most 2,048 bytes and a sort key value at most 1,024 bytes,
//! in every global secondary index as in the table; string and binary key values may not be
//! empty. DynamoDB refuses a write that breaks either with an opaque `ValidationException`, and
//! in a batch write that fails all 25 writes of the request. Checked here, the write fails alone,
//! with [`Error::InvalidIndexKey`] naming the index.

use crate::error::{Error, Item, KeyError, Result};
use crate::key::{MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES};
use crate::table::{IndexDefinition, KeyAttribute, TableDefinition};
use aws_sdk_dynamodb::types::AttributeValue;

/// Checks every index key attribute that `item` holds.
pub(crate) fn check_item(table: &TableDefinition, item: &Item) -> Result<()> {
    for (index, attribute, max) in key_attributes(table) {
        if let Some(value) = item.get(attribute.name) {
            check_value(index, attribute.name, max, value)?;
        }
    }
    Ok(())
}

/// Checks the index key attributes an update sets, each a name and its value.
pub(crate) fn check_updates<'a>(
    table: &TableDefinition,
    sets: impl IntoIterator<Item = (&'a str, &'a AttributeValue)>,
) -> Result<()> {
    for (name, value) in sets {
        for (index, attribute, max) in key_attributes(table) {
            if attribute.name == name {
                check_value(index, attribute.name, max, value)?;
            }
        }
    }
    Ok(())
}

/// Fails when `value`, the value of `field` that a range-sharded `index` routes and sorts by, is
/// empty: like any key value, it must say something. Generated code calls this.
pub fn check_range_value(
    table: &TableDefinition,
    index: &str,
    field: &'static str,
    value: &str,
) -> Result<()> {
    let Some(index) = table.indexes.iter().find(|definition| definition.name == index) else { return Ok(()) };
    match (value.is_empty(), index.sort_key.first()) {
        (true, Some(attribute)) => Err(Error::InvalidIndexKey {
            index: index.name,
            attribute: attribute.name,
            reason: KeyError::EmptyValue { field },
        }),
        _ => Ok(()),
    }
}

/// Every key attribute of every index of `table`, with its index and size limit.
fn key_attributes(
    table: &TableDefinition,
) -> impl Iterator<Item = (&'static IndexDefinition, &KeyAttribute, usize)> {
    table.indexes.iter().flat_map(|index| {
        let partition =
            index.partition_key.iter().map(move |attribute| (index, attribute, MAX_PARTITION_KEY_BYTES));
        let sort = index.sort_key.iter().map(move |attribute| (index, attribute, MAX_SORT_KEY_BYTES));
        partition.chain(sort)
    })
}

fn check_value(
    index: &'static IndexDefinition,
    attribute: &'static str,
    max: usize,
    value: &AttributeValue,
) -> Result<()> {
    let bytes = match value {
        AttributeValue::S(text) => text.len(),
        AttributeValue::B(blob) => blob.as_ref().len(),
        _ => return Ok(()),
    };
    let reason = if bytes == 0 {
        KeyError::EmptyKey
    } else if bytes > max {
        KeyError::TooLong { bytes, max }
    } else {
        return Ok(());
    };
    Err(Error::InvalidIndexKey { index: index.name, attribute, reason })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::table::{Billing, IndexProjection, ScalarKind};

    /// A table with one index, `ByTitle` (`title_pk`, `title_sk`).
    pub(crate) static TABLE: TableDefinition = TableDefinition {
        name: "T",
        partition_key: "pk",
        sort_key: Some("sk"),
        type_attribute: "_type",
        indexes: &[IndexDefinition {
            local: false,
            name: "ByTitle",
            partition_key: &[KeyAttribute { name: "title_pk", kind: ScalarKind::String }],
            sort_key: &[KeyAttribute { name: "title_sk", kind: ScalarKind::String }],
            projection: IndexProjection::All,
            warm_throughput: None,
        }],
        billing: Billing::PayPerRequest,
        shard_metadata: None,
        ttl: None,
        stream: None,
        deletion_protection: false,
        point_in_time_recovery: false,
        warm_throughput: None,
        tags: &[],
    };

    fn item(pairs: &[(&str, &str)]) -> Item {
        pairs
            .iter()
            .map(|(name, value)| ((*name).to_owned(), AttributeValue::S((*value).to_owned())))
            .collect()
    }

    #[test]
    fn limits_hold_exactly_at_the_boundary() {
        let at_limit = "p".repeat(2_048);
        assert!(
            check_item(&TABLE, &item(&[("title_pk", &at_limit), ("title_sk", &"s".repeat(1_024))])).is_ok()
        );
        let over = format!("{}#1", "p".repeat(2_047)); // a shard suffix past the limit
        let error = check_item(&TABLE, &item(&[("title_pk", &over)])).expect_err("too long");
        let expected = KeyError::TooLong { bytes: 2_049, max: 2_048 };
        assert!(
            matches!(&error, Error::InvalidIndexKey { index: "ByTitle", attribute: "title_pk", reason } if *reason == expected),
            "{error:?}"
        );
        let error = check_item(&TABLE, &item(&[("title_sk", &"s".repeat(1_025))])).expect_err("sort key");
        assert!(matches!(error, Error::InvalidIndexKey { attribute: "title_sk", .. }), "{error:?}");
        assert!(error.is_invalid_input());
        let error = check_item(&TABLE, &item(&[("title_sk", "")])).expect_err("empty");
        assert!(matches!(error, Error::InvalidIndexKey { reason: KeyError::EmptyKey, .. }), "{error:?}");
        assert!(check_item(&TABLE, &item(&[("other", &"x".repeat(5_000))])).is_ok());
    }

    #[test]
    fn range_values_may_not_be_empty() {
        let error = check_range_value(&TABLE, "ByTitle", "title", "").expect_err("empty");
        let expected = KeyError::EmptyValue { field: "title" };
        assert!(
            matches!(&error, Error::InvalidIndexKey { attribute: "title_sk", reason, .. } if *reason == expected)
        );
        assert!(check_range_value(&TABLE, "ByTitle", "title", "a").is_ok());
    }

    #[test]
    fn updates_are_checked_like_items() {
        let long = AttributeValue::S("s".repeat(1_025));
        assert!(matches!(
            check_updates(&TABLE, [("title_sk", &long)]),
            Err(Error::InvalidIndexKey { index: "ByTitle", .. })
        ));
        assert!(check_updates(&TABLE, [("title_sk", &AttributeValue::S("s".into()))]).is_ok());
    }
}
