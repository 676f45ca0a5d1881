//! Conditions through typed field handles: comparisons, ranges, membership, sizes, types,
//! prefixes and containment, each rendered with generated placeholders.

use super::path::{AttributePath, NestedField};
use super::{Comparison, Condition, Node};
use crate::entity::{Entity, Field};
use crate::error::Result;
use crate::field_value::FieldValue;
use aws_sdk_dynamodb::types::AttributeValue;
use serde::Serialize;
use std::collections::{BTreeSet, HashSet};

/// DynamoDB's limit of values in one `IN` list.
const MAX_IN_VALUES: usize = 100;

/// The size of an attribute, to compare with a number: `fields.tags.size().gt(3)`.
#[derive(Debug, Clone)]
pub struct AttributeSize {
    path: AttributePath,
}

impl AttributeSize {
    fn compare(self, op: Comparison, size: u64) -> Condition {
        Condition(Node::Size(self.path, op, size))
    }
    /// The size equals `size`.
    pub fn eq(self, size: u64) -> Condition {
        self.compare(Comparison::Eq, size)
    }
    /// The size differs from `size`.
    pub fn ne(self, size: u64) -> Condition {
        self.compare(Comparison::Ne, size)
    }
    /// The size is below `size`.
    pub fn lt(self, size: u64) -> Condition {
        self.compare(Comparison::Lt, size)
    }
    /// The size is at most `size`.
    pub fn le(self, size: u64) -> Condition {
        self.compare(Comparison::Le, size)
    }
    /// The size is above `size`.
    pub fn gt(self, size: u64) -> Condition {
        self.compare(Comparison::Gt, size)
    }
    /// The size is at least `size`.
    pub fn ge(self, size: u64) -> Condition {
        self.compare(Comparison::Ge, size)
    }
}

/// How DynamoDB stores an attribute, for [`Field::is_type`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttributeType {
    /// `S`.
    String,
    /// `N`.
    Number,
    /// `B`.
    Binary,
    /// `BOOL`.
    Bool,
    /// `NULL`.
    Null,
    /// `L`.
    List,
    /// `M`.
    Map,
    /// `SS`.
    StringSet,
    /// `NS`.
    NumberSet,
    /// `BS`.
    BinarySet,
}

impl AttributeType {
    /// DynamoDB's name of the type.
    pub fn code(self) -> &'static str {
        match self {
            AttributeType::String => "S",
            AttributeType::Number => "N",
            AttributeType::Binary => "B",
            AttributeType::Bool => "BOOL",
            AttributeType::Null => "NULL",
            AttributeType::List => "L",
            AttributeType::Map => "M",
            AttributeType::StringSet => "SS",
            AttributeType::NumberSet => "NS",
            AttributeType::BinarySet => "BS",
        }
    }
}

