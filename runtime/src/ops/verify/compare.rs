//! A table description in the terms of a declaration, and the comparison of the two (sans I/O).

use super::TableDifference;
use crate::table::{Billing, IndexDefinition, IndexProjection, TableDefinition, WarmThroughput};
use aws_sdk_dynamodb::types::{BillingMode, KeyType, TableDescription};
use std::collections::HashMap;

/// What `DescribeTable` and `DescribeTimeToLive` say of a table, in the terms of a declaration.
#[derive(Debug, Default)]
pub(super) struct Described {
    pub(super) keys: String,
    pub(super) attribute_types: HashMap<String, String>,
    pub(super) indexes: Vec<FoundIndex>,
    pub(super) billing: String,
    pub(super) stream: Option<String>,
    pub(super) deletion_protection: bool,
    pub(super) tags: Vec<(String, String)>,
    pub(super) ttl: Option<String>,
    /// `None` where the endpoint has no continuous backups (DynamoDB Local).
    pub(super) point_in_time_recovery: Option<bool>,
    /// Reads and writes per second, where the endpoint describes them.
    pub(super) warm_throughput: Option<(u64, u64)>,
}

/// An index as `DescribeTable` lists it.
#[derive(Debug)]
pub(super) struct FoundIndex {
    pub(super) name: String,
    pub(super) keys: String,
    pub(super) projection: String,
    pub(super) local: bool,
    /// Reads and writes per second, where the endpoint describes them (global indexes).
    pub(super) warm_throughput: Option<(u64, u64)>,
}

