//! Sharded index mappings: hash, random and range shards (with two normalizations). Writes put
//! the shard into the index partition key (`album#N`); queries read every shard partition.
//!
//! A relative boundaries path is looked up from the package's directory, then from the source
//! file's (this one reaches `tests/ui/data` as `../ui/data`).

use dynashard::query::ShardMode;
use dynashard::shard::range_sort_key;
use dynashard::AttributeValue;
use dynashard::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "Music", pk = "pk", sk = "sk")]
#[gsi(ByHash(pk = "hash_pk", sk = "hash_sk"))]
#[gsi(Anywhere(pk = "random_pk", sk = "random_sk"))]
#[gsi(ByRange(pk = "range_pk", sk = "range_sk"))]
#[gsi(ByRawRange(pk = "raw_pk", sk = "raw_sk"))]
struct Music;

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Music, pk = "{artist}", sk = "album#{title}")]
#[gsi(ByHash(pk = "album", sk = "{title}"))]
#[shard(ByHash(hash = 7, by = title))]
#[gsi(Anywhere(pk = "album", sk = "{year}"))]
#[shard(Anywhere(random = 3))]
#[gsi(ByRange(pk = "album", sk = "{title}"))]
#[shard(ByRange(range = "../ui/data/boundaries_3.json", by = title))]
#[gsi(ByRawRange(pk = "album", sk = "{title}"))]
#[shard(ByRawRange(range = "../ui/data/boundaries_3.json", by = title, normalize = "none"))]
struct Album {
    artist: String,
    title: String,
    year: u16,
}

fn s(text: &str) -> AttributeValue {
    AttributeValue::S(text.to_owned())
}

fn partitions(count: u32) -> Vec<String> {
    (0..count).map(|shard| format!("album#{shard}")).collect()
}

#[test]
fn accepted() {
    let album = Album { artist: "Solar Fields".into(), title: "Leaving Home".into(), year: 2005 };
    let item = dynashard::item::to_item(&album).unwrap();

    // Hash: SHA-256 of the title modulo 7; the sort key is the template.
    assert_eq!(item.get("hash_pk"), Some(&s("album#6")));
    assert_eq!(item.get("hash_sk"), Some(&s("Leaving Home")));

    // Random: any of the 3 shards.
    let Some(AttributeValue::S(random_pk)) = item.get("random_pk") else { panic!("no random_pk") };
    assert!(partitions(3).contains(random_pk), "{random_pk}");
    assert_eq!(item.get("random_sk"), Some(&s("02005")));

    // Range over ["", "h", "p"]: "leaving home" (NFKD, lower case) falls in ["h", "p").
    assert_eq!(item.get("range_pk"), Some(&s("album#1")));
    let sort_key = range_sort_key("leaving home", "Leaving Home", &["Solar Fields", "album#Leaving Home"]);
    assert_eq!(item.get("range_sk"), Some(&s(&sort_key)));
    // Without normalization "L" sorts before "h".
    assert_eq!(item.get("raw_pk"), Some(&s("album#0")));
    let sort_key = range_sort_key("Leaving Home", "Leaving Home", &["Solar Fields", "album#Leaving Home"]);
    assert_eq!(item.get("raw_sk"), Some(&s(&sort_key)));

    let zoo = Album { artist: "Zoo".into(), title: "Zoo".into(), year: 1999 };
    let item = dynashard::item::to_item(&zoo).unwrap();
    assert_eq!(item.get("hash_pk"), Some(&s("album#4")));
    assert_eq!(item.get("range_pk"), Some(&s("album#2")));
    assert_eq!(item.get("raw_pk"), Some(&s("album#0")));

    // Queries read every shard: range shards in order, the others merged.
    let query = Album::query_by_hash();
    let shards = query.plan_shards().unwrap();
    assert_eq!(shards.partitions, partitions(7));
    assert_eq!(shards.mode, ShardMode::Merge);

    let query = Album::query_anywhere();
    let shards = query.plan_shards().unwrap();
    assert_eq!(shards.partitions, partitions(3));
    assert_eq!(shards.mode, ShardMode::Merge);

    for query in [Album::query_by_range(), Album::query_by_raw_range()] {
        let shards = query.plan_shards().unwrap();
        assert_eq!(shards.partitions, partitions(3));
        assert_eq!(shards.mode, ShardMode::InOrder);
    }
    // The layout fingerprint tells the two normalizations apart.
    let (by_range, by_raw_range) = (Album::query_by_range(), Album::query_by_raw_range());
    assert_ne!(by_range.plan_shards().unwrap().layout, by_raw_range.plan_shards().unwrap().layout);
}
