//! Typed update actions: list appends, prepends and removals, set additions and deletions (sets
//! stored as DynamoDB sets), subtraction, `if_not_exists`, nested paths; index keys still
//! follow, and an in-place change of a key field is refused before sending.

use crate::model::Music;
use crate::{db, unique};
use dynashard::{AttributeValue, Db, Entity, Error, Nested};
use futures::TryStreamExt;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashSet};

#[derive(Nested, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Curator {
    name: String,
    picks: u32,
}

#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = Music, pk = "playlists#{owner}", sk = "playlist#{name}")]
#[gsi(GSI1(pk = "playlists#{owner}", sk = "{plays}#{name}"))]
struct Playlist {
    owner: String,
    name: String,
    tracks: Vec<String>,
    tags: HashSet<String>,
    years: BTreeSet<u32>,
    extra: Option<BTreeSet<String>>,
    plays: u64,
    stock: u32,
    balance: i64,
    cover: Option<String>,
    curator: Curator,
    notes: BTreeMap<String, String>,
}

fn playlist(owner: &str) -> Playlist {
    Playlist {
        owner: owner.into(),
        name: "Night".into(),
        tracks: vec!["b".into(), "c".into()],
        tags: ["calm".to_owned(), "late".to_owned()].into(),
        years: [1999, 2007].into(),
        extra: None,
        plays: 7,
        stock: 3,
        balance: 3,
        cover: None,
        curator: Curator { name: "Ann".into(), picks: 1 },
        notes: BTreeMap::new(),
    }
}

/// The stored item, as DynamoDB holds it.
async fn raw(db: &Db, owner: &str) -> dynashard::Item {
    let key = dynashard::item::key_item(
        &<Music as dynashard::Table>::DEFINITION,
        Playlist::key(owner, "Night").unwrap().primary(),
    );
    let output = db.client().get_item().table_name("MusicTests").set_key(Some(key)).send().await.unwrap();
    output.item.expect("stored")
}

#[tokio::test]
async fn sets_are_stored_as_sets_and_change_in_place() {
    let db = db().await;
    let owner = unique("Sets");
    db.put(&playlist(&owner)).await.unwrap();
    let item = raw(&db, &owner).await;
    assert!(matches!(&item["tags"], AttributeValue::Ss(tags) if tags.len() == 2), "{:?}", item["tags"]);
    assert!(matches!(&item["years"], AttributeValue::Ns(years) if years.len() == 2), "{:?}", item["years"]);
    assert!(!item.contains_key("extra"), "no set, no attribute");

    let f = Playlist::fields();
    let key = || Playlist::key(&owner, "Night").unwrap();
    let updated =
        db.update(key()).add_to(f.tags, ["loud", "calm"]).delete_from(f.years, [1999]).await.unwrap();
    assert_eq!(updated.tags, ["calm", "late", "loud"].map(String::from).into());
    assert_eq!(updated.years, [2007].into());
    assert!(
        matches!(&raw(&db, &owner).await["tags"], AttributeValue::Ss(tags) if tags.len() == 3),
        "still a set"
    );

    let emptied = db.update(key()).delete_from(f.years, [2007]).add_to(f.extra, ["x"]).await.unwrap();
    assert!(emptied.years.is_empty(), "the last element gone, the set reads empty");
    assert_eq!(emptied.extra, Some(["x".to_owned()].into()), "an optional set, added to while missing");
    let cleared = db.update(key()).set(f.tags, HashSet::new()).set(f.extra, None).await.unwrap();
    assert!(cleared.tags.is_empty() && cleared.extra.is_none());
    let item = raw(&db, &owner).await;
    assert!(!item.contains_key("tags") && !item.contains_key("years") && !item.contains_key("extra"));
    let none = db.update(key()).add_to(f.tags, Vec::<String>::new()).await.unwrap();
    assert!(none.tags.is_empty(), "no elements: nothing sent for the set");
}

