//! Requests over a partition's limit fail as DynamoDB fails them, and change nothing.

use super::model::{client, direct, emulator, Access};
use crate::unique;
use dynashard::emulator::PartitionLimits;
use dynashard::throttling::{ThrottleLimit, ThrottledOperation, ThrottledResource};
use dynashard::{Db, Error};

#[tokio::test]
async fn a_hot_index_partition_is_throttled_with_its_reason_and_nothing_is_written() -> Result<(), Error> {
    let emulator = emulator(PartitionLimits::dynamodb().write_units(20.0)).await;
    let db = Db::new(client(&emulator));
    let path = unique("/hot");
    let mut written = Vec::new();
    let mut throttled = Vec::new();
    for n in 0..60 {
        let access = Access::new(unique("a"), &path, &unique("u"), n, 100);
        match db.put(&access).await {
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
