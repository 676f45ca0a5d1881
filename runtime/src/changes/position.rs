//! Where a record stands in its item's history: its sequence number, as text that sorts the way
//! the numbers do, so that a handler can store it with what it writes and refuse an older record.

use super::ChangeRecord;
use crate::entity::{Entity, Field};
use crate::error::{Error, Result};
use crate::expression::Condition;
use crate::field_value::FieldValue;
use serde::Serialize;
use std::fmt;

/// A record's sequence number, zero-padded to [`StreamPosition::WIDTH`] digits: positions
/// compare as the numbers do, as `String`s and as DynamoDB compares strings.
///
/// The stream publishes one item's changes in the order they were made, and a shard's children
/// hold records after their parent's, so the positions of one item's records grow with its
/// history. A handler that stores the position of the record it applied, and writes only where
/// the stored position is lower ([`StreamPosition::is_after`]), applies each record once and
/// never an older one after a newer one, however often a batch is retried or split.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct StreamPosition(String);

impl StreamPosition {
    /// The digits of every position: the longest sequence number DynamoDB Streams gives.
    pub const WIDTH: usize = 40;

    /// The position of a sequence number: 1 to [`WIDTH`](Self::WIDTH) ASCII digits, or an
    /// [`Error::InvalidChangeRecord`] (a record's fields are untrusted input).
    pub fn parse(sequence_number: &str) -> Result<Self> {
        let digits = sequence_number.len();
        if digits == 0 || digits > Self::WIDTH || !sequence_number.bytes().all(|byte| byte.is_ascii_digit()) {
            let shown: String = sequence_number.chars().take(48).collect();
            return Err(Error::InvalidChangeRecord {
                reason: format!("`{shown}` is not a sequence number (1 to {} digits)", Self::WIDTH),
                event_id: None,
                sequence_number: None,
            });
        }
        Ok(StreamPosition(format!("{sequence_number:0>width$}", width = Self::WIDTH)))
    }

    /// The padded digits: what to store.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The condition "the item holds no position at or after this one in `field`": a write on it
    /// lands when the record is newer than what the item last applied, and is refused
    /// ([`Error::ConditionFailed`]) for a record applied already or older than one applied.
    ///
    /// ```
    /// # use dynashard::{Entity, Table};
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Table)]
    /// # #[table(name = "Views", pk = "pk", sk = "sk")]
    /// # struct Views;
    /// #[derive(Entity, Serialize, Deserialize)]
    /// #[entity(table = Views, pk = "order#{id}", sk = "view")]
    /// struct OrderView { id: String, total_cents: u64, position: String }
    ///
    /// async fn apply(db: &dynashard::Db, record: &dynashard::changes::ChangeRecord, mut view: OrderView)
    ///     -> dynashard::Result<()> {
    ///     let position = record.position()?;
    ///     view.position = position.as_str().to_owned();
    ///     match db.put(&view).condition(position.is_after(OrderView::fields().position)).await {
    ///         Err(dynashard::Error::ConditionFailed { .. }) => Ok(()), // applied, or a newer one was
    ///         other => other,
    ///     }
    /// }
    /// ```
    pub fn is_after<E: Entity, T: Serialize>(&self, field: Field<E, T>) -> Condition
    where
        String: FieldValue<T>,
    {
        field.not_exists().or(field.lt(self.0.clone()))
    }
}

impl fmt::Display for StreamPosition {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(&self.0)
    }
}

impl ChangeRecord {
    /// The record's [`StreamPosition`]; an [`Error::InvalidChangeRecord`] naming the record when
    /// it has no sequence number or one that is not.
    pub fn position(&self) -> Result<StreamPosition> {
        let named = |reason: String| Error::InvalidChangeRecord {
            reason,
            event_id: self.event_id.clone(),
            sequence_number: self.sequence_number.clone(),
        };
        let Some(sequence_number) = &self.sequence_number else {
            return Err(named("the record has no sequence number".to_owned()));
        };
        StreamPosition::parse(sequence_number).map_err(|error| match error {
            Error::InvalidChangeRecord { reason, .. } => named(reason),
            other => other,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_sort_as_the_numbers_do() {
        let numbers =
            ["9", "10", "000000000000000000001", "100000000000000000000", "4421584500000000017450439091"];
        let mut positions: Vec<StreamPosition> =
            numbers.iter().map(|number| StreamPosition::parse(number).expect("a position")).collect();
        positions.sort();
        let values: Vec<u128> =
            positions.iter().map(|position| position.as_str().parse().expect("digits")).collect();
        let mut sorted = values.clone();
        sorted.sort_unstable();
        assert_eq!(values, sorted);
        assert!(positions.iter().all(|position| position.as_str().len() == StreamPosition::WIDTH));
        let widest = "9".repeat(StreamPosition::WIDTH);
        assert_eq!(StreamPosition::parse(&widest).expect("40 digits").as_str(), widest);
    }

    #[test]
    fn what_is_not_a_sequence_number_is_refused_naming_it() {
        let long = "1".repeat(StreamPosition::WIDTH + 1);
        let huge = "x".repeat(1_000_000);
        for bad in ["", "-1", "+1", "1e5", " 1", "1 ", "١٢", "0x10", long.as_str(), huge.as_str()] {
            let error = StreamPosition::parse(bad).expect_err(bad);
            assert!(matches!(error, Error::InvalidChangeRecord { .. }), "{bad}: {error}");
            assert!(error.to_string().len() < 300, "the message stays short: {}", error.to_string().len());
        }
    }

    #[test]
    fn a_record_names_itself_when_its_position_is_missing_or_bad() {
        let mut record = ChangeRecord::new(super::super::ChangeKind::Insert, Default::default());
        record.event_id = Some("e-1".to_owned());
        let Err(Error::InvalidChangeRecord { event_id, sequence_number, .. }) = record.position() else {
            panic!("no sequence number is an error");
        };
        assert_eq!((event_id.as_deref(), sequence_number), (Some("e-1"), None));
        record.sequence_number = Some("12a".to_owned());
        let Err(Error::InvalidChangeRecord { sequence_number, .. }) = record.position() else {
            panic!("a bad sequence number is an error");
        };
        assert_eq!(sequence_number.as_deref(), Some("12a"));
        record.sequence_number = Some("12".to_owned());
        assert_eq!(record.position().expect("a position").as_str(), format!("{:0>40}", 12));
    }
}