#[tokio::test]
async fn lists_numbers_and_absent_values_change_in_place() {
    let db = db().await;
    let owner = unique("Lists");
    db.put(&playlist(&owner)).await.unwrap();
    let f = Playlist::fields();
    let key = || Playlist::key(&owner, "Night").unwrap();
    let updated = db.update(key()).append(f.tracks, ["d", "e"]).prepend(f.tracks, ["a"]).await;
    assert!(
        matches!(&updated, Err(Error::OverlappingActions { first, second }) if first == "tracks" && second == "tracks"),
        "two actions on one path are refused before sending: {updated:?}"
    );
    db.update(key()).append(f.tracks, ["d", "e"]).await.unwrap();
    db.update(key()).prepend(f.tracks, ["a"]).await.unwrap();
    let updated = db.update(key()).remove_at(f.tracks, 1).await.unwrap();
    assert_eq!(updated.tracks, ["a", "c", "d", "e"]);

    let updated = db.update(key()).subtract(f.balance, 5).subtract(f.stock, 2).await.unwrap();
    assert_eq!((updated.balance, updated.stock), (-2, 1));
    let refused = db.update(key()).subtract(f.stock, 2).await.unwrap_err();
    assert!(matches!(refused, Error::Overflow { .. }), "an unsigned field stays >= 0: {refused:?}");
    assert_eq!(db.get(key()).await.unwrap().unwrap().stock, 1, "nothing written");

    let set = db.update(key()).set_if_not_exists(f.cover, "first.png").await.unwrap();
    assert_eq!(set.cover.as_deref(), Some("first.png"));
    let kept = db.update(key()).set_if_not_exists(f.cover, "second.png").await.unwrap();
    assert_eq!(kept.cover.as_deref(), Some("first.png"), "a value already there stays");
}

#[tokio::test]
async fn nested_paths_are_updated_where_they_are() {
    let db = db().await;
    let owner = unique("NestedUpdates");
    db.put(&playlist(&owner)).await.unwrap();
    let f = Playlist::fields();
    let key = || Playlist::key(&owner, "Night").unwrap();
    let updated = db
        .update(key())
        .set(f.curator.fields().name, "Bo")
        .add(f.curator.fields().picks, 2)
        .set(f.notes.get("mood"), "blue")
        .await
        .unwrap();
    assert_eq!(updated.curator, Curator { name: "Bo".into(), picks: 3 });
    assert_eq!(updated.notes, [("mood".to_owned(), "blue".to_owned())].into());
    let updated = db.update(key()).set(f.tracks.at(0), "z").await.unwrap();
    assert_eq!(updated.tracks, ["z", "c"]);
}

#[tokio::test]
async fn index_keys_follow_and_in_place_changes_of_key_fields_are_refused() {
    let db = db().await;
    let owner = unique("UpdateKeys");
    db.put(&playlist(&owner)).await.unwrap();
    let f = Playlist::fields();
    let key = || Playlist::key(&owner, "Night").unwrap();
    for refused in [db.update(key()).add(f.plays, 1), db.update(key()).subtract(f.plays, 1)] {
        let error = refused.await.unwrap_err();
        assert!(matches!(error, Error::IndexKeyIncomplete { field: "plays", .. }), "{error:?}");
    }
    db.update(key()).set(f.plays, 12).await.unwrap();
    let by_plays: Vec<Playlist> = db.stream(Playlist::query_gsi1(&owner).eq(12)).try_collect().await.unwrap();
    assert_eq!(by_plays.len(), 1, "the index key moved with the field");
}

/// An entity for upserts: an index keyed on key fields alone, a counter that may start missing.
#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = Music, pk = "profiles#{owner}", sk = "{name}")]
#[gsi(GSI1(pk = "profiles#{owner}", sk = "{name}"))]
struct Profile {
    owner: String,
    name: String,
    bio: String,
    first_seen: u64,
    #[serde(default)]
    visits: u64,
    nickname: Option<String>,
    tags: BTreeSet<String>,
}

