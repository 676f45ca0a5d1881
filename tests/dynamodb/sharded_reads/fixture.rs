//! Two data sets of about 10,000 entries over 21 shards, written once per run:
//!
//! - merged: every title on a random shard, with many titles on several shards;
//! - ranged: contiguous slices of the sort order (two shards empty), each boundary title written
//!   on both sides of the boundary.
//!
//! Titles mix ASCII, accents (precomposed and combining), CJK, emoji, full-width letters and the
//! key separators, so byte order differs from naive character or UTF-16 order.

use super::shard_model::{Entry, ShardedReads};
use crate::unique;
use aws_sdk_dynamodb::types::{PutRequest, WriteRequest};
use dynashard::query::{End, Layout, ShardMode, Shards};
use dynashard::{Db, Query};
use futures::{StreamExt, TryStreamExt};
use std::collections::HashSet;
use tokio::sync::OnceCell;

pub const SHARDS: usize = 21;
const EMPTY_RANGE_SHARDS: [usize; 2] = [4, 13];
const PIECES: &[&str] = &[
    "alpha",
    "Beta",
    "gamma",
    "Ω",
    "élan",
    "e\u{301}lan",
    "ß",
    "日本",
    "ñu",
    "😀",
    "z",
    "A",
    "m",
    "0",
    "9",
    " ",
    "-",
    "Ｚ",
    "ﬁ",
    "Zeta",
    "a#b",
    "$",
];

/// One stored entry, as the test expects to read it back.
#[derive(Debug, Clone)]
pub struct Row {
    /// The stored sort key (`t#` and the escaped title).
    pub sk: String,
    pub shard: u32,
    pub n: u32,
}

/// Entries written under `<bucket>#<shard>`, in merged ascending order (sort key, then shard).
pub struct Dataset {
    pub bucket: String,
    pub mode: ShardMode,
    pub rows: Vec<Row>,
}

impl Dataset {
    /// The partitions of the data set, laid out as `layout` says.
    pub fn layout(&self, layout: Layout) -> Shards {
        let partitions = (0..SHARDS).map(|shard| format!("{}#{shard}", self.bucket)).collect();
        Shards::of(partitions, self.mode, layout)
    }

    /// A query over every shard of the data set.
    pub fn query(&self) -> Query<Entry, End<String>> {
        Entry::query("unused").sharded(self.layout(Layout::Hash { shards: SHARDS as u32 }))
    }

    /// `(shard, n)` of the rows `keep` accepts, in the order a read must return them.
    pub fn expected(&self, descending: bool, keep: impl Fn(&Row) -> bool) -> Vec<(u32, u32)> {
        let mut rows: Vec<(u32, u32)> =
            self.rows.iter().filter(|row| keep(row)).map(|r| (r.shard, r.n)).collect();
        if descending {
            rows.reverse();
        }
        rows
    }

    /// How many entries each shard holds.
    pub fn per_shard(&self) -> Vec<usize> {
        let mut counts = vec![0; SHARDS];
        for row in &self.rows {
            counts[row.shard as usize] += 1;
        }
        counts
    }
}

/// A small deterministic generator, so a failure can be replayed.
pub struct Lcg(pub u64);

impl Lcg {
    pub fn below(&mut self, bound: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) % bound
    }
}

fn title(random: &mut Lcg) -> String {
    let mut title: String =
        (0..1 + random.below(3)).map(|_| PIECES[random.below(PIECES.len() as u64) as usize]).collect();
    title.push_str(&random.below(400).to_string());
    title
}

fn sort_key(title: &str) -> String {
    format!("t#{}", dynashard::key::escape(title))
}

/// The merged and the ranged data set, written on first use.
pub async fn datasets(db: &Db) -> &'static (Dataset, Dataset) {
    static DATA: OnceCell<(Dataset, Dataset)> = OnceCell::const_new();
    DATA.get_or_init(|| async {
        db.create_table::<ShardedReads>().await.expect("create ShardedReads");
        let merged = merged(&mut Lcg(7));
        let ranged = ranged(&mut Lcg(11));
        write(db, &merged).await;
        write(db, &ranged).await;
        (merged, ranged)
    })
    .await
}

