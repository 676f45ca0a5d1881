//! A resharding's scans of a source whose partitions are known (`pk = "tracks"`, hash shards):
//! each partition read by Query in pieces cut by sort key. A piece ends where the next begins
//! (an item at a cut is read once), the scan reads the entity's items and no other item of the
//! index, and writers running while the pieces are read lose nothing.

use crate::{unique, Own};
use aws_sdk_dynamodb::types::AttributeValue;
use dynashard::metadata::ShardMetadata;
use dynashard::reshard::{Backfill, Layout, Phase, ReshardState, Verify};
use dynashard::{Db, Entity, Table};
use futures::TryStreamExt;
use serde::{Deserialize, Serialize};
use std::time::{Duration, SystemTime};

#[derive(Table)]
#[table(
    name = "ReshardPieceTests",
    pk = "pk",
    sk = "sk",
    shard_metadata = "ReshardPieceMetadata",
    stream = "new_image"
)]
#[gsi(ByTitle(pk = "title_pk", sk = "title_sk"))]
#[gsi(ByTitleNext(pk = "next_pk", sk = "next_sk"))]
struct Tracks;

/// One source partition, so that the test knows where its pieces are cut.
#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[entity(table = Tracks, pk = "single#{id}", sk = "single")]
#[gsi(ByTitle(pk = "singles", sk = "{title}"))]
#[shard(ByTitle(hash = 1, by = title))]
struct Single {
    id: u32,
    title: String,
}

/// Four source partitions; titles repeat, items from 200 B to 8 KB.
#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[entity(table = Tracks, pk = "track#{id}", sk = "track")]
#[gsi(ByTitle(pk = "tracks", sk = "{title}"))]
#[shard(ByTitle(hash = 4, by = title))]
struct Track {
    id: u32,
    title: String,
    notes: String,
}

/// Another entity in the source index: what a Scan of the index reads too.
#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[entity(table = Tracks, pk = "noise#{id}", sk = "noise")]
#[gsi(ByTitle(pk = "noise#{id}", sk = "{title}"))]
struct Noise {
    id: u32,
    title: String,
    notes: String,
}

async fn db(own: &Own, table: &str) -> Db {
    let metadata = ShardMetadata::new("ReshardPieceMetadata").cache_for(Duration::from_millis(100));
    let db =
        own.db().with_table_name::<Tracks>(table).expect("a valid table name").with_shard_metadata(metadata);
    db.create_table::<Tracks>().await.unwrap();
    db.create_shard_metadata_table().await.unwrap();
    db
}

/// Track `n`: a third of them titled "Intro", sizes 200 B to 8 KB varying item to item.
fn track(n: u32) -> Track {
    let title = match n % 6 {
        0 | 1 => "Intro".to_owned(),
        2 => format!("Ünïcödé {}", n % 7),
        _ => format!("t{:05}", (n * 7_919) % 10_007),
    };
    let size = 200 + (n as usize * 2_654_435_761) % 7_800;
    Track { id: n, title, notes: "n".repeat(size) }
}

/// The read units `db` consumed on the source and target indexes so far.
fn index_reads(db: &Db) -> f64 {
    let indexes = [Some("ByTitle"), Some("ByTitleNext")];
    db.consumed()
        .iter()
        .filter(|total| indexes.contains(&total.index.as_deref()))
        .map(|total| total.read_units)
        .sum()
}

fn read_units(state: &ReshardState) -> f64 {
    state.segments.values().map(|segment| segment.consumed.read as f64 / 1_000.0).sum()
}

