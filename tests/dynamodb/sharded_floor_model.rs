//! Notes of about 470 bytes behind four copies of one index: hash shards, random shards, and
//! one unsharded partition, all sorted by title; and minute buckets over four random shards,
//! sorted by time, twice: without and with a bucket directory. Every test writes under a group of its own.

use dynashard::{Db, Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "ShardedFloor", pk = "pk", sk = "sk")]
#[gsi(ByTitle(pk = "title_pk", sk = "title_sk"))]
#[gsi(Scattered(pk = "scattered_pk", sk = "scattered_sk"))]
#[gsi(Plain(pk = "plain_pk", sk = "plain_sk"))]
#[gsi(Feed(pk = "feed_pk", sk = "feed_sk"))]
#[gsi(Listed(pk = "listed_pk", sk = "listed_sk"))]
#[gsi(ListedTitles(pk = "listed_titles_pk", sk = "listed_titles_sk"))]
pub struct Floor;

/// One note; `n` tells notes of one group apart.
#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = Floor, pk = "note#{group}", sk = "{n}")]
#[gsi(ByTitle(pk = "{group}", sk = "{title}#{n}"))]
#[shard(ByTitle(hash = 21, by = title))]
#[gsi(Scattered(pk = "{group}", sk = "{title}#{n}"))]
#[shard(Scattered(random = 8))]
#[gsi(Plain(pk = "{group}", sk = "{title}#{n}"))]
#[gsi(Feed(pk = "{group}", sk = "{at}#{n}"))]
#[shard(Feed(random = 4, bucket = "minute", at = at))]
pub struct Note {
    pub group: String,
    pub n: u32,
    pub title: String,
    pub at: i64,
    pub body: String,
}

/// A note in minute buckets over four random shards with a bucket directory, sorted by time and
/// by title, stored apart from the notes so that their sizes stay as they are.
#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = Floor, pk = "listed#{group}", sk = "{n}")]
#[gsi(Listed(pk = "{group}", sk = "{at}#{n}"))]
#[shard(Listed(random = 4, bucket = "minute", at = at, directory))]
#[gsi(ListedTitles(pk = "{group}", sk = "{title}#{at}#{n}"))]
#[shard(ListedTitles(random = 4, bucket = "minute", at = at, directory))]
pub struct Listed {
    pub group: String,
    pub n: u32,
    pub title: String,
    pub at: i64,
    pub body: String,
}

impl From<Note> for Listed {
    fn from(Note { group, n, title, at, body }: Note) -> Self {
        Listed { group, n, title, at, body }
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

/// A group name of a fixed length, unique to one test run: the notes' sizes, and so how many
/// fit a read unit, do not depend on the process id.
pub fn group(prefix: &str) -> String {
    let unique = crate::unique(prefix);
    let suffix = unique.trim_start_matches(prefix);
    format!("{prefix}{suffix:0>24}")
}

/// Note `n` of `group`, with a title drawn from `random`, taken at `at`.
pub fn note(group: &str, n: u32, random: &mut Lcg, at: i64) -> Note {
    const WORDS: &[&str] = &["amber", "basalt", "cedar", "delta", "ember", "fjord", "granite", "harbor"];
    let title: Vec<&str> = (0..4).map(|_| WORDS[random.below(WORDS.len() as u64) as usize]).collect();
    let body = (0..4).map(|i| WORDS[(i * 7 + n as usize) % WORDS.len()]).collect::<Vec<_>>().join(" ");
    Note { group: group.to_owned(), n, title: title.join(" "), at, body }
}

/// The table, created once.
pub async fn floor(db: &Db) {
    static CREATED: tokio::sync::OnceCell<()> = tokio::sync::OnceCell::const_new();
    CREATED.get_or_init(|| async { db.create_table::<Floor>().await.expect("create ShardedFloor") }).await;
}