/// The declaration's terms for a table description.
pub(super) fn describe(table: &TableDescription) -> Described {
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
    let projected = |projection: Option<&aws_sdk_dynamodb::types::Projection>| {
        projection.map_or_else(String::new, |projection| {
            let kind = projection.projection_type().map_or("", |kind| kind.as_str());
            let mut attributes = projection.non_key_attributes().to_vec();
            attributes.sort();
            match attributes.is_empty() {
                true => kind.to_owned(),
                false => format!("{kind} {}", attributes.join(", ")),
            }
        })
    };
    let units = |units: Option<i64>| units.map(|units| units.max(0) as u64);
    let global = table.global_secondary_indexes().iter().map(|index| FoundIndex {
        name: index.index_name().unwrap_or_default().to_owned(),
        keys: keys(index.key_schema()),
        projection: projected(index.projection()),
        local: false,
        warm_throughput: index.warm_throughput().and_then(|warm| {
            Some((units(warm.read_units_per_second())?, units(warm.write_units_per_second())?))
        }),
    });
    let local = table.local_secondary_indexes().iter().map(|index| FoundIndex {
        name: index.index_name().unwrap_or_default().to_owned(),
        keys: keys(index.key_schema()),
        projection: projected(index.projection()),
        local: true,
        warm_throughput: None,
    });
    let indexes = global.chain(local).collect();
    let warm_throughput = table
        .warm_throughput()
        .and_then(|warm| Some((units(warm.read_units_per_second())?, units(warm.write_units_per_second())?)));
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
        point_in_time_recovery: None,
        warm_throughput,
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
pub(super) fn differences(definition: &TableDefinition, found: &Described) -> Vec<TableDifference> {
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
    differences.extend(index_differences(definition, found));
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
    differences.extend(tag_differences(definition, found));
    if definition.ttl != found.ttl.as_deref() {
        let declared = definition.ttl.map(str::to_owned);
        differences.push(TableDifference::TimeToLive { declared, found: found.ttl.clone() });
    }
    if found.point_in_time_recovery.is_some_and(|on| on != definition.point_in_time_recovery) {
        differences
            .push(TableDifference::PointInTimeRecovery { declared: definition.point_in_time_recovery });
    }
    differences.extend(warm_shortfall(None, definition.warm_throughput, found.warm_throughput));
    differences
}

/// Every way `found`'s indexes differ from `definition`'s.
fn index_differences(definition: &TableDefinition, found: &Described) -> Vec<TableDifference> {
    let mut differences = Vec::new();
    for index in definition.indexes {
        let Some(found_index) = found.indexes.iter().find(|found| found.name == index.name) else {
            differences.push(TableDifference::IndexMissing { index: index.name.to_owned() });
            continue;
        };
        let (keys, found_projection) = (&found_index.keys, &found_index.projection);
        if found_index.local != index.local {
            differences.push(TableDifference::IndexKind {
                index: index.name.to_owned(),
                declared_local: index.local,
            });
        }
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
        differences.extend(warm_shortfall(
            Some(index.name),
            index.warm_throughput,
            found_index.warm_throughput,
        ));
    }
    for FoundIndex { name, .. } in &found.indexes {
        if !definition.indexes.iter().any(|index| index.name == name) {
            differences.push(TableDifference::IndexUndeclared { index: name.clone() });
        }
    }
    differences
}

/// Every tag `found` lacks, holds with another value, or holds undeclared.
fn tag_differences(definition: &TableDefinition, found: &Described) -> Vec<TableDifference> {
    let mut differences = Vec::new();
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
    differences
}

/// The difference when the table (`index` `None`) or a global index is prepared for fewer reads
/// or writes per second than declared; nothing when the endpoint does not say (`found` `None`).
fn warm_shortfall(
    index: Option<&str>,
    declared: Option<WarmThroughput>,
    found: Option<(u64, u64)>,
) -> Option<TableDifference> {
    let (warm, (reads, writes)) = declared.zip(found)?;
    let short = |declared: Option<u64>, found: u64| declared.is_some_and(|declared| found < declared);
    if !short(warm.reads_per_second, reads) && !short(warm.writes_per_second, writes) {
        return None;
    }
    let units = |units: Option<u64>| units.map_or_else(|| "any".to_owned(), |units| units.to_string());
    Some(TableDifference::WarmThroughput {
        index: index.map(str::to_owned),
        declared: format!(
            "{} reads, {} writes per second",
            units(warm.reads_per_second),
            units(warm.writes_per_second)
        ),
        found: format!("{reads} reads, {writes} writes per second"),
    })
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
            local: false,
            name: "ByCustomer",
            partition_key: PK,
            sort_key: &[],
            projection: IndexProjection::Include(&["total", "_type"]),
            warm_throughput: Some(WarmThroughput { reads_per_second: Some(8_000), writes_per_second: None }),
        }],
        billing: Billing::PayPerRequest,
        shard_metadata: None,
        ttl: Some("expires_at"),
        stream: None,
        deletion_protection: false,
        point_in_time_recovery: false,
        warm_throughput: Some(WarmThroughput { reads_per_second: None, writes_per_second: Some(4_000) }),
        tags: &[],
    };

    fn matching() -> Described {
        Described {
            keys: "pk, sk".into(),
            attribute_types: [("pk", "S"), ("sk", "S"), ("gpk", "S")]
                .into_iter()
                .map(|(name, kind)| (name.to_owned(), kind.to_owned()))
                .collect(),
            indexes: vec![index("ByCustomer", "gpk", "INCLUDE _type, total", false)],
            billing: "on demand".into(),
            stream: None,
            deletion_protection: false,
            point_in_time_recovery: Some(false),
            warm_throughput: Some((12_000, 4_000)),
            tags: Vec::new(),
            ttl: Some("expires_at".into()),
        }
    }

    fn index(name: &str, keys: &str, projection: &str, local: bool) -> FoundIndex {
        let warm_throughput = (!local).then_some((12_000, 4_000));
        FoundIndex {
            name: name.into(),
            keys: keys.into(),
            projection: projection.into(),
            local,
            warm_throughput,
        }
    }

    #[test]
    fn a_matching_table_has_no_differences_and_each_drift_is_named() {
        assert_eq!(differences(&TABLE, &matching()), []);
        let mut drifted = matching();
        drifted.keys = "pk".into();
        drifted.attribute_types.insert("gpk".into(), "N".into());
        drifted.indexes = vec![index("Old", "x", "ALL", false)];
        drifted.point_in_time_recovery = Some(true);
        drifted.warm_throughput = Some((12_000, 100));
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
                "point-in-time recovery is on, declared off",
                "warm throughput is 12000 reads, 100 writes per second, declared any reads, 4000 writes per second",
            ]
        );
        let mut cold = matching();
        cold.indexes[0].warm_throughput = Some((6_000, 4_000));
        let found: Vec<String> = differences(&TABLE, &cold).iter().map(ToString::to_string).collect();
        assert_eq!(
            found,
            ["index `ByCustomer` warm throughput is 6000 reads, 4000 writes per second, declared 8000 reads, any writes per second"]
        );
        let mut unknown = matching();
        unknown.point_in_time_recovery = None;
        unknown.warm_throughput = None;
        assert_eq!(differences(&TABLE, &unknown), [], "what the endpoint cannot tell is not compared");
        let mut projected = matching();
        projected.indexes = vec![index("ByCustomer", "gpk, gsk", "KEYS_ONLY", true)];
        let found: Vec<String> = differences(&TABLE, &projected).iter().map(ToString::to_string).collect();
        assert_eq!(
            found,
            [
                "index `ByCustomer` is local, declared global",
                "index `ByCustomer` has key schema (gpk, gsk), declared (gpk)",
                "index `ByCustomer` projects KEYS_ONLY, declared INCLUDE _type, total",
            ]
        );
    }
}
