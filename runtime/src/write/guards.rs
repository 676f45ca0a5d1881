//! Turning a failed conditional write into the precise error: version conflict, already exists,
//! not found, frozen, or the caller's own condition.

use crate::entity::Entity;
use crate::error::{Error, Item};
use crate::expression::Condition;
use crate::item::{number_attribute, table_of};
use aws_sdk_dynamodb::types::AttributeValue;

/// The guards a write adds to its condition, remembered to explain a failure.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Guards {
    /// Optimistic locking: the version the stored item must have (`0`: must not exist).
    pub expected_version: Option<u64>,
    /// The item must not exist yet.
    pub create_only: bool,
    /// The item must exist already.
    pub must_exist: bool,
    /// The item must not exist, because a batched backfill of this index holds existing items
    /// of the entity frozen.
    pub frozen: Option<&'static str>,
}

impl Guards {
    /// The condition these guards stand for, joined with the caller's condition.
    pub fn condition<E: Entity>(&self, user: Option<Condition>) -> Option<Condition> {
        let partition_key = table_of::<E>().partition_key;
        let mut parts = Vec::new();
        if self.create_only || self.frozen.is_some() {
            parts.push(Condition::not_exists(partition_key));
        }
        if self.must_exist {
            parts.push(Condition::exists(partition_key));
        }
        if let (Some(expected), Some(attribute)) = (self.expected_version, E::VERSION_ATTRIBUTE) {
            parts.push(if expected == 0 {
                Condition::not_exists(partition_key)
            } else {
                Condition::compare_number(attribute, expected)
            });
        }
        parts.extend(user);
        parts.into_iter().reduce(Condition::and)
    }

    /// The error for a write whose condition failed, given the stored item DynamoDB returned.
    pub fn failure<E: Entity>(&self, current: Option<Item>) -> Error {
        if let (Some(index), Some(_), false) = (self.frozen, &current, self.create_only) {
            return Error::Frozen { entity: E::TYPE_NAME, index: index.to_owned() };
        }
        if let (Some(expected), Some(attribute)) = (self.expected_version, E::VERSION_ATTRIBUTE) {
            let found = current.as_ref().and_then(|item| number_attribute(item, attribute));
            let conflict = match current {
                None => expected != 0,
                Some(_) => expected == 0 || found != Some(expected),
            };
            if conflict && !(self.must_exist && current.is_none()) {
                return Error::VersionConflict { expected, found };
            }
        }
        if self.create_only && current.is_some() {
            return Error::AlreadyExists;
        }
        if self.must_exist && current.is_none() {
            return Error::NotFound;
        }
        Error::ConditionFailed { current: current.map(Box::new) }
    }
}

/// The version value written for an item that was at `version`.
pub(crate) fn next_version(version: u64) -> AttributeValue {
    AttributeValue::N(version.saturating_add(1).to_string())
}
