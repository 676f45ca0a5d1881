//! Typed conditions, as query filters and as write conditions: `between`, `is_in`, `size`,
//! `contains` (strings, lists, sets), `is_type`, `begins_with` on optional strings, and `not`,
//! each accepting exactly the items it should.

use crate::model::Music;
use crate::{db, unique};
use dynashard::expression::AttributeType;
use dynashard::{Condition, Db, Entity, Error};
use futures::TryStreamExt;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = Music, pk = "tracks#{artist}", sk = "track#{title}")]
struct Track {
    artist: String,
    title: String,
    label: String,
    plays: u64,
    tags: Vec<String>,
    moods: BTreeSet<String>,
    note: Option<String>,
    ratings: BTreeMap<String, u8>,
}

fn tracks(artist: &str) -> Vec<Track> {
    let track = |title: &str, plays: u64, tags: &[&str], note: Option<&str>| Track {
        artist: artist.into(),
        title: title.into(),
        label: title.to_lowercase(),
        plays,
        tags: tags.iter().map(|tag| (*tag).to_owned()).collect(),
        moods: tags.iter().map(|tag| tag.to_uppercase()).collect(),
        note: note.map(str::to_owned),
        ratings: [("press".to_owned(), (plays % 7) as u8), ("fans.uk".to_owned(), 1)].into_iter().collect(),
    };
    vec![
        track("Air", 5, &["ambient"], Some("live take")),
        track("Dust", 50, &["ambient", "drone"], None),
        track("Ember", 500, &[], Some("studio")),
        track("Flood", 5_000, &["drone", "noise", "live"], Some("live edit")),
    ]
}

async fn titles(db: &Db, artist: &str, condition: Condition) -> Vec<String> {
    let found: Vec<Track> = db.stream(Track::query(artist).filter(condition)).try_collect().await.unwrap();
    found.into_iter().map(|track| track.title).collect()
}

#[tokio::test]
async fn a_reversed_between_is_refused_in_filters_and_conditions() {
    let db = db().await;
    let artist = unique("ReversedConditions");
    db.batch_put(&tracks(&artist)).await.unwrap();
    let f = Track::fields();
    let filtered: Result<Vec<Track>, _> =
        db.stream(Track::query(&artist).filter(f.plays.between(300, 100))).try_collect().await;
    assert!(matches!(filtered, Err(dynashard::Error::InvalidQuery { .. })), "{filtered:?}");
    let strings: Result<Vec<Track>, _> =
        db.stream(Track::query(&artist).filter(f.label.between("z", "a"))).try_collect().await;
    assert!(matches!(strings, Err(dynashard::Error::InvalidQuery { .. })), "{strings:?}");
    let track = &tracks(&artist)[0];
    let put = db.put(track).condition(f.plays.between(10, 1)).await;
    assert!(matches!(put, Err(dynashard::Error::InvalidQuery { .. })), "{put:?}");
}

#[tokio::test]
async fn each_operator_keeps_exactly_its_items() {
    let db = db().await;
    let artist = unique("Conditions");
    db.batch_put(&tracks(&artist)).await.unwrap();
    let f = Track::fields();
    let cases: Vec<(&str, Condition, &[&str])> = vec![
        ("between", f.plays.between(50, 500), &["Dust", "Ember"]),
        ("is_in", f.plays.is_in([5, 5_000, 7]), &["Air", "Flood"]),
        ("is_in on strings", f.label.is_in(["dust", "nope"]), &["Dust"]),
        ("size of a list", f.tags.size().ge(2), &["Dust", "Flood"]),
        ("size of an empty list", f.tags.size().eq(0), &["Ember"]),
        ("size of a string", f.label.size().eq(3), &["Air"]),
        ("contains in a list", f.tags.contains("drone"), &["Dust", "Flood"]),
        ("contains in a set", f.moods.contains("AMBIENT"), &["Air", "Dust"]),
        ("contains in a string", f.label.contains("us"), &["Dust"]),
        ("contains in an optional string", f.note.contains("live"), &["Air", "Flood"]),
        ("begins_with an optional string", f.note.begins_with("stu"), &["Ember"]),
        ("is_type", f.note.is_type(AttributeType::String), &["Air", "Ember", "Flood"]),
        ("is_type of another type", f.plays.is_type(AttributeType::String), &[]),
        ("is_type of a list", f.tags.is_type(AttributeType::List), &["Air", "Dust", "Ember", "Flood"]),
        ("not", f.plays.between(50, 500).not(), &["Air", "Flood"]),
        ("combined", f.tags.contains("drone").and(f.plays.gt(100).not()), &["Dust"]),
        ("a map entry", f.ratings.get("press").ge(3), &["Air", "Ember"]),
        (
            "a map entry with a dot in its key",
            f.ratings.get("fans.uk").exists(),
            &["Air", "Dust", "Ember", "Flood"],
        ),
        ("a list element", f.tags.at(0).eq("drone"), &["Flood"]),
        ("a list element past the end", f.tags.at(1).exists(), &["Dust", "Flood"]),
    ];
    for (name, condition, expected) in cases {
        assert_eq!(titles(&db, &artist, condition).await, expected, "{name}");
    }
}

