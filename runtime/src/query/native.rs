//! Queries on multi-attribute index keys, where an index is keyed directly on an entity's own
//! attributes (up to four partition and four sort attributes, each a string, number or binary).
//!
//! Every attribute is compared natively, so numbers order as numbers and any attribute can take a
//! range condition; after a range condition nothing more can be added.

use super::conditions::{Narrow, PrefixCondition, RangeCondition, Sealed};
use super::{Done, Query, QueryTarget};
use crate::error::Error;
use crate::key_record::{attribute_record, AttributeRecord};
use crate::table::ScalarKind;
use aws_sdk_dynamodb::types::AttributeValue;
use std::marker::PhantomData;

/// A field type that can be an attribute of a multi-attribute index key.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an attribute of a multi-attribute index key",
    label = "this field is in the key of a multi-attribute index",
    note = "multi-attribute key fields must be `String` or an integer type"
)]
pub trait NativeKeyPart {
    /// The attribute's DynamoDB type.
    const KIND: ScalarKind;
    /// The argument type queries take (`&str` for `String`).
    type Arg<'a>: Copy
    where
        Self: 'a;
    /// The attribute value of an argument.
    fn to_attribute(arg: Self::Arg<'_>) -> AttributeValue;
    /// Borrows a field value as an argument.
    fn as_arg(&self) -> Self::Arg<'_>;
    /// Whether the value is empty (DynamoDB refuses empty strings in index keys).
    fn is_empty(_arg: Self::Arg<'_>) -> bool {
        false
    }
}

impl NativeKeyPart for String {
    const KIND: ScalarKind = ScalarKind::String;
    type Arg<'a> = &'a str;
    fn to_attribute(arg: &str) -> AttributeValue {
        AttributeValue::S(arg.to_owned())
    }
    fn as_arg(&self) -> &str {
        self
    }
    fn is_empty(arg: &str) -> bool {
        arg.is_empty()
    }
}

macro_rules! native_number {
    ($($ty:ty),*) => {$(
        impl NativeKeyPart for $ty {
            const KIND: ScalarKind = ScalarKind::Number;
            type Arg<'a> = $ty;
            fn to_attribute(arg: $ty) -> AttributeValue {
                AttributeValue::N(arg.to_string())
            }
            fn as_arg(&self) -> $ty {
                *self
            }
        }
    )*};
}
native_number!(u8, u16, u32, u64, i8, i16, i32, i64);

/// Whether two scalar kinds are the same, in constants.
pub const fn same_kind(a: ScalarKind, b: ScalarKind) -> bool {
    a as u8 == b as u8
}

/// The next attribute of a multi-attribute sort key has type `H`; `R` describes the rest.
#[derive(Debug)]
pub struct Native<H, R>(PhantomData<fn() -> (H, R)>);

/// A native comparison on one sort-key attribute.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum NativeCondition {
    Lt(AttributeValue),
    Le(AttributeValue),
    Gt(AttributeValue),
    Ge(AttributeValue),
    Between(AttributeValue, AttributeValue),
    BeginsWith(AttributeValue),
}

/// A native comparison as a query's fingerprint records it.
#[derive(serde::Serialize)]
pub(crate) enum NativeRecord {
    Lt(Option<AttributeRecord>),
    Le(Option<AttributeRecord>),
    Gt(Option<AttributeRecord>),
    Ge(Option<AttributeRecord>),
    Between(Option<AttributeRecord>, Option<AttributeRecord>),
    BeginsWith(Option<AttributeRecord>),
}

impl NativeCondition {
    /// This condition as a query's fingerprint records it.
    pub(crate) fn record(&self) -> NativeRecord {
        match self {
            NativeCondition::Lt(value) => NativeRecord::Lt(attribute_record(value)),
            NativeCondition::Le(value) => NativeRecord::Le(attribute_record(value)),
            NativeCondition::Gt(value) => NativeRecord::Gt(attribute_record(value)),
            NativeCondition::Ge(value) => NativeRecord::Ge(attribute_record(value)),
            NativeCondition::Between(low, high) => {
                NativeRecord::Between(attribute_record(low), attribute_record(high))
            }
            NativeCondition::BeginsWith(value) => NativeRecord::BeginsWith(attribute_record(value)),
        }
    }
}

impl<E, F> Query<E, F> {
    /// A query of a multi-attribute index partition. Generated code calls this.
    #[doc(hidden)]
    pub fn new_native(target: QueryTarget, partition: Vec<(&'static str, AttributeValue)>) -> Self {
        let empty = partition
            .iter()
            .find(|(_, value)| value.as_s().is_ok_and(String::is_empty))
            .map(|(name, _)| *name);
        let mut query = Query::new(target, Ok(String::new()));
        query.plan.native_partition = partition;
        if let Some(attribute) = empty {
            query.fail(Error::InvalidQuery {
                reason: format!("the value of index key attribute `{attribute}` is empty"),
            });
        }
        query
    }

    fn next_native_attribute(&self) -> Option<&'static str> {
        let index = self.plan.index?;
        index.sort_key.get(self.plan.native_sort.len()).map(|attribute| attribute.name)
    }

    fn native_range(mut self, condition: NativeCondition) -> Query<E, Done> {
        if let NativeCondition::Between(low, high) = &condition {
            if crate::numbers::reversed(low, high) {
                self.fail(super::range::reversed_between());
            }
        }
        if let Some(attribute) = self.next_native_attribute() {
            self.plan.native_range = Some((attribute, condition));
        }
        self.retype()
    }
}

impl<H, R> Sealed for Native<H, R> {}

impl<H: NativeKeyPart, R> Narrow for Native<H, R> {
    type Arg<'a>
        = H::Arg<'a>
    where
        Self: 'a;
    type Rest = R;

    fn eq<E>(mut query: Query<E, Self>, value: H::Arg<'_>) -> Query<E, R> {
        if let Some(attribute) = query.next_native_attribute() {
            query.plan.native_sort.push((attribute, H::to_attribute(value)));
        }
        query.retype()
    }
}

impl<H: NativeKeyPart, R> RangeCondition for Native<H, R> {
    fn lt<E>(query: Query<E, Self>, value: H::Arg<'_>) -> Query<E, Done> {
        query.native_range(NativeCondition::Lt(H::to_attribute(value)))
    }

    fn le<E>(query: Query<E, Self>, value: H::Arg<'_>) -> Query<E, Done> {
        query.native_range(NativeCondition::Le(H::to_attribute(value)))
    }

    fn gt<E>(query: Query<E, Self>, value: H::Arg<'_>) -> Query<E, Done> {
        query.native_range(NativeCondition::Gt(H::to_attribute(value)))
    }

    fn ge<E>(query: Query<E, Self>, value: H::Arg<'_>) -> Query<E, Done> {
        query.native_range(NativeCondition::Ge(H::to_attribute(value)))
    }

    fn between<E>(query: Query<E, Self>, low: H::Arg<'_>, high: H::Arg<'_>) -> Query<E, Done> {
        query.native_range(NativeCondition::Between(H::to_attribute(low), H::to_attribute(high)))
    }
}

impl<R> PrefixCondition for Native<String, R> {
    fn begins_with<E>(query: Query<E, Self>, prefix: &str) -> Query<E, Done> {
        query.native_range(NativeCondition::BeginsWith(AttributeValue::S(prefix.to_owned())))
    }
}