/// The condition methods of a field handle and of a path below one, written once.
macro_rules! conditions {
    ($handle:ident) => {
        impl<E: Entity, T: Serialize> $handle<E, T> {
            /// The attribute equals `value` (an empty set field: the attribute is missing, as
            /// DynamoDB stores no empty sets).
            pub fn eq(self, value: impl FieldValue<T>) -> Condition {
                stored_compare::<E>(self.path(), Comparison::Eq, value.to_attribute())
            }
            /// The attribute differs from `value`.
            pub fn ne(self, value: impl FieldValue<T>) -> Condition {
                stored_compare::<E>(self.path(), Comparison::Ne, value.to_attribute())
            }
            /// The attribute is less than `value`.
            pub fn lt(self, value: impl FieldValue<T>) -> Condition {
                Condition::compare(self.path(), Comparison::Lt, value.to_attribute())
            }
            /// The attribute is at most `value`.
            pub fn le(self, value: impl FieldValue<T>) -> Condition {
                Condition::compare(self.path(), Comparison::Le, value.to_attribute())
            }
            /// The attribute is greater than `value`.
            pub fn gt(self, value: impl FieldValue<T>) -> Condition {
                Condition::compare(self.path(), Comparison::Gt, value.to_attribute())
            }
            /// The attribute is at least `value`.
            pub fn ge(self, value: impl FieldValue<T>) -> Condition {
                Condition::compare(self.path(), Comparison::Ge, value.to_attribute())
            }
            /// The attribute exists.
            pub fn exists(self) -> Condition {
                Condition(Node::Exists(self.path()))
            }
            /// The attribute does not exist.
            pub fn not_exists(self) -> Condition {
                Condition(Node::NotExists(self.path()))
            }
            /// The attribute is from `low` to `high`, both included.
            pub fn between(self, low: impl FieldValue<T>, high: impl FieldValue<T>) -> Condition {
                let path = self.path();
                Condition::built((|| Ok(Node::Between(path, low.to_attribute()?, high.to_attribute()?)))())
            }
            /// The attribute equals one of `values` (1 to 100 of them, DynamoDB's limit).
            pub fn is_in<V: FieldValue<T>>(self, values: impl IntoIterator<Item = V>) -> Condition {
                let path = self.path();
                let values: Result<Vec<AttributeValue>> =
                    values.into_iter().map(|value| value.to_attribute()).collect();
                match values.map(|values| (values.len(), values)) {
                    Ok((1..=MAX_IN_VALUES, values)) => Condition(Node::In(path, values)),
                    Ok((count, _)) => Condition::refused(format!(
                        "`{path} IN (...)` takes 1 to {MAX_IN_VALUES} values, not {count}"
                    )),
                    Err(error) => Condition::built(Err(error)),
                }
            }
            /// The size of the attribute, to compare: a string's length in bytes, a binary's, the
            /// number of elements of a list, set or map.
            pub fn size(self) -> AttributeSize {
                AttributeSize { path: self.path() }
            }
            /// The attribute is stored as `kind`.
            pub fn is_type(self, kind: AttributeType) -> Condition {
                Condition(Node::Type(self.path(), kind))
            }
        }

        impl<E> $handle<E, String> {
            /// The string attribute starts with `prefix`.
            pub fn begins_with(self, prefix: impl Into<String>) -> Condition {
                Condition(Node::BeginsWith(self.path(), prefix.into()))
            }
            /// The string attribute contains `text`.
            pub fn contains(self, text: &str) -> Condition {
                Condition(Node::Contains(self.path(), AttributeValue::S(text.to_owned())))
            }
        }

        impl<E> $handle<E, Option<String>> {
            /// The string attribute starts with `prefix` (an absent one does not).
            pub fn begins_with(self, prefix: impl Into<String>) -> Condition {
                Condition(Node::BeginsWith(self.path(), prefix.into()))
            }
            /// The string attribute contains `text` (an absent one does not).
            pub fn contains(self, text: &str) -> Condition {
                Condition(Node::Contains(self.path(), AttributeValue::S(text.to_owned())))
            }
        }

        contains_element!($handle: Vec, BTreeSet, HashSet);
    };
}

/// A comparison with `value` as the attribute at `path` stores it: a whole set field of `E` as a
/// DynamoDB set, an empty one as no attribute.
fn stored_compare<E: Entity>(
    path: AttributePath,
    op: Comparison,
    value: Result<AttributeValue>,
) -> Condition {
    let set = path.is_attribute() && E::SETS.iter().any(|set| set.name == path.root());
    if !set {
        return Condition::compare(path, op, value);
    }
    match value.and_then(|value| crate::sets::as_set(path.root(), value)) {
        Ok(Some(set)) => Condition(Node::Compare(path, op, set)),
        Ok(None) if op == Comparison::Eq => Condition(Node::NotExists(path)),
        Ok(None) => Condition(Node::Exists(path)),
        Err(error) => Condition::built(Err(error)),
    }
}

/// Collections whose elements `contains` looks for.
macro_rules! contains_element {
    ($handle:ident: $($collection:ident),*) => {$(
        impl<E, T: Serialize> $handle<E, $collection<T>> {
            /// The list or set attribute holds `element`.
            pub fn contains(self, element: impl FieldValue<T>) -> Condition {
                let path = self.path();
                Condition::built(element.to_attribute().map(|element| Node::Contains(path, element)))
            }
        }
    )*};
}

conditions!(Field);
conditions!(NestedField);
