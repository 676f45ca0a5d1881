//! Paths below a field, for conditions on nested values: an entry of a map field
//! (`fields.ratings.get("press")`), an element of a list field (`fields.tags.at(0)`), and so on
//! down.

use super::Placeholders;
use crate::entity::Field;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::marker::PhantomData;

/// An attribute, or a value nested in one, as a condition names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AttributePath {
    root: &'static str,
    steps: Vec<Step>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Key(String),
    Index(usize),
}

impl From<&'static str> for AttributePath {
    fn from(root: &'static str) -> Self {
        AttributePath { root, steps: Vec::new() }
    }
}

impl AttributePath {
    /// The path in an expression: every name a placeholder, list indexes as `[n]`.
    pub(crate) fn render(&self, placeholders: &mut Placeholders) -> String {
        let mut text = placeholders.name(self.root);
        for step in &self.steps {
            match step {
                Step::Key(key) => {
                    text.push('.');
                    text.push_str(&placeholders.name(key));
                }
                Step::Index(index) => text.push_str(&format!("[{index}]")),
            }
        }
        text
    }

    /// The attribute the path starts at.
    pub(crate) fn root(&self) -> &'static str {
        self.root
    }

    /// Whether the path is a whole attribute, not a value nested in one.
    pub(crate) fn is_attribute(&self) -> bool {
        self.steps.is_empty()
    }

    /// Whether this path and `other` name the same value, or one lies within the other: two
    /// actions of one update may not (DynamoDB refuses overlapping paths).
    pub(crate) fn overlaps(&self, other: &AttributePath) -> bool {
        self.root == other.root && self.steps.iter().zip(&other.steps).all(|(a, b)| a == b)
    }

    /// The value at this path in `item`, if it holds one there.
    pub(crate) fn value_in<'a>(
        &self,
        item: &'a crate::error::Item,
    ) -> Option<&'a aws_sdk_dynamodb::types::AttributeValue> {
        use aws_sdk_dynamodb::types::AttributeValue;
        self.steps.iter().try_fold(item.get(self.root)?, |value, step| match (step, value) {
            (Step::Key(key), AttributeValue::M(map)) => map.get(key),
            (Step::Index(index), AttributeValue::L(list)) => list.get(*index),
            _ => None,
        })
    }

    /// The last list element the path goes through: the list's path and the element's index.
    pub(crate) fn last_element(&self) -> Option<(AttributePath, usize)> {
        let at = self.steps.iter().rposition(|step| matches!(step, Step::Index(_)))?;
        let Step::Index(index) = self.steps[at] else { return None };
        Some((AttributePath { root: self.root, steps: self.steps[..at].to_vec() }, index))
    }

    /// The element at `index` of the list at this path.
    pub(crate) fn at(self, index: usize) -> Self {
        self.then(Step::Index(index))
    }

    fn then(mut self, step: Step) -> Self {
        self.steps.push(step);
        self
    }
}

impl fmt::Display for AttributePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.root)?;
        for step in &self.steps {
            match step {
                Step::Key(key) => write!(f, ".{key}")?,
                Step::Index(index) => write!(f, "[{index}]")?,
            }
        }
        Ok(())
    }
}

/// A value of type `T` nested in a field of entity `E`: it takes the conditions a field does.
///
/// ```
/// # use dynashard::{Entity, Table};
/// # use serde::{Deserialize, Serialize};
/// # use std::collections::HashMap;
/// # #[derive(Table)] #[table(name = "Music", pk = "pk", sk = "sk")] struct Music;
/// #[derive(Entity, Serialize, Deserialize)]
/// #[entity(table = Music, pk = "{artist}", sk = "album#{title}")]
/// struct Album { artist: String, title: String, ratings: HashMap<String, u8>, credits: Vec<Vec<String>> }
///
/// let fields = Album::fields();
/// let acclaimed = fields.ratings.get("press").ge(4);
/// let produced = fields.credits.at(0).at(1).eq("producer");
/// # drop((acclaimed, produced));
/// ```
pub struct NestedField<E, T> {
    path: AttributePath,
    types: PhantomData<fn() -> (E, T)>,
}

impl<E, T> Clone for NestedField<E, T> {
    fn clone(&self) -> Self {
        NestedField { path: self.path.clone(), types: PhantomData }
    }
}

impl<E, T> fmt::Debug for NestedField<E, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("NestedField").field(&self.path.to_string()).finish()
    }
}

impl<E, T> NestedField<E, T> {
    pub(super) fn path(self) -> AttributePath {
        self.path
    }

    /// The field `name` of this struct value. Generated code (`#[derive(Nested)]`) calls this.
    #[doc(hidden)]
    pub fn member<U>(&self, name: &'static str) -> NestedField<E, U> {
        NestedField { path: self.path.clone().then(Step::Key(name.to_owned())), types: PhantomData }
    }
}

