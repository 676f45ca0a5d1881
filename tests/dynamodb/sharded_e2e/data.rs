//! The records, written once per run with `batch_put`, and the order each index must list them
//! in, computed from the index keys DynamoDB stored.

use super::model::{E2eRecord, E2eRecords};
pub use super::records::{Lcg, RECORDS};
use aws_sdk_dynamodb::types::AttributeValue;
use dynashard::shard::{hash_shard, range_sort_key, Boundaries, Normalization};
use dynashard::{Db, Query};
use futures::TryStreamExt;
use std::collections::HashMap;
use tokio::sync::OnceCell;

pub const HASH_SHARDS: u32 = 21;
pub const RANDOM_SHARDS: u32 = 8;

/// The three sharded copies of the title index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    Hash,
    Range,
    Random,
}

/// Where one index placed one record: its shard and its stored sort key.
#[derive(Debug, Clone)]
pub struct Placed {
    pub shard: u32,
    pub sk: String,
}

/// The order an index lists the records in, ascending, as record numbers.
pub struct Listing {
    pub strategy: Strategy,
    pub order: Vec<u32>,
    /// The shard of each record, by record number.
    pub shard_of: Vec<u32>,
    pub shards: u32,
}

impl Listing {
    pub fn expected(&self, descending: bool) -> Vec<u32> {
        let mut order = self.order.clone();
        if descending {
            order.reverse();
        }
        order
    }

    /// How many records each shard holds.
    pub fn per_shard(&self) -> Vec<usize> {
        let mut counts = vec![0; self.shards as usize];
        for shard in &self.shard_of {
            counts[*shard as usize] += 1;
        }
        counts
    }
}

pub struct Data {
    pub records: Vec<E2eRecord>,
    pub hash: Listing,
    pub range: Listing,
    pub random: Listing,
}

impl Data {
    pub fn listings(&self) -> [&Listing; 3] {
        [&self.hash, &self.range, &self.random]
    }
}
fn boundaries() -> Boundaries {
    Boundaries::from_json(include_str!("../../data/album_boundaries_21.json")).expect("the seed's boundaries")
}

/// The records, written on first use, and the order each index lists them in.
pub async fn data(db: &Db) -> &'static Data {
    static DATA: OnceCell<Data> = OnceCell::const_new();
    DATA.get_or_init(|| async {
        db.create_table::<E2eRecords>().await.expect("create the records table");
        let records = super::records::records(&mut Lcg(2026));
        db.batch_put(&records).await.expect("the records are written");
        let stored = stored(db).await;
        assert_eq!(stored.len(), RECORDS, "every record is stored once");
        check_placement(&records, &stored);
        let numbers: Vec<u32> = records.iter().map(|record| record.n).collect();
        let hash = Index { strategy: Strategy::Hash, name: "TitleHash", pk: "hash_pk", shards: HASH_SHARDS };
        let hash = merged_listing(db, hash, &stored, |stored| &stored.hash).await;
        let random =
            Index { strategy: Strategy::Random, name: "TitleRandom", pk: "random_pk", shards: RANDOM_SHARDS };
        let random = merged_listing(db, random, &stored, |stored| &stored.random).await;
        let range = range_listing(&numbers, &stored);
        Data { records, hash, range, random }
    })
    .await
}

/// The index keys of one stored record.
struct Stored {
    pk: String,
    sk: String,
    hash: Placed,
    range: Placed,
    random: Placed,
}

fn text<'a>(item: &'a dynashard::Item, attribute: &str) -> &'a str {
    item.get(attribute)
        .and_then(|value| value.as_s().ok())
        .unwrap_or_else(|| panic!("{attribute} in {item:?}"))
}

fn number(item: &dynashard::Item) -> u32 {
    item.get("n").and_then(|n| n.as_n().ok()).and_then(|n| n.parse().ok()).expect("a record number")
}

fn placed(item: &dynashard::Item, pk: &str, sk: &str, prefix: &str) -> Placed {
    let shard = text(item, pk).strip_prefix(prefix).and_then(|shard| shard.parse().ok());
    Placed { shard: shard.unwrap_or_else(|| panic!("{pk} of {item:?}")), sk: text(item, sk).to_owned() }
}

/// Every stored record's index keys, by record number, read with a scan of the table.
async fn stored(db: &Db) -> HashMap<u32, Stored> {
    let items: Vec<dynashard::Item> = db
        .client()
        .scan()
        .table_name(db.table_name::<E2eRecords>())
        .consistent_read(true)
        .into_paginator()
        .items()
        .send()
        .try_collect()
        .await
        .expect("the table scans");
    items
        .iter()
        .map(|item| {
            let stored = Stored {
                pk: text(item, "pk").to_owned(),
                sk: text(item, "sk").to_owned(),
                hash: placed(item, "hash_pk", "hash_sk", "hashed#"),
                range: placed(item, "range_pk", "range_sk", "ranged#"),
                random: placed(item, "random_pk", "random_sk", "scattered#"),
            };
            (number(item), stored)
        })
        .collect()
}

