//! Comparing a live table with its declaration: `db.verify_table::<T>()` reads the table
//! (`DescribeTable`, `DescribeTimeToLive`) and lists every way it differs from `T::DEFINITION`.

use crate::db::Db;
use crate::error::{Error, Result};
use crate::table::{Billing, IndexDefinition, IndexProjection, Table, TableDefinition};
use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::types::{BillingMode, KeyType, TableDescription};
use std::collections::HashMap;
use std::fmt;

/// One way a live table differs from its declaration ([`Db::verify_table`]).
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
        }
    }
}

/// What `DescribeTable` and `DescribeTimeToLive` say of a table, in the terms of a declaration.
#[derive(Debug, Default)]
struct Described {
    keys: String,
    attribute_types: HashMap<String, String>,
    indexes: Vec<(String, String, String)>,
    billing: String,
    stream: Option<String>,
    deletion_protection: bool,
    tags: Vec<(String, String)>,
    ttl: Option<String>,
}

impl Db {
    /// Compares table `T` as it exists (its name as this `Db` maps it) with its declaration:
    /// keys and their types, indexes with their keys and projections, billing, the stream,
    /// deletion protection, tags and time to live. An empty list means they agree. (Against
    /// DynamoDB Local, which keeps no tags, tags are not compared.)
    ///
    /// ```no_run
    /// # use dynashard::{Db, Table};
    /// # #[derive(Table)] #[table(name = "Music", pk = "pk", sk = "sk")] struct Music;
    /// # async fn example(db: Db) -> dynashard::Result<()> {
    /// for difference in db.verify_table::<Music>().await? {
    ///     eprintln!("Music: {difference}");
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn verify_table<T: Table>(&self) -> Result<Vec<TableDifference>> {
        let name = self.table_name::<T>();
        let table = match self.client().describe_table().table_name(name).send().await {
            Ok(output) => output.table,
            Err(error) if error.code() == Some("ResourceNotFoundException") => {
                return Ok(vec![TableDifference::Missing])
            }
            Err(error) => return Err(Error::from_sdk("DescribeTable", error)),
        };
        let mut described = table.as_ref().map(describe).unwrap_or_default();
        described.ttl = self.ttl_attribute(name).await?;
        let mut tags_known = true;
        if let Some(arn) = table.as_ref().and_then(TableDescription::table_arn) {
            match self.client().list_tags_of_resource().resource_arn(arn).send().await {
                Ok(tags) => {
                    described.tags = tags
                        .tags()
                        .iter()
                        .map(|tag| (tag.key().to_owned(), tag.value().to_owned()))
                        .collect();
                }
                // DynamoDB Local keeps no tags: they cannot be compared there.
                Err(error) if error.code() == Some("UnknownOperationException") => tags_known = false,
                Err(error) => return Err(Error::from_sdk("ListTagsOfResource", error)),
            }
        }
        if !tags_known {
            described.tags =
                T::DEFINITION.tags.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        }
        Ok(differences(&T::DEFINITION, &described))
    }
}

