//! Every attempt DynamoDB throttled is counted where the work ran, the attempts the SDK sent
//! again by itself among them: `Measured::throttles` adds up to what was throttled.

use crate::model::Artist;
use dynashard::consumption::Measure;
use dynashard_local::faults::FaultInjector;

#[tokio::test]
async fn throttles_the_sdk_retried_away_are_counted() {
    let _tables = crate::db().await;
    // The SDK's own retries kept: most throttled puts succeed on a later attempt.
    let faults = FaultInjector::new(5).throttling(0.3).only(&["PutItem"]);
    let endpoint = dynashard_local::shared_endpoint().await.expect("the shared DynamoDB");
    let faulty = dynashard::Db::new(faults.client_for_endpoint(&endpoint));
    let again = dynashard::Db::new(faulty.client().clone());
    let (mut throttles, mut failed) = (0, 0);
    for n in 0..40 {
        let artist = Artist { name: crate::unique(&format!("throttled-{n}")), country: None };
        // A `Db` made from another's client counts each attempt once, not twice.
        let writer = if n % 2 == 0 { &faulty } else { &again };
        let put = writer.put(&artist).measured().await;
        throttles += put.throttles;
        failed += u32::from(put.output.is_err());
    }
    let injected = faults.stats().operation("PutItem").throttled;
    assert!(injected > 5, "throttles were injected: {injected}");
    assert!(u64::from(failed) < injected, "the SDK retried most away ({failed} failed)");
    assert_eq!(u64::from(throttles), injected, "every throttled attempt counted once");
}