#[tokio::test]
async fn write_conditions_use_the_same_operators() {
    let db = db().await;
    let artist = unique("WriteConditions");
    let stored = tracks(&artist);
    db.batch_put(&stored).await.unwrap();
    let f = Track::fields();
    let key = || Track::key(&artist, "Flood").unwrap();
    let refused = db.update(key()).add(f.plays, 1).condition(f.tags.size().lt(3)).await.unwrap_err();
    assert!(matches!(refused, Error::ConditionFailed { .. }), "{refused:?}");
    db.update(key())
        .add(f.plays, 1)
        .condition(f.tags.contains("noise").and(f.plays.is_in([5_000])))
        .await
        .unwrap();
    let read = db.get(key()).await.unwrap().unwrap();
    assert_eq!(read.plays, 5_001, "the write applied once");
    let error = db
        .stream(Track::query(&artist).filter(f.plays.is_in(0..101)))
        .try_collect::<Vec<_>>()
        .await
        .unwrap_err();
    assert!(matches!(error, Error::InvalidQuery { .. }), "more than 100 values is refused: {error:?}");
    let error = db
        .stream(Track::query(&artist).filter(f.plays.is_in(Vec::<u64>::new())))
        .try_collect::<Vec<_>>()
        .await
        .unwrap_err();
    assert!(matches!(error, Error::InvalidQuery { .. }), "an empty list is refused: {error:?}");
}

/// A struct stored as a map attribute, with a renamed field and a struct inside it.
#[derive(dynashard::Nested, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
struct Venue {
    city: String,
    post_code: String,
    stage: Stage,
}

#[derive(dynashard::Nested, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Stage {
    name: String,
    seats: u32,
}

#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = Music, pk = "gigs#{artist}", sk = "gig#{date}")]
struct Gig {
    artist: String,
    date: String,
    venue: Venue,
    encore: Option<Venue>,
}

#[tokio::test]
async fn conditions_reach_fields_of_nested_structs() {
    let db = db().await;
    let artist = unique("Nested");
    let gig = |date: &str, city: &str, post_code: &str, seats: u32, encore: bool| {
        let venue = Venue {
            city: city.into(),
            post_code: post_code.into(),
            stage: Stage { name: format!("{city} hall"), seats },
        };
        Gig { artist: artist.clone(), date: date.into(), encore: encore.then(|| venue.clone()), venue }
    };
    let gigs = [
        gig("2026-01", "Oslo", "0150", 800, false),
        gig("2026-02", "Bergen", "5003", 1_500, true),
        gig("2026-03", "Oslo", "0560", 3_000, true),
    ];
    db.batch_put(&gigs).await.unwrap();
    let f = Gig::fields();
    let dates = |condition: Condition| {
        let db = db.clone();
        let artist = artist.clone();
        async move {
            let found: Vec<Gig> =
                db.stream(Gig::query(&artist).filter(condition)).try_collect().await.unwrap();
            found.into_iter().map(|gig| gig.date).collect::<Vec<_>>()
        }
    };
    assert_eq!(dates(f.venue.fields().city.eq("Oslo")).await, ["2026-01", "2026-03"]);
    assert_eq!(dates(f.venue.fields().post_code.begins_with("05")).await, ["2026-03"], "a renamed key");
    assert_eq!(dates(f.venue.fields().stage.fields().seats.ge(1_000)).await, ["2026-02", "2026-03"]);
    assert_eq!(dates(f.encore.fields().city.eq("Oslo")).await, ["2026-03"], "inside an Option");
    assert_eq!(dates(f.encore.fields().city.not_exists()).await, ["2026-01"]);

    let key = || Gig::key(&artist, "2026-01").unwrap();
    let refused =
        db.delete(key()).condition(f.venue.fields().stage.fields().seats.gt(1_000)).await.unwrap_err();
    assert!(matches!(refused, Error::ConditionFailed { .. }), "{refused:?}");
    db.delete(key()).condition(f.venue.fields().stage.fields().name.eq("Oslo hall")).await.unwrap();
    assert_eq!(db.get(key()).await.unwrap(), None);
}
