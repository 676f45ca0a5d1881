//! What a batch call hands back when it gives up: everything DynamoDB did not process, and every
//! write whose outcome is unknown.

use super::{Error, Item};
use crate::primary_key::PrimaryKey;

/// The part of a batch call that was not processed when the call gave up, carried by
/// [`Error::BatchIncomplete`]: its `unprocessed` writes or keys (certainly not applied), and
/// apart from them its `unknown` writes (sent, but DynamoDB's answer never came: each may or may
/// not be stored). Nothing is dropped: resend these later, or inspect them.
///
/// ```no_run
/// # async fn example(db: dynashard::Db, songs: Vec<impl dynashard::Entity>) -> dynashard::Result<()> {
/// use dynashard::{Error, Unprocessed};
///
/// match db.batch_put(&songs).await {
///     Ok(()) => {}
///     Err(Error::BatchIncomplete { unprocessed: Unprocessed::Writes { puts, deletes }, unknown, succeeded, .. }) => {
///         eprintln!("{succeeded} written, {} puts and {} deletes left", puts.len(), deletes.len());
///         eprintln!("{} sent without an answer: stored or not", unknown.len());
///     }
///     Err(other) => return Err(other),
/// }
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Unprocessed {
    /// The writes of a batch write that were not applied.
    Writes {
        /// Complete items (key and entity-type attributes included) still to put.
        puts: Vec<Item>,
        /// Key items still to delete: the table's key attributes, and the entity-type attribute
        /// naming the delete's entity type (take it out to send one with the SDK).
        deletes: Vec<Item>,
    },
    /// The distinct keys of a batch get that were not read, in input order.
    Keys(Vec<PrimaryKey>),
}

impl Unprocessed {
    /// How many writes or keys are unprocessed.
    ///
    /// ```
    /// let left = dynashard::Unprocessed::Writes { puts: vec![Default::default()], deletes: vec![] };
    /// assert_eq!(left.len(), 1);
    /// ```
    pub fn len(&self) -> usize {
        match self {
            Unprocessed::Writes { puts, deletes } => puts.len() + deletes.len(),
            Unprocessed::Keys(keys) => keys.len(),
        }
    }

    /// Whether nothing is unprocessed.
    ///
    /// ```
    /// assert!(dynashard::Unprocessed::Keys(vec![]).is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Error {
    /// Whether a batch call gave up with unprocessed writes or keys
    /// ([`Error::BatchIncomplete`]).
    ///
    /// ```
    /// use dynashard::{Error, Unprocessed};
    /// let error = Error::BatchIncomplete {
    ///     operation: "BatchGetItem",
    ///     unprocessed: Unprocessed::Keys(vec![]),
    ///     unknown: Box::new(Unprocessed::Keys(vec![])),
    ///     succeeded: 0,
    ///     last_error: None,
    /// };
    /// assert!(error.is_batch_incomplete());
    /// ```
    pub fn is_batch_incomplete(&self) -> bool {
        matches!(self, Error::BatchIncomplete { .. })
    }

    /// The unprocessed writes or keys of [`Error::BatchIncomplete`].
    ///
    /// ```
    /// use dynashard::{Error, Unprocessed};
    /// let error = Error::BatchIncomplete {
    ///     operation: "BatchGetItem",
    ///     unprocessed: Unprocessed::Keys(vec![]),
    ///     unknown: Box::new(Unprocessed::Keys(vec![])),
    ///     succeeded: 3,
    ///     last_error: None,
    /// };
    /// assert_eq!(error.unprocessed(), Some(&Unprocessed::Keys(vec![])));
    /// ```
    pub fn unprocessed(&self) -> Option<&Unprocessed> {
        match self {
            Error::BatchIncomplete { unprocessed, .. } => Some(unprocessed),
            _ => None,
        }
    }

    /// The writes of [`Error::BatchIncomplete`] whose outcome is unknown: each may or may not
    /// be stored (see [`Error::outcome_unknown`]).
    pub fn unknown(&self) -> Option<&Unprocessed> {
        match self {
            Error::BatchIncomplete { unknown, .. } => Some(unknown.as_ref()),
            _ => None,
        }
    }
}

/// The part of [`Error::BatchIncomplete`]'s message that counts writes of unknown outcome.
pub(super) fn unknown_part(unknown: &Unprocessed) -> String {
    match unknown.len() {
        0 => String::new(),
        writes => format!(" and {writes} of unknown outcome"),
    }
}
