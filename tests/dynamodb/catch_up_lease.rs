//! A catch-up's shard lease is a setting of the shard metadata: a holder whose beats cannot
//! land within it gives its shards up (another process takes them over), one whose beats land
//! keeps them.

use aws_sdk_dynamodb::types::AttributeValue;
use dynashard::metadata::ShardMetadata;
use dynashard::reshard::Layout;
use dynashard::{Db, Entity, Table};
use dynashard_local::emulator::{Emulator, PartitionLimits};
use serde::{Deserialize, Serialize};
use std::time::Duration;

const METADATA: &str = "CatchUpLeaseMetadata";

#[derive(Table)]
#[table(
    name = "CatchUpLeaseTests",
    pk = "pk",
    sk = "sk",
    shard_metadata = "CatchUpLeaseMetadata",
    stream = "new_image"
)]
#[gsi(ByTitle(pk = "title_pk", sk = "title_sk"))]
#[gsi(ByTitleNext(pk = "next_pk", sk = "next_sk"))]
struct Shelves;

#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[entity(table = Shelves, pk = "{shelf}", sk = "record#{title}")]
#[gsi(ByTitle(pk = "titles#{shelf}", sk = "{title}"))]
#[shard(ByTitle(hash = 4, by = title))]
struct Record {
    shelf: String,
    title: String,
}

/// Writes `titles` as a writer that knows nothing of the resharding would: only a catch-up
/// gives them their place in the target layout.
async fn write_past_dynashard(db: &Db, titles: std::ops::Range<u32>) {
    for n in titles {
        let title = format!("t{n:04}");
        let shard = dynashard::shard::hash_shard(&title, 4);
        let item = [
            ("pk", "shelf".to_owned()),
            ("sk", format!("record#{title}")),
            ("_type", "Record".to_owned()),
            ("shelf", "shelf".to_owned()),
            ("title", title.clone()),
            ("title_pk", format!("titles#shelf#{shard}")),
            ("title_sk", title),
        ]
        .map(|(name, value)| (name.to_owned(), AttributeValue::S(value)));
        let table = db.table_name::<Shelves>().to_owned();
        db.client().put_item().table_name(table).set_item(Some(item.into())).send().await.expect("a put");
    }
}

#[tokio::test]
async fn a_catch_up_gives_its_shards_up_when_its_beats_cannot_land_within_its_lease() {
    let own = crate::own().await;
    let direct = own.db().with_shard_metadata(ShardMetadata::new(METADATA));
    direct.create_table::<Shelves>().await.expect("create the table");
    direct.create_shard_metadata_table().await.expect("create the metadata table");
    direct
        .start_resharding::<Record>(Shelves::BY_TITLE, Shelves::BY_TITLE_NEXT, Layout::hash(8))
        .await
        .expect("a resharding starts");
    // Every request through the emulator takes 300 ms: a beat (every third of the lease, given
    // up after a third) can land within a lease of 30 s, never within one of 300 ms.
    let limits = PartitionLimits::dynamodb().round_trip(Duration::from_millis(300));
    let emulator = Emulator::start(own.endpoint(), limits).expect("the emulator");
    let process = |metadata: ShardMetadata| {
        Db::new(dynashard::client_for_endpoint(emulator.endpoint()))
            .with_streams_client(dynashard::client::streams_client_for_endpoint(emulator.endpoint()))
            .with_shard_metadata(metadata)
    };

    write_past_dynashard(&direct, 0..40).await;
    let patient = process(ShardMetadata::new(METADATA));
    let pass = patient.catch_up::<Record>(Shelves::BY_TITLE).await.expect("a pass");
    assert!(pass.caught_up && pass.placed == 40, "{pass:?}");

    write_past_dynashard(&direct, 40..80).await;
    let hasty = process(ShardMetadata::new(METADATA).catch_up_lease(Duration::from_millis(300)));
    let pass = hasty.catch_up::<Record>(Shelves::BY_TITLE).await.expect("a pass");
    assert!(!pass.caught_up, "a pass whose beats never landed kept its shard: {pass:?}");
}