/// The declaration's terms for a table description.
fn describe(table: &TableDescription) -> Described {
    let keys = |schema: &[aws_sdk_dynamodb::types::KeySchemaElement]| {
        let names = |kind: KeyType| {
            schema
                .iter()
                .filter(move |key| *key.key_type() == kind)
                .map(|key| key.attribute_name().to_owned())
        };
        names(KeyType::Hash).chain(names(KeyType::Range)).collect::<Vec<_>>().join(", ")
    };
    let attribute_types = table
        .attribute_definitions()
        .iter()
        .map(|attribute| {
            (attribute.attribute_name().to_owned(), attribute.attribute_type().as_str().to_owned())
        })
        .collect();
    let indexes = table
        .global_secondary_indexes()
        .iter()
        .map(|index| {
            let projection = index.projection().map_or_else(String::new, |projection| {
                let kind = projection.projection_type().map_or("", |kind| kind.as_str());
                let mut attributes = projection.non_key_attributes().to_vec();
                attributes.sort();
                match attributes.is_empty() {
                    true => kind.to_owned(),
                    false => format!("{kind} {}", attributes.join(", ")),
                }
            });
            (index.index_name().unwrap_or_default().to_owned(), keys(index.key_schema()), projection)
        })
        .collect();
    let on_demand = table
        .billing_mode_summary()
        .and_then(|summary| summary.billing_mode())
        .is_some_and(|mode| *mode == BillingMode::PayPerRequest);
    let billing = match (on_demand, table.provisioned_throughput()) {
        (false, Some(throughput)) => provisioned(
            throughput.read_capacity_units().unwrap_or(0) as u64,
            throughput.write_capacity_units().unwrap_or(0) as u64,
        ),
        _ => "on demand".to_owned(),
    };
    let stream = table
        .stream_specification()
        .filter(|stream| stream.stream_enabled())
        .and_then(|stream| stream.stream_view_type())
        .map(|view| view.as_str().to_owned());
    let deletion_protection = table.deletion_protection_enabled().unwrap_or(false);
    Described {
        keys: keys(table.key_schema()),
        attribute_types,
        indexes,
        billing,
        stream,
        deletion_protection,
        tags: Vec::new(),
        ttl: None,
    }
}

fn provisioned(read: u64, write: u64) -> String {
    format!("provisioned ({read} read, {write} write units)")
}

/// An index's key schema as [`Described`] writes it.
fn index_keys(index: &IndexDefinition) -> String {
    let names: Vec<&str> = index.partition_key.iter().chain(index.sort_key).map(|key| key.name).collect();
    names.join(", ")
}

/// A projection as [`Described`] writes it.
fn projection(projection: &IndexProjection) -> String {
    let mut attributes = projection.included().to_vec();
    attributes.sort_unstable();
    match attributes.is_empty() {
        true => projection.code().to_owned(),
        false => format!("{} {}", projection.code(), attributes.join(", ")),
    }
}

