//! Every attempt DynamoDB throttled is counted where the work ran, the attempts the SDK sent
//! again by itself among them: `Measured::throttles` and the hot keys' throttles add up to what
//! was throttled.

use crate::model::Artist;
use dynashard::consumption::Measure;
use dynashard_local::faults::FaultInjector;

#[tokio::test]
async fn throttles_the_sdk_retried_away_are_counted() {
    let _tables = crate::db().await;
    // The SDK's own retries kept: most throttled puts succeed on a later attempt.
    let faults = FaultInjector::new(5).throttling(0.3).only(&["PutItem"]);
    let endpoint = dynashard_local::shared_endpoint().await.expect("the shared DynamoDB");
    let faulty = dynashard::Db::new(faults.client_for_endpoint(&endpoint))
        .with_hot_key_tracking(dynashard::HotKeyTracking::default());
    let again = dynashard::Db::new(faulty.client().clone())
        .with_hot_key_tracking(dynashard::HotKeyTracking::default());
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
    // The hot keys see them too, each on the key it was throttled on.
    let (hot, hot_again) = (faulty.hot_keys(100), again.hot_keys(100));
    assert_eq!(hot.throttles + hot_again.throttles, injected, "the hot keys count every throttled attempt");
    let on_keys: f64 = hot.throttled.iter().chain(&hot_again.throttled).map(|key| key.count).sum();
    assert_eq!(on_keys as u64, injected, "each on its artist's key");
}
