//! Full and limited listings of every sharded index, in both directions, against the order
//! computed from the stored index keys.

use super::data::{assert_same, data, directed, ids, with_query, Listing, RECORDS};
use crate::db;
use dynashard::shard::Normalization;
use std::collections::HashSet;

#[tokio::test]
async fn the_data_is_skewed_unicode_with_duplicates() {
    let db = db().await;
    let data = data(&db).await;
    let titles: Vec<&str> = data.records.iter().map(|record| record.title.as_str()).collect();
    let greatest = titles.iter().filter(|title| **title == "Greatest Hits").count();
    assert!(greatest > 200, "a hot duplicated title: {greatest}");
    let distinct: HashSet<&str> = titles.iter().copied().collect();
    assert!(distinct.len() < RECORDS / 2, "many titles repeat: {} distinct", distinct.len());
    for title in ["Leaving Home", "leaving home", "LEAVING HOME"] {
        assert!(titles.contains(&title), "{title}");
    }
    let non_ascii = titles.iter().filter(|title| !title.is_ascii()).count();
    assert!(non_ascii > RECORDS / 5, "{non_ascii} non-ASCII titles");
    for probe in ["\u{301}", "東京", "🎸", "Ｌ", "İ", "ß", "Σ", "\u{1}", "#", "$"] {
        assert!(titles.iter().any(|title| title.contains(probe)), "a title with {probe:?}");
    }
    for listing in data.listings() {
        let empty = listing.per_shard().iter().filter(|count| **count == 0).count();
        assert_eq!(empty, 0, "{:?}: every shard holds records: {:?}", listing.strategy, listing.per_shard());
    }
}

/// Equal titles in the range index differ only by their tiebreak; in the hash index they share a
/// shard; in the random index they are spread over shards.
#[tokio::test]
async fn duplicates_and_case_variants_sit_where_the_layout_says() {
    let db = db().await;
    let data = data(&db).await;
    let shards_of = |listing: &Listing, title: &str| -> HashSet<u32> {
        let records = data.records.iter().filter(|record| record.title == title);
        records.map(|record| listing.shard_of[record.n as usize]).collect()
    };
    assert_eq!(shards_of(&data.hash, "Greatest Hits").len(), 1);
    assert_eq!(shards_of(&data.range, "Greatest Hits").len(), 1);
    assert_eq!(shards_of(&data.random, "Greatest Hits").len(), 8, "random shards spread duplicates");
    // "Leaving Home" and "leaving home" normalize alike, so they route to one range shard and sit
    // next to each other in the range listing.
    let variants = ["Leaving Home", "leaving home", "LEAVING HOME", "Leaving home"];
    let shards: HashSet<u32> = variants.iter().flat_map(|title| shards_of(&data.range, title)).collect();
    assert_eq!(shards.len(), 1);
    let title_of = |n: u32| data.records[n as usize].title.as_str();
    let run: Vec<&str> = data
        .range
        .order
        .iter()
        .map(|n| title_of(*n))
        .skip_while(|title| Normalization::NfkdLower.apply(title) != "leaving home")
        .take_while(|title| Normalization::NfkdLower.apply(title) == "leaving home")
        .collect();
    let count =
        data.records.iter().filter(|r| Normalization::NfkdLower.apply(&r.title) == "leaving home").count();
    assert_eq!(run.len(), count, "one contiguous run of every variant");
    let mut sorted = run.clone();
    sorted.sort();
    assert_eq!(run, sorted, "within the run, by the original title");
}

#[tokio::test]
async fn full_listings_equal_the_sorted_input() {
    let db = db().await;
    let data = data(&db).await;
    for listing in data.listings() {
        for descending in [false, true] {
            let context = format!("{:?}, descending: {descending}", listing.strategy);
            let got = with_query!(listing, |query| ids(&db, directed(query(), descending)).await);
            let distinct: HashSet<u32> = got.iter().copied().collect();
            assert_eq!(distinct.len(), got.len(), "{context}: nothing is listed twice");
            assert_eq!(distinct.len(), RECORDS, "{context}: nothing is lost");
            assert_same(&got, &listing.expected(descending), &context);
        }
    }
}

#[tokio::test]
async fn limits_cut_the_listing_across_shards() {
    let db = db().await;
    let data = data(&db).await;
    for listing in data.listings() {
        for descending in [false, true] {
            let expected = listing.expected(descending);
            // A limited merge asks each shard for what is still wanted; pages of 100 keep the
            // large limits from reading every shard that deep.
            for (limit, page) in
                [(1, None), (10, None), (250, None), (4_321, Some(100)), (20_000, Some(1_000))]
            {
                let context = format!("{:?}, descending: {descending}, limit {limit}", listing.strategy);
                let got = with_query!(listing, |query| {
                    let query = query().limit(limit);
                    let query = match page {
                        Some(size) => query.page_size(size),
                        None => query,
                    };
                    ids(&db, directed(query, descending)).await
                });
                assert_same(&got, &expected[..limit.min(expected.len())], &context);
            }
        }
    }
}
