//! The ways a live table can differ from its declaration.

use std::fmt;

/// One way a live table differs from its declaration ([`Db::verify_table`](crate::Db::verify_table)).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TableDifference {
    /// The table does not exist.
    Missing,
    /// The table's key schema (`pk`, or `pk, sk`) is another.
    KeySchema {
        /// As declared.
        declared: String,
        /// As found.
        found: String,
    },
    /// A key attribute has another type (`S`, `N`, `B`).
    AttributeType {
        /// The attribute.
        attribute: String,
        /// As declared.
        declared: String,
        /// As found.
        found: String,
    },
    /// A declared index does not exist.
    IndexMissing {
        /// The index.
        index: String,
    },
    /// The table has an index its declaration does not name.
    IndexUndeclared {
        /// The index.
        index: String,
    },
    /// An index's key schema is another.
    IndexKeySchema {
        /// The index.
        index: String,
        /// As declared.
        declared: String,
        /// As found.
        found: String,
    },
    /// An index copies other attributes.
    IndexProjection {
        /// The index.
        index: String,
        /// As declared (`ALL`, `KEYS_ONLY`, or `INCLUDE a, b`).
        declared: String,
        /// As found.
        found: String,
    },
    /// The table is billed another way (or provisioned with other capacity).
    Billing {
        /// As declared.
        declared: String,
        /// As found.
        found: String,
    },
    /// The table's stream is off, on where none is declared, or of another view.
    Stream {
        /// As declared (`NEW_AND_OLD_IMAGES`, ...).
        declared: Option<String>,
        /// As found.
        found: Option<String>,
    },
    /// Deletion protection is on where it is declared off, or the other way round.
    DeletionProtection {
        /// As declared.
        declared: bool,
    },
    /// A declared tag is missing or has another value, or a tag is not declared.
    Tag {
        /// The tag key.
        key: String,
        /// The declared value.
        declared: Option<String>,
        /// The value found.
        found: Option<String>,
    },
    /// Time to live is off, on for another attribute, or on where none is declared.
    TimeToLive {
        /// The declared attribute.
        declared: Option<String>,
        /// The attribute time to live is on for.
        found: Option<String>,
    },
    /// An index is local where it is declared global, or the other way round.
    IndexKind {
        /// The index.
        index: String,
        /// Whether it is declared local.
        declared_local: bool,
    },
    /// Point-in-time recovery is on where it is declared off, or the other way round.
    PointInTimeRecovery {
        /// As declared.
        declared: bool,
    },
    /// The table, or a global index, is prepared for fewer reads or writes per second than
    /// declared.
    WarmThroughput {
        /// The index (`None`: the table).
        index: Option<String>,
        /// As declared (`12000 reads, 4000 writes per second`).
        declared: String,
        /// As found.
        found: String,
    },
}

impl fmt::Display for TableDifference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TableDifference::Missing => write!(f, "the table does not exist"),
            TableDifference::KeySchema { declared, found } => {
                write!(f, "key schema is ({found}), declared ({declared})")
            }
            TableDifference::AttributeType { attribute, declared, found } => {
                write!(f, "attribute `{attribute}` is of type {found}, declared {declared}")
            }
            TableDifference::IndexMissing { index } => write!(f, "index `{index}` does not exist"),
            TableDifference::IndexUndeclared { index } => write!(f, "index `{index}` is not declared"),
            TableDifference::IndexKeySchema { index, declared, found } => {
                write!(f, "index `{index}` has key schema ({found}), declared ({declared})")
            }
            TableDifference::IndexProjection { index, declared, found } => {
                write!(f, "index `{index}` projects {found}, declared {declared}")
            }
            TableDifference::Billing { declared, found } => {
                write!(f, "billing is {found}, declared {declared}")
            }
            TableDifference::Stream { declared, found } => {
                let view = |view: &Option<String>| view.clone().unwrap_or_else(|| "off".to_owned());
                write!(f, "the stream is {}, declared {}", view(found), view(declared))
            }
            TableDifference::DeletionProtection { declared } => {
                let on = |on: bool| if on { "on" } else { "off" };
                write!(f, "deletion protection is {}, declared {}", on(!declared), on(*declared))
            }
            TableDifference::Tag { key, declared, found } => {
                let value =
                    |value: &Option<String>| value.as_ref().map_or("none".to_owned(), |v| format!("`{v}`"));
                write!(f, "tag `{key}` is {}, declared {}", value(found), value(declared))
            }
            TableDifference::TimeToLive { declared, found } => {
                let name = |attribute: &Option<String>| {
                    attribute.as_ref().map_or_else(|| "off".to_owned(), |name| format!("on `{name}`"))
                };
                write!(f, "time to live is {}, declared {}", name(found), name(declared))
            }
            TableDifference::IndexKind { index, declared_local } => {
                let kind = |local: bool| if local { "local" } else { "global" };
                write!(f, "index `{index}` is {}, declared {}", kind(!declared_local), kind(*declared_local))
            }
            TableDifference::PointInTimeRecovery { declared } => {
                let on = |on: bool| if on { "on" } else { "off" };
                write!(f, "point-in-time recovery is {}, declared {}", on(!declared), on(*declared))
            }
            TableDifference::WarmThroughput { index: None, declared, found } => {
                write!(f, "warm throughput is {found}, declared {declared}")
            }
            TableDifference::WarmThroughput { index: Some(index), declared, found } => {
                write!(f, "index `{index}` warm throughput is {found}, declared {declared}")
            }
        }
    }
}