fn merged(random: &mut Lcg) -> Dataset {
    let mut used = HashSet::new();
    let mut rows = Vec::new();
    for n in 0..10_000u32 {
        let sk = sort_key(&title(random));
        let mut shard = random.below(SHARDS as u64) as u32;
        while !used.insert((shard, sk.clone())) {
            shard = (shard + 1) % SHARDS as u32;
        }
        rows.push(Row { sk, shard, n });
    }
    finish(unique("merged"), ShardMode::Merge, rows)
}

fn ranged(random: &mut Lcg) -> Dataset {
    let mut keys = HashSet::new();
    while keys.len() < 9_980 {
        keys.insert(sort_key(&title(random)));
    }
    let mut keys: Vec<String> = keys.into_iter().collect();
    keys.sort();
    let weights: Vec<usize> = (0..SHARDS)
        .map(|s| if EMPTY_RANGE_SHARDS.contains(&s) { 0 } else { 1 + random.below(5) as usize })
        .collect();
    let total: usize = weights.iter().sum();
    let (mut rows, mut start, mut previous_last) = (Vec::new(), 0, None::<String>);
    for (shard, weight) in weights.iter().enumerate() {
        let end = if shard == SHARDS - 1 { keys.len() } else { start + keys.len() * weight / total };
        if start == end {
            continue;
        }
        // The boundary key is written on both sides, as a range shard's tiebreak would allow.
        for sk in previous_last.iter().chain(&keys[start..end]) {
            rows.push(Row { sk: sk.clone(), shard: shard as u32, n: rows.len() as u32 });
        }
        previous_last = Some(keys[end - 1].clone());
        start = end;
    }
    finish(unique("ranged"), ShardMode::InOrder, rows)
}

fn finish(bucket: String, mode: ShardMode, mut rows: Vec<Row>) -> Dataset {
    rows.sort_by(|a, b| a.sk.as_bytes().cmp(b.sk.as_bytes()).then(a.shard.cmp(&b.shard)));
    Dataset { bucket, mode, rows }
}

/// The title a row's sort key encodes.
pub fn title_of(row: &Row) -> String {
    dynashard::key::unescape_prefix(&row.sk[2..]).expect("a stored title").0
}

async fn write(db: &Db, data: &Dataset) {
    let requests: Vec<WriteRequest> = data
        .rows
        .iter()
        .map(|row| {
            let entry = Entry { bucket: "unused".into(), title: title_of(row), shard: row.shard, n: row.n };
            let mut item = dynashard::item::to_item(&entry).expect("an item");
            assert_eq!(item["sk"].as_s().ok(), Some(&row.sk), "the model's sort key");
            let partition = format!("{}#{}", data.bucket, row.shard);
            item.insert("pk".into(), aws_sdk_dynamodb::types::AttributeValue::S(partition));
            let put = PutRequest::builder().set_item(Some(item)).build().expect("a put");
            WriteRequest::builder().put_request(put).build()
        })
        .collect();
    let table = db.table_name::<ShardedReads>().to_owned();
    futures::stream::iter(requests.chunks(25).map(<[WriteRequest]>::to_vec))
        .map(|mut batch| {
            let (db, table) = (db.clone(), table.clone());
            async move {
                while !batch.is_empty() {
                    let output = db.client().batch_write_item().request_items(&table, batch).send().await?;
                    batch = output
                        .unprocessed_items
                        .and_then(|mut items| items.remove(&table))
                        .unwrap_or_default();
                }
                Ok::<_, aws_sdk_dynamodb::Error>(())
            }
        })
        .buffer_unordered(16)
        .try_collect::<Vec<()>>()
        .await
        .expect("the data set is written");
}

/// `(shard, n)` of everything `query` streams.
pub async fn ids<F>(db: &Db, query: Query<Entry, F>) -> Vec<(u32, u32)> {
    let entries: Vec<Entry> = db.stream(query).try_collect().await.expect("the stream reads");
    entries.into_iter().map(|entry| (entry.shard, entry.n)).collect()
}

/// Asserts two listings are equal, naming the first difference instead of printing both.
pub fn assert_same(got: &[(u32, u32)], expected: &[(u32, u32)], context: &str) {
    if let Some(at) = (0..got.len().min(expected.len())).find(|&i| got[i] != expected[i]) {
        panic!("{context}: first difference at {at}: got {:?}, expected {:?}", got[at], expected[at]);
    }
    assert_eq!(got.len(), expected.len(), "{context}: lengths differ");
}
