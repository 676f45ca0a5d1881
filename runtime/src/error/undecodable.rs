//! An item that was read but does not decode as the type asked for.

use crate::primary_key::PrimaryKey;

/// An item read from the table that does not decode as the type asked for: written by another
/// program or an older version of the entity, or edited by hand. Carried by
/// [`Error::Undecodable`](super::Error::Undecodable).
///
/// Reads of many items go on past it: a [`QueryStream`](crate::QueryStream) or
/// [`ScanStream`](crate::ScanStream) yields it as an error and then the items after it, a
/// [`Page`](crate::Page) lists it in [`Page::undecodable`](crate::Page::undecodable), and
/// [`BatchGet::per_key`](crate::ops::BatchGet::per_key) gives it in its key's place; each is counted
/// in [`StatsSnapshot::undecodable`](crate::query::StatsSnapshot::undecodable) where the read has stats.
///
/// ```
/// use dynashard::{PrimaryKey, Undecodable};
/// let bad = Undecodable {
///     expected: "Song",
///     key: PrimaryKey { pk: "Solar Fields".into(), sk: Some("song#Air".into()) },
///     reason: "invalid type: string \"long\", expected u32".into(),
/// };
/// assert!(bad.to_string().contains("song#Air"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the item at {} does not decode as `{expected}`: {reason}", shown(key))]
pub struct Undecodable {
    /// The type it was read as (an entity, a collection or a view).
    pub expected: &'static str,
    /// The item's primary key in the table.
    pub key: PrimaryKey,
    /// What did not decode.
    pub reason: String,
}

fn shown(key: &PrimaryKey) -> String {
    match &key.sk {
        Some(sk) => format!("pk {:?}, sk {sk:?}", key.pk),
        None => format!("pk {:?}", key.pk),
    }
}