#[tokio::test]
async fn upserts_create_missing_items_and_update_existing_ones() {
    let db = db().await;
    let owner = unique("Upsert");
    let f = Profile::fields();
    let key = || Profile::key(&owner, "main").unwrap();
    let upsert = |bio: &'static str, seen: u64| {
        db.upsert(key()).set(f.bio, bio).set_if_not_exists(f.first_seen, seen).add(f.visits, 1)
    };
    let created = upsert("first", 100).await.unwrap();
    let expected = Profile {
        owner: owner.clone(),
        name: "main".into(),
        bio: "first".into(),
        first_seen: 100,
        visits: 1,
        nickname: None,
        tags: BTreeSet::new(),
    };
    assert_eq!(created, expected, "created from the key fields and the values set");
    assert_eq!(db.get(key()).await.unwrap(), Some(expected.clone()));
    let indexed: Vec<Profile> = db.stream(Profile::query_gsi1(&owner)).try_collect().await.unwrap();
    assert_eq!(indexed, [expected], "an index keyed on key fields is written on creation");

    let updated = upsert("second", 200).await.unwrap();
    assert_eq!(
        (updated.bio.as_str(), updated.first_seen, updated.visits),
        ("second", 100, 2),
        "kept, counted"
    );

    let missing = db.upsert(Profile::key(&owner, "other").unwrap()).set(f.first_seen, 1).await.unwrap_err();
    assert!(matches!(missing, Error::UpsertIncomplete { field: "bio", .. }), "{missing:?}");
    assert!(missing.is_invalid_input());
    let in_place =
        db.upsert(Profile::key(&owner, "other").unwrap()).set(f.bio, "x").add(f.first_seen, 1).await;
    assert!(
        matches!(in_place, Err(Error::UpsertIncomplete { field: "first_seen", .. })),
        "set whole: {in_place:?}"
    );
    assert_eq!(db.get(Profile::key(&owner, "other").unwrap()).await.unwrap(), None, "nothing was sent");
}

#[tokio::test]
async fn an_upsert_of_an_entity_with_a_predicate_index_is_refused() {
    use crate::shop_model::Order;
    let db = db().await;
    let customer = unique("UpsertWhen");
    let f = Order::fields();
    let upsert = db
        .upsert(Order::key(&customer, 1).unwrap())
        .set(f.region, "eu")
        .set(f.placed, "2026-11-25")
        .set(f.shard, "a")
        .set(f.opened_at, "2026-11-25")
        .set(f.total, 5);
    let error = upsert.await.unwrap_err();
    assert!(matches!(error, Error::IndexKeyIncomplete { index: "BigOrders", .. }), "{error:?}");
    assert_eq!(db.get(Order::key(&customer, 1).unwrap()).await.unwrap(), None);
}

/// An entity in a sparse index keyed on an optional field.
#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = crate::shop_model::Shop, pk = "ticket#{customer}", sk = "{id}")]
#[sparse_gsi(OpenOrders(pk = "tickets#{customer}", sk = "{opened_at}#{id}"))]
struct Ticket {
    customer: String,
    id: u32,
    opened_at: Option<String>,
    note: String,
    tags: HashSet<String>,
}

#[tokio::test]
async fn upserts_leave_sparse_index_keys_of_fields_they_do_not_set_alone() {
    let db = db().await;
    let customer = unique("UpsertSparse");
    let f = Ticket::fields();
    let open = || async {
        let found: Vec<Ticket> = db.stream(Ticket::query_open_orders(&customer)).try_collect().await.unwrap();
        found.into_iter().map(|ticket| ticket.id).collect::<Vec<_>>()
    };
    let ticket = Ticket {
        customer: customer.clone(),
        id: 1,
        opened_at: Some("2026-11-01".into()),
        note: "a".into(),
        tags: HashSet::new(),
    };
    db.put(&ticket).await.unwrap();
    db.upsert(Ticket::key(&customer, 1).unwrap()).set(f.note, "b").await.unwrap();
    assert_eq!(open().await, [1], "an existing item stays in the index");
    db.upsert(Ticket::key(&customer, 2).unwrap()).set(f.note, "new").await.unwrap();
    assert_eq!(open().await, [1], "a new item without the optional field is not in it");
    db.upsert(Ticket::key(&customer, 2).unwrap())
        .set(f.note, "new")
        .set(f.opened_at, "2026-11-02")
        .await
        .unwrap();
    assert_eq!(open().await, [1, 2], "setting the field puts it there");
}

#[tokio::test]
async fn set_fields_compare_as_sets() {
    let db = db().await;
    let customer = unique("SetEquality");
    let f = Ticket::fields();
    let ticket = |id: u32, tags: &[&str]| Ticket {
        customer: customer.clone(),
        id,
        opened_at: None,
        note: String::new(),
        tags: tags.iter().map(|tag| (*tag).to_owned()).collect(),
    };
    db.batch_put(&[ticket(1, &["a", "b"]), ticket(2, &[]), ticket(3, &["a"])]).await.unwrap();
    let ids = |condition| {
        let db = db.clone();
        let customer = customer.clone();
        async move {
            let found: Vec<Ticket> =
                db.stream(Ticket::query(&customer).filter(condition)).try_collect().await.unwrap();
            found.into_iter().map(|ticket| ticket.id).collect::<Vec<_>>()
        }
    };
    let ab: HashSet<String> = ["b".to_owned(), "a".to_owned()].into();
    assert_eq!(ids(f.tags.eq(&ab)).await, [1]);
    assert_eq!(ids(f.tags.ne(&ab)).await, [2, 3]);
    assert_eq!(ids(f.tags.eq(HashSet::new())).await, [2], "an empty set is a missing attribute");
    assert_eq!(ids(f.tags.ne(HashSet::new())).await, [1, 3]);
}