#[tokio::test]
async fn a_piece_ends_where_the_next_begins() {
    let own = crate::own().await;
    let db = db(&own, &unique("ReshardPieces")).await;
    // Three pieces of one partition whose first and last titles are "a" and "z" are cut at
    // these two titles; each is stored too, and must be read once, by the piece it begins.
    let titles = ["a", "c", "f", "i\u{5b000}", "k", "n", "q\u{b5800}", "s", "w", "z"];
    let singles: Vec<Single> = titles
        .iter()
        .enumerate()
        .map(|(n, title)| Single { id: n as u32, title: (*title).to_owned() })
        .collect();
    db.batch_put(&singles).await.unwrap();
    db.start_resharding::<Single>(Tracks::BY_TITLE, Tracks::BY_TITLE_NEXT, Layout::hash(3)).await.unwrap();
    let state =
        db.backfill::<Single>(Tracks::BY_TITLE, Backfill::default().segments(3).page_size(2)).await.unwrap();
    assert_eq!(state.segments.len(), 3, "three pieces: {:?}", state.segments);
    assert_eq!(state.backfill_totals(), (10, 10), "every item read once, the ones at the cuts too");
    let verified = db.verify_resharding::<Single>(Tracks::BY_TITLE, Verify::default()).await.unwrap();
    assert!(verified.is_clean(), "{verified:?}");
}