/// Every way `found` differs from `definition` (sans I/O).
fn differences(definition: &TableDefinition, found: &Described) -> Vec<TableDifference> {
    let mut differences = Vec::new();
    let keys: Vec<&str> = std::iter::once(definition.partition_key).chain(definition.sort_key).collect();
    if keys.join(", ") != found.keys {
        differences.push(TableDifference::KeySchema { declared: keys.join(", "), found: found.keys.clone() });
    }
    for attribute in definition.attribute_definitions() {
        let declared = attribute.kind.code();
        match found.attribute_types.get(attribute.name) {
            Some(kind) if kind != declared => differences.push(TableDifference::AttributeType {
                attribute: attribute.name.to_owned(),
                declared: declared.to_owned(),
                found: kind.clone(),
            }),
            _ => {}
        }
    }
    for index in definition.indexes {
        let Some((_, keys, found_projection)) = found.indexes.iter().find(|(name, ..)| name == index.name)
        else {
            differences.push(TableDifference::IndexMissing { index: index.name.to_owned() });
            continue;
        };
        if *keys != index_keys(index) {
            let (declared, found) = (index_keys(index), keys.clone());
            differences.push(TableDifference::IndexKeySchema {
                index: index.name.to_owned(),
                declared,
                found,
            });
        }
        if *found_projection != projection(&index.projection) {
            let (declared, found) = (projection(&index.projection), found_projection.clone());
            differences.push(TableDifference::IndexProjection {
                index: index.name.to_owned(),
                declared,
                found,
            });
        }
    }
    for (name, ..) in &found.indexes {
        if !definition.indexes.iter().any(|index| index.name == name) {
            differences.push(TableDifference::IndexUndeclared { index: name.clone() });
        }
    }
    let billing = match definition.billing {
        Billing::PayPerRequest => "on demand".to_owned(),
        Billing::Provisioned { read, write } => provisioned(read, write),
    };
    if billing != found.billing {
        differences.push(TableDifference::Billing { declared: billing, found: found.billing.clone() });
    }
    let stream = definition.stream.map(|view| view.code().to_owned());
    if stream != found.stream {
        differences.push(TableDifference::Stream { declared: stream, found: found.stream.clone() });
    }
    if definition.deletion_protection != found.deletion_protection {
        differences.push(TableDifference::DeletionProtection { declared: definition.deletion_protection });
    }
    for (key, value) in definition.tags {
        let present = found.tags.iter().find(|(found, _)| found == key).map(|(_, value)| value.clone());
        if present.as_deref() != Some(*value) {
            let declared = Some((*value).to_owned());
            differences.push(TableDifference::Tag { key: (*key).to_owned(), declared, found: present });
        }
    }
    for (key, value) in &found.tags {
        if !definition.tags.iter().any(|(declared, _)| declared == key) {
            differences.push(TableDifference::Tag {
                key: key.clone(),
                declared: None,
                found: Some(value.clone()),
            });
        }
    }
    if definition.ttl != found.ttl.as_deref() {
        let declared = definition.ttl.map(str::to_owned);
        differences.push(TableDifference::TimeToLive { declared, found: found.ttl.clone() });
    }
    differences
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::{KeyAttribute, ScalarKind};

    const PK: &[KeyAttribute] = &[KeyAttribute { name: "gpk", kind: ScalarKind::String }];
    const TABLE: TableDefinition = TableDefinition {
        name: "Shop",
        partition_key: "pk",
        sort_key: Some("sk"),
        type_attribute: "_type",
        indexes: &[IndexDefinition {
            name: "ByCustomer",
            partition_key: PK,
            sort_key: &[],
            projection: IndexProjection::Include(&["total", "_type"]),
        }],
        billing: Billing::PayPerRequest,
        shard_metadata: None,
        ttl: Some("expires_at"),
        stream: None,
        deletion_protection: false,
        tags: &[],
    };

    fn matching() -> Described {
        Described {
            keys: "pk, sk".into(),
            attribute_types: [("pk", "S"), ("sk", "S"), ("gpk", "S")]
                .into_iter()
                .map(|(name, kind)| (name.to_owned(), kind.to_owned()))
                .collect(),
            indexes: vec![("ByCustomer".into(), "gpk".into(), "INCLUDE _type, total".into())],
            billing: "on demand".into(),
            stream: None,
            deletion_protection: false,
            tags: Vec::new(),
            ttl: Some("expires_at".into()),
        }
    }

    #[test]
    fn a_matching_table_has_no_differences_and_each_drift_is_named() {
        assert_eq!(differences(&TABLE, &matching()), []);
        let mut drifted = matching();
        drifted.keys = "pk".into();
        drifted.attribute_types.insert("gpk".into(), "N".into());
        drifted.indexes = vec![("Old".into(), "x".into(), "ALL".into())];
        drifted.billing = provisioned(5, 5);
        drifted.stream = Some("KEYS_ONLY".into());
        drifted.deletion_protection = true;
        drifted.tags = vec![("team".into(), "ops".into())];
        drifted.ttl = None;
        let found = differences(&TABLE, &drifted);
        let kinds: Vec<String> = found.iter().map(ToString::to_string).collect();
        assert_eq!(
            kinds,
            [
                "key schema is (pk), declared (pk, sk)",
                "attribute `gpk` is of type N, declared S",
                "index `ByCustomer` does not exist",
                "index `Old` is not declared",
                "billing is provisioned (5 read, 5 write units), declared on demand",
                "the stream is KEYS_ONLY, declared off",
                "deletion protection is on, declared off",
                "tag `team` is `ops`, declared none",
                "time to live is off, declared on `expires_at`",
            ]
        );
        let mut projected = matching();
        projected.indexes = vec![("ByCustomer".into(), "gpk, gsk".into(), "KEYS_ONLY".into())];
        let found: Vec<String> = differences(&TABLE, &projected).iter().map(ToString::to_string).collect();
        assert_eq!(
            found,
            [
                "index `ByCustomer` has key schema (gpk, gsk), declared (gpk)",
                "index `ByCustomer` projects KEYS_ONLY, declared INCLUDE _type, total",
            ]
        );
    }
}