/// Checks that every record's index keys are the ones its layout computes.
fn check_placement(records: &[E2eRecord], stored: &HashMap<u32, Stored>) {
    let boundaries = boundaries();
    for record in records {
        let keys = &stored[&record.n];
        let key = E2eRecord::key(&record.artist, &record.title).expect("a key");
        assert_eq!((keys.pk.as_str(), Some(keys.sk.as_str())), (key.pk(), key.sk()));
        let escaped = dynashard::key::escape(&record.title);
        assert_eq!(keys.hash.sk, escaped, "hash shards keep the template's sort key");
        assert_eq!(keys.random.sk, escaped, "random shards keep the template's sort key");
        assert_eq!(keys.hash.shard, hash_shard(&record.title, HASH_SHARDS), "{:?}", record.title);
        assert!(keys.random.shard < RANDOM_SHARDS);
        let normalized = Normalization::NfkdLower.apply(&record.title);
        let range_sk = range_sort_key(&normalized, &record.title, &[&keys.pk, &keys.sk]);
        assert_eq!(keys.range.sk, range_sk, "{:?}", record.title);
        assert_eq!(keys.range.shard, boundaries.shard_of_normalized(&normalized), "{:?}", record.title);
    }
}

/// A range index's sort keys are unique (the normalized title, the title, the base key), so they
/// alone give its order.
fn range_listing(numbers: &[u32], stored: &HashMap<u32, Stored>) -> Listing {
    let mut order = numbers.to_vec();
    order.sort_by(|a, b| stored[a].range.sk.as_bytes().cmp(stored[b].range.sk.as_bytes()));
    let shard_of = numbers.iter().map(|n| stored[n].range.shard).collect();
    Listing { strategy: Strategy::Range, order, shard_of, shards: boundaries().shards() }
}

/// A hash or random copy of the title index.
struct Index {
    strategy: Strategy,
    name: &'static str,
    pk: &'static str,
    shards: u32,
}

/// The order of a merged index. Records with equal titles have equal sort keys: in one shard,
/// DynamoDB returns them in an order of its own, and the merge takes equal keys shard by shard.
/// So: every shard read as DynamoDB returns it, then a stable sort on the stored sort-key bytes.
async fn merged_listing(
    db: &Db,
    index: Index,
    stored: &HashMap<u32, Stored>,
    place: impl Fn(&Stored) -> &Placed,
) -> Listing {
    let prefix = if index.strategy == Strategy::Hash { "hashed" } else { "scattered" };
    let mut order = Vec::with_capacity(RECORDS);
    for shard in 0..index.shards {
        let items: Vec<dynashard::Item> = db
            .client()
            .query()
            .table_name(db.table_name::<E2eRecords>())
            .index_name(index.name)
            .key_condition_expression("#pk = :pk")
            .expression_attribute_names("#pk", index.pk)
            .expression_attribute_values(":pk", AttributeValue::S(format!("{prefix}#{shard}")))
            .into_paginator()
            .items()
            .send()
            .try_collect()
            .await
            .expect("a shard reads");
        let numbers: Vec<u32> = items.iter().map(number).collect();
        assert!(
            numbers.iter().all(|n| place(&stored[n]).shard == shard),
            "{:?} shard {shard}",
            index.strategy
        );
        let keys: Vec<&[u8]> = numbers.iter().map(|n| place(&stored[n]).sk.as_bytes()).collect();
        assert!(keys.windows(2).all(|pair| pair[0] <= pair[1]), "a shard is sorted by its sort key");
        order.extend(numbers);
    }
    assert_eq!(order.len(), RECORDS, "{:?}: every record is in the index once", index.strategy);
    order.sort_by(|a, b| place(&stored[a]).sk.as_bytes().cmp(place(&stored[b]).sk.as_bytes()));
    let mut shard_of = vec![0; RECORDS];
    for (n, keys) in stored {
        shard_of[*n as usize] = place(keys).shard;
    }
    Listing { strategy: index.strategy, order, shard_of, shards: index.shards }
}

/// Record numbers of everything `query` streams.
pub async fn ids<F>(db: &Db, query: Query<E2eRecord, F>) -> Vec<u32> {
    let records: Vec<E2eRecord> = db.stream(query).try_collect().await.expect("the stream reads");
    records.into_iter().map(|record| record.n).collect()
}

/// Asserts two listings are equal, naming the first difference instead of printing both.
pub fn assert_same(got: &[u32], expected: &[u32], context: &str) {
    if let Some(at) = (0..got.len().min(expected.len())).find(|&i| got[i] != expected[i]) {
        panic!("{context}: first difference at {at}: got record {}, expected {}", got[at], expected[at]);
    }
    assert_eq!(got.len(), expected.len(), "{context}: lengths differ");
}

pub fn directed<F>(query: Query<E2eRecord, F>, descending: bool) -> Query<E2eRecord, F> {
    if descending {
        query.descending()
    } else {
        query
    }
}

/// Runs `$body` with `$query` bound to a function building the query of `$listing`'s index: the
/// three entry points return different query types.
macro_rules! with_query {
    ($listing:expr, |$query:ident| $body:expr) => {
        match $listing.strategy {
            $crate::sharded_e2e::data::Strategy::Hash => {
                let $query = $crate::sharded_e2e::model::E2eRecord::query_title_hash;
                $body
            }
            $crate::sharded_e2e::data::Strategy::Range => {
                let $query = $crate::sharded_e2e::model::E2eRecord::query_title_range;
                $body
            }
            $crate::sharded_e2e::data::Strategy::Random => {
                let $query = $crate::sharded_e2e::model::E2eRecord::query_title_random;
                $body
            }
        }
    };
}
pub(crate) use with_query;
