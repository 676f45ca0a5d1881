//! Comparing a live table with its declaration: `db.verify_table::<T>()` reads the table
//! (`DescribeTable`, `DescribeTimeToLive`, `DescribeContinuousBackups`, `ListTagsOfResource`)
//! and lists every way it differs from `T::DEFINITION`.

mod compare;
mod difference;

pub use difference::TableDifference;

use crate::db::Db;
use crate::error::{Error, Result};
use crate::table::Table;
use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::types::TableDescription;
use compare::{describe, differences};

impl Db {
    /// Compares table `T` as it exists (its name as this `Db` maps it) with its declaration:
    /// keys and their types, indexes (global or local) with their keys and projections, billing,
    /// the stream, deletion protection, tags, time to live, point-in-time recovery and warm
    /// throughput (found below the declared). An empty list means they agree. (What an endpoint
    /// does not keep is not compared: DynamoDB Local keeps no tags, continuous backups or warm
    /// throughput.)
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
        described.point_in_time_recovery = self.point_in_time_recovery(name).await?;
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
