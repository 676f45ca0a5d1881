//! Creating and deleting tables (for development and tests; provision production tables with
//! your own tools from [`crate::TableDefinition::create_table_json`]).

mod backups;
mod input;
mod stream;

use crate::db::Db;
use crate::error::{Error, Result};
use crate::table::{Billing, KeyAttribute, ScalarKind, Table, TableDefinition};
use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::types::{
    BillingMode, IndexStatus, TableStatus, TimeToLiveSpecification, TimeToLiveStatus,
};
use input::{
    attribute_definitions, build_error, global_indexes, key_schema, local_indexes, stream_specification,
    tags, throughput, warm_throughput,
};
use std::time::{Duration, Instant};

/// How long [`Db::create_table`] waits for a table to become active.
const ACTIVE_TIMEOUT: Duration = Duration::from_secs(300);

impl Db {
    /// Creates table `T` unless it exists, then waits until it and its indexes are active; the
    /// same for the shard metadata table it declares (or the one this `Db` was given).
    ///
    /// Idempotent: safe to call from several tests or processes at once.
    pub async fn create_table<T: Table>(&self) -> Result<()> {
        self.create_table_named(self.table_name::<T>(), &T::DEFINITION).await?;
        if T::DEFINITION.shard_metadata.is_some() {
            crate::dynamic::create_metadata_table_of(self, &T::DEFINITION).await?;
        }
        Ok(())
    }

    /// Creates the table `definition` describes, named `name`, unless it exists; then waits
    /// until it is active.
    pub(crate) async fn create_table_named(&self, name: &str, definition: &TableDefinition) -> Result<()> {
        let name = name.to_owned();
        let request = self
            .client()
            .create_table()
            .table_name(&name)
            .set_attribute_definitions(Some(attribute_definitions(definition)?))
            .set_key_schema(Some(key_schema(
                &[KeyAttribute { name: definition.partition_key, kind: ScalarKind::String }],
                definition.sort_key.map(|name| KeyAttribute { name, kind: ScalarKind::String }).as_slice(),
            )?))
            .set_global_secondary_indexes(global_indexes(definition)?)
            .set_local_secondary_indexes(local_indexes(definition)?)
            .set_warm_throughput(warm_throughput(definition))
            .set_stream_specification(stream_specification(definition)?)
            .deletion_protection_enabled(definition.deletion_protection)
            .set_tags(tags(definition)?);
        let request = match definition.billing {
            Billing::PayPerRequest => request.billing_mode(BillingMode::PayPerRequest),
            Billing::Provisioned { read, write } => request
                .billing_mode(BillingMode::Provisioned)
                .provisioned_throughput(throughput(read, write)?),
        };
        match request.send().await {
            Ok(_) => {}
            Err(error) if error.code() == Some("ResourceInUseException") => {}
            Err(error) => return Err(Error::from_sdk("CreateTable", error)),
        }
        self.wait_until_active(&name).await?;
        if definition.point_in_time_recovery {
            self.enable_point_in_time_recovery(&name, ACTIVE_TIMEOUT).await?;
        }
        match definition.ttl {
            Some(attribute) => self.enable_ttl(&name, attribute).await,
            None => Ok(()),
        }
    }

    /// Turns on time to live on `attribute` of table `name`, unless it is on already (also when
    /// another process turned it on meanwhile).
    async fn enable_ttl(&self, name: &str, attribute: &str) -> Result<()> {
        if self.ttl_attribute(name).await?.as_deref() == Some(attribute) {
            return Ok(());
        }
        let specification = TimeToLiveSpecification::builder()
            .attribute_name(attribute)
            .enabled(true)
            .build()
            .map_err(build_error)?;
        let sent = self
            .client()
            .update_time_to_live()
            .table_name(name)
            .time_to_live_specification(specification)
            .send()
            .await;
        match sent {
            Ok(_) => Ok(()),
            // Another process may have turned it on between the two calls.
            Err(error) => match self.ttl_attribute(name).await? {
                Some(on) if on == attribute => Ok(()),
                _ => Err(Error::from_sdk("UpdateTimeToLive", error)),
            },
        }
    }

    /// The attribute time to live is on (or turning on) for in table `name`.
    pub(crate) async fn ttl_attribute(&self, name: &str) -> Result<Option<String>> {
        let described = self
            .client()
            .describe_time_to_live()
            .table_name(name)
            .send()
            .await
            .map_err(|error| Error::from_sdk("DescribeTimeToLive", error))?;
        let current = described.time_to_live_description().filter(|ttl| {
            matches!(ttl.time_to_live_status(), Some(TimeToLiveStatus::Enabled | TimeToLiveStatus::Enabling))
        });
        Ok(current.and_then(|ttl| ttl.attribute_name()).map(str::to_owned))
    }

    /// Deletes table `T`; a table that does not exist is not an error.
    pub async fn delete_table<T: Table>(&self) -> Result<()> {
        let name = self.table_name::<T>();
        match self.client().delete_table().table_name(name).send().await {
            Ok(_) => Ok(()),
            Err(error) if error.code() == Some("ResourceNotFoundException") => Ok(()),
            Err(error) => Err(Error::from_sdk("DeleteTable", error)),
        }
    }

    async fn wait_until_active(&self, name: &str) -> Result<()> {
        let started = Instant::now();
        let mut pause = Duration::from_millis(50);
        loop {
            let description = self
                .client()
                .describe_table()
                .table_name(name)
                .send()
                .await
                .map_err(|error| Error::from_sdk("DescribeTable", error))?;
            if let Some(table) = description.table() {
                let table_active = table.table_status() == Some(&TableStatus::Active);
                let indexes_active = table
                    .global_secondary_indexes()
                    .iter()
                    .all(|index| index.index_status() == Some(&IndexStatus::Active));
                if table_active && indexes_active {
                    return Ok(());
                }
            }
            if started.elapsed() > ACTIVE_TIMEOUT {
                return Err(Error::TableNotActive {
                    table: name.to_owned(),
                    seconds: ACTIVE_TIMEOUT.as_secs(),
                });
            }
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(Duration::from_secs(2));
        }
    }
}