/// A field of entity `E` holding a `T`, or a value of type `T` nested in one: what an update
/// writes ([`crate::ops::Update::set`] and the other actions take either).
#[diagnostic::on_unimplemented(
    message = "this update action needs a field holding `{T}`",
    label = "`{Self}` holds another type",
    note = "lists take `append`, `prepend` and `remove_at`; sets take `add_to` and `delete_from`; \
            numbers take `add` and `subtract`"
)]
pub trait FieldPath<E, T>: sealed::Sealed {
    /// Where the value is.
    #[doc(hidden)]
    fn update_target(self) -> UpdateTarget;
}

/// Where an update writes. Only dynashard builds one.
#[doc(hidden)]
#[derive(Debug, Clone)]
pub struct UpdateTarget {
    pub(crate) path: AttributePath,
}

mod sealed {
    /// Only field handles and nested values are paths.
    pub trait Sealed {}
    impl<E, T> Sealed for crate::entity::Field<E, T> {}
    impl<E, T> Sealed for super::NestedField<E, T> {}
}

impl<E, T> FieldPath<E, T> for Field<E, T> {
    fn update_target(self) -> UpdateTarget {
        UpdateTarget { path: self.path() }
    }
}

impl<E, T> FieldPath<E, T> for NestedField<E, T> {
    fn update_target(self) -> UpdateTarget {
        UpdateTarget { path: self.path }
    }
}

/// A struct stored as a map attribute inside an entity (`#[derive(Nested)]`), whose fields
/// conditions can name: `.fields()` on a field (or nested value) of its type gives a handle on
/// each of its fields.
///
/// ```
/// # use dynashard::{Entity, Nested, Table};
/// # use serde::{Deserialize, Serialize};
/// # #[derive(Table)] #[table(name = "Shop", pk = "pk", sk = "sk")] struct Shop;
/// #[derive(Nested, Serialize, Deserialize)]
/// struct Address { city: String, zip: String }
///
/// #[derive(Entity, Serialize, Deserialize)]
/// #[entity(table = Shop, pk = "order#{id}", sk = "order")]
/// struct Order { id: String, address: Address, previous: Option<Address> }
///
/// let in_oslo = Order::fields().address.fields().city.eq("Oslo");
/// let moved = Order::fields().previous.fields().zip.begins_with("03");
/// # drop((in_oslo, moved));
/// ```
pub trait Nested {
    /// The handles on its fields, below an entity `E`'s attribute.
    type Fields<E>;

    /// The handles on its fields, below `parent`.
    fn fields<E>(parent: &NestedField<E, Self>) -> Self::Fields<E>
    where
        Self: Sized;
}

/// `.fields()` on struct-valued handles, written once for field handles and nested values.
macro_rules! members {
    ($handle:ident) => {
        impl<E, T: Nested> $handle<E, T> {
            /// Handles on the fields of this struct value.
            pub fn fields(self) -> T::Fields<E> {
                T::fields(&NestedField::<E, T> { path: self.path(), types: PhantomData })
            }
        }

        impl<E, T: Nested> $handle<E, Option<T>> {
            /// Handles on the fields of this struct value, when present.
            pub fn fields(self) -> T::Fields<E> {
                T::fields(&NestedField::<E, T> { path: self.path(), types: PhantomData })
            }
        }
    };
}

/// `.get(key)` on map fields and `.at(index)` on list fields, written once for field handles and
/// nested values.
macro_rules! nesting {
    ($handle:ident) => {
        impl<E, V> $handle<E, HashMap<String, V>> {
            /// The map's entry `key`.
            pub fn get(self, key: impl Into<String>) -> NestedField<E, V> {
                NestedField { path: self.path().then(Step::Key(key.into())), types: PhantomData }
            }
        }

        impl<E, V> $handle<E, BTreeMap<String, V>> {
            /// The map's entry `key`.
            pub fn get(self, key: impl Into<String>) -> NestedField<E, V> {
                NestedField { path: self.path().then(Step::Key(key.into())), types: PhantomData }
            }
        }

        impl<E, T> $handle<E, Vec<T>> {
            /// The list's element at `index` (from 0).
            pub fn at(self, index: usize) -> NestedField<E, T> {
                NestedField { path: self.path().then(Step::Index(index)), types: PhantomData }
            }
        }
    };
}

impl<E, T> Field<E, T> {
    pub(super) fn path(self) -> AttributePath {
        AttributePath::from(self.name())
    }
}

nesting!(Field);
nesting!(NestedField);
members!(Field);
members!(NestedField);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_render_with_a_placeholder_per_name() {
        let path = AttributePath::from("ratings").then(Step::Key("press.uk".into())).then(Step::Index(2));
        let mut placeholders = Placeholders::default();
        assert_eq!(path.render(&mut placeholders), "#ds0.#ds1[2]");
        let names = placeholders.take_names().unwrap();
        assert_eq!(names["#ds1"], "press.uk", "a dot in a key stays one name");
        assert_eq!(path.to_string(), "ratings.press.uk[2]");
    }
}
