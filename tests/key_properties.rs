//! Properties of key encoding over generated values full of separators and escape characters:
//! distinct tuples never share a key, decoding inverts encoding, template prefixes are safe, and
//! integer order is sort-key order.

use dynashard::key::{escape, DecodeKeyPart, KeyPart, KeyRole, KeyTemplate, Segment};
use dynashard::{Entity, Table};
use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

#[derive(Table)]
#[table(name = "Music", pk = "pk", sk = "sk")]
struct Music;

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Music, pk = "{artist}", sk = "song#{album}#{title}")]
struct Song {
    artist: String,
    album: String,
    title: String,
}

static SONG_SK: KeyTemplate = KeyTemplate {
    attribute: "sk",
    source: "song#{album}#{title}",
    segments: &[
        Segment::Literal("song#"),
        Segment::Field("album"),
        Segment::Literal("#"),
        Segment::Field("title"),
    ],
    role: KeyRole::Sort,
};

fn sort_key(album: &str, title: &str) -> String {
    Song::key("artist", album, title).expect("valid key").sk().expect("has a sort key").to_owned()
}

fn decode(key: &str) -> (String, String) {
    (
        SONG_SK.decode_field(key, 0).expect("album decodes"),
        SONG_SK.decode_field(key, 1).expect("title decodes"),
    )
}

/// Non-empty values drawn mostly from the characters that matter: separator, escape, and their
/// neighbours in byte order, plus multi-byte characters.
fn value() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec!['#', '$', '#', '$', '"', '%', 'x', 'y', ' ', 'é', '😀']),
        1..8,
    )
    .prop_map(|chars| chars.into_iter().collect())
}

fn encoded<T: KeyPart>(value: T) -> String {
    let mut out = String::new();
    T::encode(value.as_arg(), &mut out);
    out
}

fn round_trips<T: KeyPart + DecodeKeyPart + PartialEq + Copy>(value: T) -> bool {
    let text = encoded(value);
    matches!(T::decode_prefix(&text), Ok((decoded, "")) if decoded == value)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(50_000))]

    /// 50,000 cases of two tuples each: 100,000 tuples.
    #[test]
    fn distinct_tuples_never_share_a_key_and_decoding_inverts(
        a in (value(), value()),
        b in (value(), value()),
    ) {
        let key_a = sort_key(&a.0, &a.1);
        let key_b = sort_key(&b.0, &b.1);
        prop_assert_eq!(a == b, key_a == key_b);
        prop_assert_eq!(decode(&key_a), a.clone());
        prop_assert_eq!(decode(&key_b), b.clone());
        // begins_with(sk, <songs of album b>) matches exactly the songs of album b.
        let prefix_b = format!("song#{}#", escape(&b.0));
        prop_assert_eq!(key_a.starts_with(&prefix_b), a.0 == b.0);
    }

    #[test]
    fn string_order_is_preserved_within_a_value(a in value(), b in value()) {
        prop_assert_eq!(a.cmp(&b), escape(&a).cmp(&escape(&b)));
    }

    #[test]
    fn signed_integer_order_is_sort_key_order(a in any::<i64>(), b in any::<i64>()) {
        prop_assert_eq!(a.cmp(&b), encoded(a).cmp(&encoded(b)));
        prop_assert!(round_trips::<i64>(a));
    }

    #[test]
    fn unsigned_integer_order_is_sort_key_order(a in any::<u32>(), b in any::<u32>()) {
        prop_assert_eq!(a.cmp(&b), encoded(a).cmp(&encoded(b)));
        prop_assert!(round_trips::<u32>(a));
    }

    #[test]
    fn small_integer_types_round_trip(a in any::<i8>(), b in any::<u16>(), c in any::<i128>()) {
        prop_assert!(round_trips::<i8>(a));
        prop_assert!(round_trips::<u16>(b));
        prop_assert!(round_trips::<i128>(c));
    }
}

/// Every tuple over a three-letter alphabet of `a`, `#` and `$`, up to three characters a field.
#[test]
fn exhaustive_small_alphabet_is_injective() {
    let mut values = vec![String::new()];
    for _ in 0..3 {
        let longer: Vec<String> =
            values.iter().flat_map(|v| ['a', '#', '$'].map(|c| format!("{v}{c}"))).collect();
        values.extend(longer);
    }
    values.retain(|v| !v.is_empty());
    values.sort();
    values.dedup();
    let mut seen: HashMap<String, (String, String)> = HashMap::new();
    for album in &values {
        for title in &values {
            let key = sort_key(album, title);
            let tuple = (album.clone(), title.clone());
            assert_eq!(decode(&key), tuple);
            if let Some(previous) = seen.insert(key.clone(), tuple.clone()) {
                panic!("{previous:?} and {tuple:?} share the key {key}");
            }
        }
    }
    assert_eq!(seen.len(), values.len() * values.len());
}
