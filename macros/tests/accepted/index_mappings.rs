//! Index mappings with key templates: a plain index, a sparse index over an `Option` field and a
//! sparse index decided by a predicate; their key attributes on put and on update, and their
//! typed query entry points.

use dynashard::__private_v1::{FieldChanges, IndexKeyUpdate};
use dynashard::query::{Done, End, Next};
use dynashard::AttributeValue;
use dynashard::{Entity, Error, Query, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "Music", pk = "pk", sk = "sk")]
#[gsi(GSI1(pk = "gsi1pk", sk = "gsi1sk"))]
#[gsi(Open(pk = "open_pk", sk = "open_sk"))]
#[gsi(BigOrders(pk = "big_pk", sk = "big_sk"))]
struct Music;

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Music, pk = "{artist}", sk = "album#{title}")]
#[gsi(GSI1(pk = "album", sk = "{title}"))]
struct Album {
    artist: String,
    title: String,
    year: u16,
}

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Music, pk = "customer#{customer}", sk = "order#{id}")]
#[sparse_gsi(Open(pk = "open", sk = "{opened_at}#{id}"))]
#[sparse_gsi(BigOrders(pk = "big", sk = "{total}", when = Self::is_big))]
struct Order {
    customer: String,
    id: u32,
    total: u64,
    opened_at: Option<String>,
}

impl Order {
    fn is_big(&self) -> bool {
        self.total >= 1_000
    }
}

fn s(text: &str) -> AttributeValue {
    AttributeValue::S(text.to_owned())
}

#[test]
fn accepted() {
    let album = Album { artist: "Solar Fields".into(), title: "Leaving Home".into(), year: 2005 };
    let item = dynashard::item::to_item(&album).unwrap();
    assert_eq!(item.get("gsi1pk"), Some(&s("album")));
    assert_eq!(item.get("gsi1sk"), Some(&s("Leaving Home")));
    let _by_title: Query<Album, Done> = Album::query_gsi1().begins_with("x");
    let _all: Query<Album, End<String>> = Album::query_gsi1();

    let open = Order { customer: "c".into(), id: 7, total: 5, opened_at: Some("2026-01-02".into()) };
    let item = dynashard::item::to_item(&open).unwrap();
    assert_eq!(item.get("open_pk"), Some(&s("open")));
    assert_eq!(item.get("open_sk"), Some(&s("2026-01-02#0000000007")));
    assert_eq!(item.get("big_pk"), None);

    let closed_big = Order { customer: "c".into(), id: 8, total: 5_000, opened_at: None };
    let item = dynashard::item::to_item(&closed_big).unwrap();
    assert_eq!(item.get("open_pk"), None);
    assert_eq!(item.get("open_sk"), None);
    assert_eq!(item.get("big_pk"), Some(&s("big")));
    assert_eq!(item.get("big_sk"), Some(&s("00000000000000005000")));

    let _open: Query<Order, Next<String, End<u32>>> = Order::query_open();
    let _since: Query<Order, Done> = Order::query_open().eq("2026-01-01").ge(5);

    // Closing an order takes it out of the sparse index; opening it puts it back.
    let key = Order::key("c", 7).unwrap();
    let mut closing = FieldChanges::default();
    closing.remove("opened_at");
    let updates = Order::index_key_updates(&key, &closing).unwrap();
    assert_eq!(updates, vec![IndexKeyUpdate::Remove("open_pk"), IndexKeyUpdate::Remove("open_sk")]);
    let mut opening = FieldChanges::default();
    opening.set("opened_at", s("2026-02-03"));
    let updates = Order::index_key_updates(&key, &opening).unwrap();
    assert_eq!(
        updates,
        vec![
            IndexKeyUpdate::Set("open_pk", s("open")),
            IndexKeyUpdate::Set("open_sk", s("2026-02-03#0000000007")),
        ]
    );

    // An index with a `when` predicate needs the whole entity.
    let mut total = FieldChanges::default();
    total.set("total", AttributeValue::N("2000".into()));
    let error = Order::index_key_updates(&key, &total).unwrap_err();
    assert!(matches!(error, Error::IndexKeyIncomplete { index: "BigOrders", field: "total", .. }));
}