#[tokio::test]
async fn two_actions_on_one_value_are_refused_before_sending() {
    let db = db().await;
    let owner = unique("OverlappingUpdates");
    db.put(&playlist(&owner)).await.unwrap();
    let f = Playlist::fields();
    let key = || Playlist::key(&owner, "Night").unwrap();
    let curator = Curator { name: "Bo".into(), picks: 2 };
    let refused = [
        (db.update(key()).append(f.tracks, ["x"]).prepend(f.tracks, ["y"]), "tracks", "tracks"),
        (db.update(key()).add_to(f.tags, ["a"]).delete_from(f.tags, ["calm"]), "tags", "tags"),
        (
            db.update(key()).set(f.cover, Some("a.png".to_owned())).set(f.cover, Some("b.png".to_owned())),
            "cover",
            "cover",
        ),
        (db.update(key()).set_if_not_exists(f.stock, 1).add(f.stock, 1), "stock", "stock"),
        (
            db.update(key()).set(f.curator, curator).add(f.curator.fields().picks, 1),
            "curator",
            "curator.picks",
        ),
        (db.update(key()).remove_at(f.tracks, 0).set(f.tracks.at(0), "z"), "tracks[0]", "tracks[0]"),
    ];
    for (update, first, second) in refused {
        let error = update.await.unwrap_err();
        assert!(
            matches!(&error, Error::OverlappingActions { first: a, second: b } if a == first && b == second),
            "{error:?}"
        );
        assert!(error.is_invalid_input());
    }
    assert_eq!(db.get(key()).await.unwrap().unwrap(), playlist(&owner), "nothing was sent");
    // Values side by side do not overlap.
    let updated =
        db.update(key()).remove_at(f.tracks, 0).remove_at(f.tracks, 1).set(f.curator.fields().name, "Cy");
    let updated = updated.add(f.curator.fields().picks, 1).await.unwrap();
    assert_eq!((updated.tracks.len(), updated.curator), (0, Curator { name: "Cy".into(), picks: 2 }));
}

#[tokio::test]
async fn list_elements_past_the_end_are_refused_and_nothing_is_stored() {
    let db = db().await;
    let owner = unique("ListElements");
    db.put(&playlist(&owner)).await.unwrap();
    let f = Playlist::fields();
    let key = || Playlist::key(&owner, "Night").unwrap();
    let out_of_range = |error: Error, index: usize, length: Option<usize>| {
        assert!(
            matches!(&error, Error::ListIndexOutOfRange { list, index: i, length: l } if list == "tracks" && *i == index && *l == length),
            "{error:?}"
        );
    };
    out_of_range(db.update(key()).remove_at(f.tracks, 2).await.unwrap_err(), 2, Some(2));
    out_of_range(db.update(key()).set(f.tracks.at(50), "z").await.unwrap_err(), 50, Some(2));
    out_of_range(db.update(key()).remove_at(f.tracks, usize::MAX).await.unwrap_err(), usize::MAX, None);
    // With another action: none of it is stored.
    out_of_range(db.update(key()).remove_at(f.tracks, 5).add(f.stock, 1).await.unwrap_err(), 5, Some(2));
    assert_eq!(db.get(key()).await.unwrap().unwrap(), playlist(&owner), "nothing stored");
    // In a transaction, the update's reason is the same error.
    let refused = db.transaction().update(db.update(key()).remove_at(f.tracks, 7)).await.unwrap_err();
    let Error::TransactionCanceled { mut reasons } = refused else { panic!("{refused:?}") };
    out_of_range(*reasons.remove(0).error.expect("the update's own error"), 7, Some(2));
    let updated = db.update(key()).remove_at(f.tracks, 1).set(f.tracks.at(0), "a").await.unwrap();
    assert_eq!(updated.tracks, ["a"]);
}
