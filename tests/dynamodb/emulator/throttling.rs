//! Requests over a partition's limit fail as DynamoDB fails them, and change nothing.

use super::model::{client, direct, emulator, Access};
use crate::unique;
use dynashard::throttling::{ThrottleLimit, ThrottledOperation, ThrottledResource};
use dynashard::{Db, Error};
use dynashard_local::emulator::{PartitionLimits, TableLimit};
use futures::TryStreamExt;
use std::future::IntoFuture;

#[tokio::test]
async fn a_hot_index_partition_is_throttled_with_its_reason_and_nothing_is_written() -> Result<(), Error> {
    let emulator = emulator(PartitionLimits::dynamodb().write_units(20.0)).await;
    let db = Db::new(client(&emulator));
    let path = unique("/hot");
    let mut written = Vec::new();
    let mut throttled = Vec::new();
    // All at once, so that how fast a loaded backend answers does not refill the partition's
    // bucket between them: 20 units of burst admit 20, and the rest are over the limit.
    let accesses: Vec<Access> =
        (0..60).map(|n| Access::new(unique("a"), &path, &unique("u"), n, 100)).collect();
    let puts = futures::future::join_all(accesses.iter().map(|access| db.put(access).into_future())).await;
    for (access, put) in accesses.iter().cloned().zip(puts) {
        match put {
            Ok(()) => written.push(access),
            Err(error) => throttled.push((access, error)),
        }
    }
    assert!(written.len() >= 20, "the burst is admitted: {}", written.len());
    assert!(throttled.len() >= 20, "the rest is over the limit: {}", throttled.len());
    for (_, error) in &throttled {
        assert!(matches!(error, Error::Throttled { .. }), "{error:?}");
        assert!(error.is_throttled() && error.is_key_range_throttled(), "{error}");
        assert_eq!(error.code(), Some("ProvisionedThroughputExceededException"));
        let [reason] = error.throttling_reasons() else { panic!("one reason: {error}") };
        let kind = reason.kind().expect("a known reason");
        assert_eq!(
            (kind.resource, kind.operation, kind.limit),
            (ThrottledResource::Index, ThrottledOperation::Write, ThrottleLimit::KeyRange)
        );
        assert_eq!((reason.table(), reason.index()), (Some("EmulatorTests"), Some("ByFile")));
    }
    let local = direct().await;
    for access in &written {
        assert!(local.get(Access::key(&access.id)?).await?.is_some(), "a written item is stored");
    }
    for (access, _) in &throttled {
        assert!(local.get(Access::key(&access.id)?).await?.is_none(), "a throttled put wrote nothing");
    }
    let usage = emulator.usage();
    let hot = usage.partition("EmulatorTests", Some("ByFile"), &format!("file#{path}"));
    assert_eq!(hot.write_units, written.len() as f64, "one unit per small item");
    assert_eq!(hot.throttled_writes, throttled.len() as u64);
    assert_eq!(usage.throttled_requests(), throttled.len() as u64);
    Ok(())
}

#[tokio::test]
async fn a_hot_partition_throttles_reads_with_their_reason() -> Result<(), Error> {
    let emulator = emulator(PartitionLimits::dynamodb().read_units(2.0)).await;
    let db = Db::new(client(&emulator));
    let path = unique("/read-hot");
    direct().await.put(&Access::new(unique("a"), &path, "u", 1, 10)).await?;
    let mut throttled = None;
    for _ in 0..20 {
        if let Err(error) = db.stream(Access::query_by_file(&path)).try_collect::<Vec<_>>().await {
            throttled = Some(error);
            break;
        }
    }
    let error = throttled.expect("20 queries of 0.5 units exceed 2 units per second");
    let [reason] = error.throttling_reasons() else { panic!("one reason: {error}") };
    assert_eq!(reason.reason(), "IndexReadKeyRangeThroughputExceeded");
    assert_eq!(reason.index(), Some("ByFile"));
    Ok(())
}

#[tokio::test]
async fn table_limits_fail_with_the_exception_of_their_kind() -> Result<(), Error> {
    for (limit, code, reason) in [
        (
            TableLimit::provisioned(),
            "ProvisionedThroughputExceededException",
            "TableWriteProvisionedThroughputExceeded",
        ),
        (TableLimit::on_demand_maximum(), "ThrottlingException", "TableWriteMaxOnDemandThroughputExceeded"),
        (TableLimit::account_quota(), "RequestLimitExceeded", "TableWriteAccountLimitExceeded"),
    ] {
        let limits = PartitionLimits::dynamodb().table("EmulatorTests", limit.write_units(3.0));
        let emulator = emulator(limits).await;
        let db = Db::new(client(&emulator));
        let mut error = None;
        for n in 0..10 {
            // Each put has partitions of its own: only the table's limit can refuse it.
            if let Err(refused) =
                db.put(&Access::new(unique("a"), &unique("/cold"), &unique("u"), n, 10)).await
            {
                error = Some(refused);
                break;
            }
        }
        let error = error.expect("10 puts exceed 3 units per second");
        assert_eq!(error.code(), Some(code), "{error}");
        assert!(error.is_throttled() && !error.is_key_range_throttled(), "{error}");
        assert_eq!(error.throttling_reasons()[0].reason(), reason);
        assert_eq!(emulator.usage().total("EmulatorTests", None).throttled_writes, 1);
    }
    Ok(())
}

#[tokio::test]
async fn metering_follows_dynamodbs_rules() -> Result<(), Error> {
    let emulator = emulator(PartitionLimits::dynamodb()).await;
    let db = Db::new(client(&emulator));
    let path = unique("/metered");
    let user = unique("metered-user");
    // About 2.8 KB: three write units, on the table and on each of the two indexes.
    let mut access = Access::new(unique("a"), &path, &user, 1, 2_600);
    db.put(&access).await?;
    let usage = emulator.usage();
    let key = format!("access#{}", access.id);
    assert_eq!(usage.partition("EmulatorTests", None, &key).write_units, 3.0);
    assert_eq!(usage.partition("EmulatorTests", Some("ByFile"), &format!("file#{path}")).write_units, 3.0);
    assert_eq!(usage.partition("EmulatorTests", Some("ByUser"), &format!("user#{user}")).write_units, 3.0);
    // Moving the item to another file: a delete on the old partition, a put on the new one.
    emulator.reset_usage();
    let moved = unique("/moved");
    access.path = moved.clone();
    access.note = "n".repeat(100);
    db.put(&access).await?;
    let usage = emulator.usage();
    assert_eq!(
        usage.partition("EmulatorTests", None, &key).write_units,
        3.0,
        "the larger of before and after"
    );
    assert_eq!(usage.partition("EmulatorTests", Some("ByFile"), &format!("file#{path}")).write_units, 3.0);
    assert_eq!(usage.partition("EmulatorTests", Some("ByFile"), &format!("file#{moved}")).write_units, 1.0);
    // A strongly consistent get of a 400-byte item: one read unit; eventually consistent: half.
    emulator.reset_usage();
    db.get(Access::key(&access.id)?).consistent().await?;
    db.get(Access::key(&access.id)?).await?;
    assert_eq!(emulator.usage().partition("EmulatorTests", None, &key).read_units, 1.5);
    // A transaction: twice the units.
    emulator.reset_usage();
    let other = Access::new(unique("a"), &moved, &user, 2, 100);
    db.transaction().put(&other).await?;
    let other_key = format!("access#{}", other.id);
    assert_eq!(emulator.usage().partition("EmulatorTests", None, &other_key).write_units, 2.0);
    Ok(())
}
