//! Point-in-time recovery: turned on by `create_table`, read by `verify_table`.

use crate::db::Db;
use crate::error::{Error, Result};
use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::types::{PointInTimeRecoverySpecification, PointInTimeRecoveryStatus};
use std::time::{Duration, Instant};

/// The error code of an endpoint that has no continuous backups (DynamoDB Local).
const UNKNOWN_OPERATION: &str = "UnknownOperationException";
/// The error code of a table whose continuous backups are still being turned on (just created).
const NOT_YET: &str = "ContinuousBackupsUnavailableException";

impl Db {
    /// Turns on point-in-time recovery for table `name`, waiting up to `timeout` while a new
    /// table's continuous backups are still being turned on. An endpoint without continuous
    /// backups (DynamoDB Local) is told nothing: a warning is logged, and `verify_table` cannot
    /// compare it.
    pub(super) async fn enable_point_in_time_recovery(&self, name: &str, timeout: Duration) -> Result<()> {
        let started = Instant::now();
        let mut pause = Duration::from_millis(200);
        loop {
            let specification = PointInTimeRecoverySpecification::builder()
                .point_in_time_recovery_enabled(true)
                .build()
                .map_err(super::input::build_error)?;
            let sent = self
                .client()
                .update_continuous_backups()
                .table_name(name)
                .point_in_time_recovery_specification(specification)
                .send()
                .await;
            match sent {
                Ok(_) => return Ok(()),
                Err(error) if error.code() == Some(UNKNOWN_OPERATION) => {
                    tracing::warn!(table = name, "the endpoint has no point-in-time recovery; left off");
                    return Ok(());
                }
                Err(error) if error.code() == Some(NOT_YET) && started.elapsed() < timeout => {
                    tokio::time::sleep(pause).await;
                    pause = (pause * 2).min(Duration::from_secs(5));
                }
                Err(error) => return Err(Error::from_sdk("UpdateContinuousBackups", error)),
            }
        }
    }

    /// Whether point-in-time recovery is on for table `name`; `None` when the endpoint has no
    /// continuous backups (DynamoDB Local).
    pub(crate) async fn point_in_time_recovery(&self, name: &str) -> Result<Option<bool>> {
        match self.client().describe_continuous_backups().table_name(name).send().await {
            Ok(described) => Ok(Some(
                described
                    .continuous_backups_description()
                    .and_then(|backups| backups.point_in_time_recovery_description())
                    .and_then(|recovery| recovery.point_in_time_recovery_status())
                    == Some(&PointInTimeRecoveryStatus::Enabled),
            )),
            Err(error) if error.code() == Some(UNKNOWN_OPERATION) => Ok(None),
            Err(error) => Err(Error::from_sdk("DescribeContinuousBackups", error)),
        }
    }
}
