//! Cursors and fingerprints from fixed inputs, pinned: a cursor handed out by one release of
//! dynashard stays valid with the next, whatever versions of the AWS SDK or serde each is built
//! with, unless a cursor version changes on purpose.

use super::cursor::{self, fingerprint};
use super::sharded::cursor::{self as sharded_cursor, layout_fingerprint};
use super::sharded::resume::{PageEnd, Start};
use super::{Layout, NativeCondition, Query, QueryTarget, ShardMode, Shards, SortRange};
use crate::error::Item;
use crate::shard::{Boundaries, BucketWindow, Normalization, TimeBucket};
use crate::table::{Billing, IndexDefinition, IndexProjection, KeyAttribute, ScalarKind, TableDefinition};
use aws_sdk_dynamodb::types::AttributeValue;
use std::sync::Arc;

static TABLE: TableDefinition = TableDefinition {
    name: "Music",
    partition_key: "pk",
    sort_key: Some("sk"),
    type_attribute: "_type",
    indexes: &[IndexDefinition {
        local: false,
        name: "ByTitle",
        partition_key: &[KeyAttribute { name: "title_pk", kind: ScalarKind::String }],
        sort_key: &[KeyAttribute { name: "title_sk", kind: ScalarKind::String }],
        projection: IndexProjection::All,
        warm_throughput: None,
    }],
    billing: Billing::PayPerRequest,
    shard_metadata: None,
    ttl: None,
    stream: None,
    deletion_protection: false,
    point_in_time_recovery: false,
    warm_throughput: None,
    tags: &[],
};

fn query(index: bool) -> Query<()> {
    let target = QueryTarget {
        table: &TABLE,
        index: index.then(|| &TABLE.indexes[0]),
        type_name: "Album",
        partition_attribute: if index { "title_pk" } else { "pk" },
        sort_attribute: Some(if index { "title_sk" } else { "sk" }),
        sort_template: None,
    };
    Query::new(target, Ok(if index { "album" } else { "artist#Solar Fields" }.to_owned()))
}

fn key(pairs: &[(&str, &str)]) -> Item {
    pairs.iter().map(|(name, value)| ((*name).to_owned(), AttributeValue::S((*value).to_owned()))).collect()
}

fn shards(layout: Layout, mode: ShardMode, count: u32) -> Shards {
    let partitions = (0..count).map(|shard| format!("album#{shard}")).collect();
    Shards::of(partitions, mode, layout)
}

#[test]
fn query_fingerprints_are_pinned() {
    let mut plain = query(false);
    plain.plan.range = SortRange::begins_with("album#");
    assert_eq!(fingerprint(&plain.plan), "e3d42ebb46f38eb5142547e2");
    let mut native = query(true);
    native.plan.native_partition = vec![("genre", AttributeValue::S("ambient".into()))];
    native.plan.native_sort = vec![("year", AttributeValue::N("2007".into()))];
    native.plan.native_range = Some((
        "month",
        NativeCondition::Between(AttributeValue::N("3".into()), AttributeValue::N("9".into())),
    ));
    native.plan.descending = true;
    assert_eq!(fingerprint(&native.plan), "7ecdc4d5d96cd2ef9af091f0");
    let mut windowed = query(true);
    let window = BucketWindow::new("readings", 0..4, TimeBucket::Hour, 1_700_000_000, 1_700_086_399);
    let layout = Layout::Bucketed { bucket: TimeBucket::Hour, shards: 4, random: false };
    windowed.plan.shards = Some(Shards::bucketed(window, ShardMode::Buckets, layout));
    assert_eq!(fingerprint(&windowed.plan), "3c7ccb5f12fcfe9f20340eb9");
}

#[test]
fn layout_fingerprints_are_pinned() {
    let boundaries = Boundaries::from_checked(&["", "g", "n", "t"]);
    assert_eq!(boundaries.fingerprint(), "7af0572cf20d2ef3");
    let range = Layout::Range {
        normalization: Normalization::NfkdLower,
        boundaries: Arc::new(boundaries).into(),
        overflow: 1,
    };
    let resharded =
        |layout, mode, count| Shards { target: Some("ByTitleNext".into()), ..shards(layout, mode, count) };
    let layouts = [
        (shards(Layout::Hash { shards: 21 }, ShardMode::Merge, 21), "c2d87be308affea7ce210572"),
        (shards(Layout::Random { shards: 4 }, ShardMode::Merge, 4), "2b0df92d8eccb65d79fe9c5e"),
        (shards(range, ShardMode::InOrder, 4), "95ec6668e156fdfb4c673663"),
        (
            shards(Layout::Dynamic { max: 8, readable: Some(3) }, ShardMode::Merge, 3),
            "ee61805ec48b81b2eb9e4596",
        ),
        (resharded(Layout::hash(8), ShardMode::Merge, 8), "5e5e7c60a682f78ca77d0084"),
    ];
    for (shards, pinned) in layouts {
        assert_eq!(layout_fingerprint(&shards), pinned, "{shards:?}");
    }
}

#[test]
fn cursors_are_pinned_and_still_decode() {
    let mut plain = query(false);
    plain.plan.range = SortRange::begins_with("album#");
    let plain = fingerprint(&plain.plan);
    let last = key(&[("pk", "artist#Solar Fields"), ("sk", "album#Leaving Home")]);
    let pinned = "eyJ2IjoyLCJmIjoiZTNkNDJlYmI0NmYzOGViNTE0MjU0N2UyIiwiayI6eyJwayI6eyJTIjoiYXJ0aXN0I1NvbGFyIEZpZWxkcyJ9LCJzayI6eyJTIjoiYWxidW0jTGVhdmluZyBIb21lIn19fQ.1uJP0ceG0liW8nU12c6nvw";
    assert_eq!(cursor::encode(&plain, Some(&last), None), pinned);
    assert_eq!(cursor::decode(pinned, &plain, None), Ok(Some(last)));

    let merge = shards(Layout::Hash { shards: 21 }, ShardMode::Merge, 21);
    let merged = fingerprint(&query(true).plan);
    let end = key(&[
        ("pk", "artist#Solar Fields"),
        ("sk", "album#Leaving Home"),
        ("title_pk", "album#17"),
        ("title_sk", "leaving home"),
    ]);
    let start = Start::After(PageEnd::at(17, end));
    let pinned = "eyJ2IjozLCJmIjoiOTNiNjg2Yzc1ZTQ5NGM3YTNkMzc1YTE0IiwibCI6ImMyZDg3YmUzMDhhZmZlYTdjZTIxMDU3MiIsImUiOnsibiI6MTcsImsiOnsicGsiOnsiUyI6ImFydGlzdCNTb2xhciBGaWVsZHMifSwic2siOnsiUyI6ImFsYnVtI0xlYXZpbmcgSG9tZSJ9LCJ0aXRsZV9zayI6eyJTIjoibGVhdmluZyBob21lIn19fSwicyI6NTIyfQ.kHDpR1Gx7gVBlpARIQF6yA";
    assert_eq!(sharded_cursor::encode(&merged, &merge, "title_pk", (&start, Some(522)), None), pinned);
    let partition = |lane: u64| (lane < 21).then(|| format!("album#{lane}"));
    assert_eq!(
        sharded_cursor::decode(pinned, &merged, &merge, "title_pk", partition, None),
        Ok((start, Some(522)))
    );
}
