//! The parts of a `CreateTable` request, from a table's declaration.

use crate::error::{Error, Result};
use crate::table::{Billing, IndexProjection, KeyAttribute, TableDefinition};
use aws_sdk_dynamodb::types::{
    AttributeDefinition, GlobalSecondaryIndex, KeySchemaElement, KeyType, LocalSecondaryIndex, Projection,
    ProjectionType, ProvisionedThroughput, ScalarAttributeType, StreamSpecification, StreamViewType, Tag,
    WarmThroughput,
};

pub(super) fn build_error(error: aws_sdk_dynamodb::error::BuildError) -> Error {
    Error::from_build("CreateTable", error)
}

pub(super) fn attribute_definitions(definition: &TableDefinition) -> Result<Vec<AttributeDefinition>> {
    definition
        .attribute_definitions()
        .iter()
        .map(|attribute| {
            AttributeDefinition::builder()
                .attribute_name(attribute.name)
                .attribute_type(ScalarAttributeType::from(attribute.kind.code()))
                .build()
                .map_err(build_error)
        })
        .collect()
}

pub(super) fn key_schema(hash: &[KeyAttribute], range: &[KeyAttribute]) -> Result<Vec<KeySchemaElement>> {
    let hash = hash.iter().map(|a| (a, KeyType::Hash));
    let range = range.iter().map(|a| (a, KeyType::Range));
    hash.chain(range)
        .map(|(attribute, key_type)| {
            KeySchemaElement::builder()
                .attribute_name(attribute.name)
                .key_type(key_type)
                .build()
                .map_err(build_error)
        })
        .collect()
}

pub(super) fn throughput(read: u64, write: u64) -> Result<ProvisionedThroughput> {
    ProvisionedThroughput::builder()
        .read_capacity_units(read as i64)
        .write_capacity_units(write as i64)
        .build()
        .map_err(build_error)
}

pub(super) fn stream_specification(definition: &TableDefinition) -> Result<Option<StreamSpecification>> {
    let Some(view) = definition.stream else { return Ok(None) };
    StreamSpecification::builder()
        .stream_enabled(true)
        .stream_view_type(StreamViewType::from(view.code()))
        .build()
        .map(Some)
        .map_err(build_error)
}

pub(super) fn tags(definition: &TableDefinition) -> Result<Option<Vec<Tag>>> {
    if definition.tags.is_empty() {
        return Ok(None);
    }
    let tags = definition.tags.iter().map(|(key, value)| Tag::builder().key(*key).value(*value).build());
    tags.collect::<std::result::Result<Vec<_>, _>>().map(Some).map_err(build_error)
}

fn projection(projection: IndexProjection) -> Projection {
    let kind = match projection {
        IndexProjection::All => ProjectionType::All,
        IndexProjection::KeysOnly => ProjectionType::KeysOnly,
        IndexProjection::Include(_) => ProjectionType::Include,
    };
    let included = projection.included().iter().map(|attribute| (*attribute).to_owned()).collect::<Vec<_>>();
    Projection::builder()
        .projection_type(kind)
        .set_non_key_attributes((!included.is_empty()).then_some(included))
        .build()
}

pub(super) fn global_indexes(definition: &TableDefinition) -> Result<Option<Vec<GlobalSecondaryIndex>>> {
    if definition.indexes.iter().all(|index| index.local) {
        return Ok(None);
    }
    let indexes = definition.indexes.iter().filter(|index| !index.local).map(|index| {
        let builder = GlobalSecondaryIndex::builder()
            .index_name(index.name)
            .set_key_schema(Some(key_schema(index.partition_key, index.sort_key)?))
            .projection(projection(index.projection))
            .set_warm_throughput(index.warm_throughput.map(warm));
        let builder = match definition.billing {
            Billing::PayPerRequest => builder,
            Billing::Provisioned { read, write } => builder.provisioned_throughput(throughput(read, write)?),
        };
        builder.build().map_err(build_error)
    });
    indexes.collect::<Result<Vec<_>>>().map(Some)
}

/// The local secondary indexes, which share the table's partition key and throughput.
pub(super) fn local_indexes(definition: &TableDefinition) -> Result<Option<Vec<LocalSecondaryIndex>>> {
    if !definition.indexes.iter().any(|index| index.local) {
        return Ok(None);
    }
    let indexes = definition.indexes.iter().filter(|index| index.local).map(|index| {
        LocalSecondaryIndex::builder()
            .index_name(index.name)
            .set_key_schema(Some(key_schema(index.partition_key, index.sort_key)?))
            .projection(projection(index.projection))
            .build()
            .map_err(build_error)
    });
    indexes.collect::<Result<Vec<_>>>().map(Some)
}

/// The warm throughput the table declares.
pub(super) fn warm_throughput(definition: &TableDefinition) -> Option<WarmThroughput> {
    definition.warm_throughput.map(warm)
}

/// Warm throughput as the SDK takes it, for the table or a global index.
fn warm(declared: crate::table::WarmThroughput) -> WarmThroughput {
    WarmThroughput::builder()
        .set_read_units_per_second(declared.reads_per_second.map(|units| units as i64))
        .set_write_units_per_second(declared.writes_per_second.map(|units| units as i64))
        .build()
}
