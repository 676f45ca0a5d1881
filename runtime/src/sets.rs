//! Set fields stored as DynamoDB sets: a `HashSet` or `BTreeSet` field of strings, numbers or
//! bytes is written as a string, number or binary set (serde writes it as a list), an empty set
//! as no attribute at all (DynamoDB has no empty sets), and read back as an empty set when the
//! attribute is missing.

use crate::error::{Error, Item, Result};
use aws_sdk_dynamodb::types::AttributeValue;

/// A set field of an entity: its attribute, and whether the field is an `Option` (then a missing
/// attribute reads as `None`, not as an empty set).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SetAttribute {
    /// The attribute name.
    pub name: &'static str,
    /// Whether the field is an `Option` of a set.
    pub optional: bool,
}

/// Rewrites the set fields of a serialized item as DynamoDB sets; an empty one is removed.
pub(crate) fn store_sets(item: &mut Item, sets: &[SetAttribute]) -> Result<()> {
    for set in sets {
        if let Some(value) = item.remove(set.name) {
            if let Some(value) = as_set(set.name, value)? {
                item.insert(set.name.to_owned(), value);
            }
        }
    }
    Ok(())
}

/// Puts an empty list where a non-optional set field has no attribute, so that it reads as an
/// empty set.
pub(crate) fn read_sets(item: &mut Item, sets: &[SetAttribute]) {
    for set in sets.iter().filter(|set| !set.optional) {
        item.entry(set.name.to_owned()).or_insert_with(|| AttributeValue::L(Vec::new()));
    }
}

/// `value` (a serialized set field) as a DynamoDB set; `None` for an empty one. A value already
/// stored as a set is kept; a list of strings, numbers or binaries becomes a set of them; a
/// list of anything else is an error: DynamoDB sets hold only those.
pub(crate) fn as_set(attribute: &str, value: AttributeValue) -> Result<Option<AttributeValue>> {
    let elements = match value {
        AttributeValue::L(elements) => elements,
        AttributeValue::Null(_) => return Ok(None),
        AttributeValue::Ss(values) if values.is_empty() => return Ok(None),
        AttributeValue::Ns(values) if values.is_empty() => return Ok(None),
        AttributeValue::Bs(values) if values.is_empty() => return Ok(None),
        set @ (AttributeValue::Ss(_) | AttributeValue::Ns(_) | AttributeValue::Bs(_)) => {
            return Ok(Some(set))
        }
        other => return Err(not_a_set(attribute, &format!("a {}", kind(&other)))),
    };
    let Some(first) = elements.first() else { return Ok(None) };
    let set = match first {
        AttributeValue::S(_) => AttributeValue::Ss(collect(attribute, elements, |v| v.as_s().ok().cloned())?),
        AttributeValue::N(_) => AttributeValue::Ns(collect(attribute, elements, |v| v.as_n().ok().cloned())?),
        AttributeValue::B(_) => AttributeValue::Bs(collect(attribute, elements, |v| v.as_b().ok().cloned())?),
        other => return Err(not_a_set(attribute, &format!("elements of type {}", kind(other)))),
    };
    Ok(Some(set))
}

fn collect<T>(
    attribute: &str,
    elements: Vec<AttributeValue>,
    pick: impl Fn(&AttributeValue) -> Option<T>,
) -> Result<Vec<T>> {
    elements
        .iter()
        .map(|element| pick(element).ok_or_else(|| not_a_set(attribute, "elements of several types")))
        .collect()
}

fn not_a_set(attribute: &str, found: &str) -> Error {
    let message = format!(
        "set field `{attribute}` serializes to {found}: DynamoDB sets hold strings, numbers or bytes"
    );
    <serde_dynamo::Error as serde::ser::Error>::custom(message).into()
}

fn kind(value: &AttributeValue) -> &'static str {
    match value {
        AttributeValue::S(_) => "S",
        AttributeValue::N(_) => "N",
        AttributeValue::B(_) => "B",
        AttributeValue::Bool(_) => "BOOL",
        AttributeValue::L(_) => "L",
        AttributeValue::M(_) => "M",
        AttributeValue::Null(_) => "NULL",
        AttributeValue::Ss(_) => "SS",
        AttributeValue::Ns(_) => "NS",
        AttributeValue::Bs(_) => "BS",
        _ => "an unknown type",
    }
}

/// A set field's type: `HashSet<T>` or `BTreeSet<T>` (or an `Option` of one) of strings,
/// numbers or bytes, for [`crate::ops::Update::add_to`] and [`crate::ops::Update::delete_from`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a set: `add_to` and `delete_from` change `HashSet` and `BTreeSet` fields",
    label = "not a set field",
    note = "a list field takes `append`, `prepend` and `remove_at`"
)]
pub trait SetField {
    /// The type of its elements.
    type Element: serde::Serialize;
}

impl<T: serde::Serialize> SetField for std::collections::HashSet<T> {
    type Element = T;
}

impl<T: serde::Serialize> SetField for std::collections::BTreeSet<T> {
    type Element = T;
}

impl<S: SetField> SetField for Option<S> {
    type Element = S::Element;
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_sdk_dynamodb::primitives::Blob;

    fn list(values: Vec<AttributeValue>) -> AttributeValue {
        AttributeValue::L(values)
    }

    #[test]
    fn lists_of_scalars_become_sets_and_empty_ones_vanish() {
        let s = |v: &str| AttributeValue::S(v.into());
        let n = |v: &str| AttributeValue::N(v.into());
        assert_eq!(
            as_set("a", list(vec![s("x"), s("y")])).unwrap(),
            Some(AttributeValue::Ss(vec!["x".into(), "y".into()]))
        );
        assert_eq!(as_set("a", list(vec![n("1")])).unwrap(), Some(AttributeValue::Ns(vec!["1".into()])));
        let blob = AttributeValue::B(Blob::new(vec![1, 2]));
        assert_eq!(
            as_set("a", list(vec![blob])).unwrap(),
            Some(AttributeValue::Bs(vec![Blob::new(vec![1, 2])]))
        );
        assert_eq!(as_set("a", list(vec![])).unwrap(), None);
        assert_eq!(as_set("a", AttributeValue::Ss(vec![])).unwrap(), None);
        assert!(as_set("a", list(vec![s("x"), n("1")])).is_err(), "mixed");
        assert!(as_set("a", list(vec![list(vec![])])).is_err(), "lists of lists");
        assert!(as_set("a", AttributeValue::Bool(true)).is_err());
    }

    #[test]
    fn items_store_and_read_their_sets() {
        let sets =
            [SetAttribute { name: "tags", optional: false }, SetAttribute { name: "extra", optional: true }];
        let mut item = Item::new();
        item.insert("tags".into(), list(vec![]));
        item.insert("extra".into(), list(vec![AttributeValue::S("x".into())]));
        store_sets(&mut item, &sets).unwrap();
        assert!(!item.contains_key("tags"), "an empty set is no attribute");
        assert_eq!(item["extra"], AttributeValue::Ss(vec!["x".into()]));
        item.remove("extra");
        read_sets(&mut item, &sets);
        assert_eq!(item["tags"], list(vec![]), "reads as an empty set");
        assert!(!item.contains_key("extra"), "an optional set reads as None");
    }
}