#[tokio::test]
async fn a_scan_by_pieces_reads_the_entity_and_no_other() {
    let own = crate::own().await;
    let tracks: Vec<Track> = (0..160).map(track).collect();
    let noise: Vec<Noise> =
        (0..300).map(|id| Noise { id, title: format!("noise {id}"), notes: "x".repeat(3_000) }).collect();
    let (mut units, mut verifying) = (Vec::new(), Vec::new());
    for scan_index in [false, true] {
        let db = db(&own, &unique("ReshardPieceFloor")).await;
        db.batch_put(&tracks).await.unwrap();
        db.batch_put(&noise).await.unwrap();
        db.start_resharding::<Track>(Tracks::BY_TITLE, Tracks::BY_TITLE_NEXT, Layout::hash(8)).await.unwrap();
        let options = Backfill::default().segments(8);
        let options = if scan_index { options.scan_index() } else { options };
        let state = db.backfill::<Track>(Tracks::BY_TITLE, options).await.unwrap();
        assert_eq!(state.backfill_totals().0, 160, "scan_index {scan_index}");
        assert_eq!(state.scan.map(|scan| scan.pieces.is_some()), Some(!scan_index));
        units.push(read_units(&state));
        let before = index_reads(&db);
        let options = Verify::default();
        let options = if scan_index { options.scan_index() } else { options };
        let verified = db.verify_resharding::<Track>(Tracks::BY_TITLE, options).await.unwrap();
        assert!(verified.is_clean(), "{verified:?}");
        assert_eq!(verified.scanned, 320, "each track once a side");
        verifying.push(index_reads(&db) - before);
        if !scan_index {
            db.cut_over::<Track>(Tracks::BY_TITLE).await.unwrap();
            let listed: Vec<Track> = db.stream(Track::query_by_title()).try_collect().await.unwrap();
            let mut expected = tracks.clone();
            expected.sort_by(|a, b| a.title.cmp(&b.title));
            let titles =
                |tracks: &[Track]| tracks.iter().map(|track| track.title.clone()).collect::<Vec<_>>();
            assert_eq!(titles(&listed), titles(&expected), "every track once, in order, from the new layout");
        }
    }
    // The tracks' bytes in the index, as read units (eventually consistent, 4 KB each): the least
    // any scan of them reads. The noise adds 300 x 3 KB to what a Scan reads.
    let floor = tracks.iter().map(|track| track.notes.len() as f64 + 40.0).sum::<f64>() / 4_096.0 / 2.0;
    let (pieces, scanned) = (units[0], units[1]);
    assert!(pieces <= floor * 1.1 + 4.0, "pieces read {pieces} units, the floor is {floor}");
    assert!(scanned >= pieces + 80.0, "a Scan reads the noise too: {scanned} against {pieces}");
    // A verification reads each side once: the source's tracks, and their places in the target
    // (the first and last key of each of 4 + 8 partitions besides).
    let (pieces, scanned) = (verifying[0], verifying[1]);
    assert!(
        pieces <= 2.0 * floor * 1.1 + 12.0,
        "a verification by pieces read {pieces} units, the floor {floor} a side"
    );
    assert!(scanned >= pieces + 80.0, "a Scan of the source reads the noise too: {scanned} against {pieces}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writers_while_pieces_are_read_lose_nothing() {
    let own = crate::own().await;
    let db = db(&own, &unique("ReshardPieceWrites")).await;
    let first: Vec<Track> = (0..200).map(track).collect();
    db.batch_put(&first).await.unwrap();
    db.start_resharding::<Track>(Tracks::BY_TITLE, Tracks::BY_TITLE_NEXT, Layout::hash(16)).await.unwrap();
    // New tracks, and old ones retitled (which moves them to another source partition and
    // piece), while small pages of 16 pieces are read.
    let writer = {
        let db = db.clone();
        tokio::spawn(async move {
            for n in 0..120u32 {
                let mut item = if n % 2 == 0 { track(1_000 + n) } else { track(n) };
                if n % 2 == 1 {
                    item.title = format!("retitled {n}");
                }
                db.put(&item).await.unwrap();
                tokio::task::yield_now().await;
            }
        })
    };
    let options = Backfill::default().segments(16).page_size(5);
    db.backfill::<Track>(Tracks::BY_TITLE, options).await.unwrap();
    writer.await.unwrap();
    while !db.catch_up::<Track>(Tracks::BY_TITLE).await.unwrap().caught_up {}
    let verified = db.verify_resharding::<Track>(Tracks::BY_TITLE, Verify::default()).await.unwrap();
    assert!(verified.is_clean(), "{verified:?}");
    db.cut_over::<Track>(Tracks::BY_TITLE).await.unwrap();
    let listed: Vec<Track> = db.stream(Track::query_by_title()).try_collect().await.unwrap();
    let mut expected: std::collections::BTreeMap<u32, Track> =
        first.into_iter().map(|track| (track.id, track)).collect();
    for n in 0..120u32 {
        let mut item = if n % 2 == 0 { track(1_000 + n) } else { track(n) };
        if n % 2 == 1 {
            item.title = format!("retitled {n}");
        }
        expected.insert(item.id, item);
    }
    let mut got: Vec<(u32, String)> = listed.iter().map(|track| (track.id, track.title.clone())).collect();
    got.sort();
    let want: Vec<(u32, String)> = expected.values().map(|track| (track.id, track.title.clone())).collect();
    assert_eq!(got, want, "every item, once, as last written");
    assert!(listed.windows(2).all(|pair| pair[0].title <= pair[1].title), "in title order");
}

#[tokio::test]
async fn pieces_the_starter_never_recorded_are_cut_by_the_next_worker() {
    let own = crate::own().await;
    let table = unique("ReshardPieceStarter");
    let db = db(&own, &table).await;
    let tracks: Vec<Track> = (0..40).map(track).collect();
    db.batch_put(&tracks).await.unwrap();
    db.start_resharding::<Track>(Tracks::BY_TITLE, Tracks::BY_TITLE_NEXT, Layout::hash(8)).await.unwrap();
    // A worker past its deadline records the scan and its pieces, and reads nothing.
    let options = Backfill::default().segments(8).stop_by(SystemTime::now());
    let state = db.backfill::<Track>(Tracks::BY_TITLE, options).await.unwrap();
    assert_eq!(state.phase, Phase::DualWrites);
    let token = state.scan.and_then(|scan| scan.pieces).expect("a scan by pieces");
    // As if it had stopped after recording the scan, before its pieces.
    let key = format!("reshard/{table}/ByTitle/Track/pieces/{token:016x}");
    let deleted = db
        .client()
        .delete_item()
        .table_name("ReshardPieceMetadata")
        .key("partition", AttributeValue::S(key))
        .return_values(aws_sdk_dynamodb::types::ReturnValue::AllOld)
        .send()
        .await
        .unwrap();
    assert!(deleted.attributes.is_some(), "the pieces were recorded where the plan names them");
    // The next worker waits a lease for them, then cuts them itself.
    let options = Backfill::default().lease(Duration::from_millis(300));
    let state = db.backfill::<Track>(Tracks::BY_TITLE, options).await.unwrap();
    assert_eq!((state.phase, state.backfill_totals().0), (Phase::Backfilled, 40));
    assert_eq!(state.segments.len(), 8);
}
