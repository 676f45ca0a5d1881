//! Every builder is `Debug` without the entity being `Debug`, and a query is `Clone`, so it can
//! be run as a page and as a stream without being built twice.

use dynashard::{AttributeValue, Condition, Db, Entity, RawExpression, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "Music", pk = "pk", sk = "sk")]
struct Music;

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Music, pk = "{artist}", sk = "album#{title}")]
struct Album {
    artist: String,
    title: String,
    year: u16,
}

fn debug(value: &impl std::fmt::Debug) -> String {
    format!("{value:?}")
}

#[test]
fn accepted() {
    let db = Db::new(dynashard::client_for_endpoint("http://127.0.0.1:9"));
    let album = Album { artist: "Solar Fields".into(), title: "Leaving Home".into(), year: 2007 };
    let key = || Album::key("Solar Fields", "Leaving Home").expect("a key");
    assert!(debug(&db.put(&album).create_only()).starts_with("Put {"));
    assert!(debug(&db.get(key()).consistent()).contains("consistent: true"));
    assert!(debug(&db.delete(key())).starts_with("Delete {"));
    assert!(debug(&db.update(key()).set(Album::fields().year, 2008u16)).contains("year"));
    assert!(debug(&db.batch_write().put_all(std::slice::from_ref(&album))).contains("puts: 1"));
    assert!(debug(&db.batch_get(vec![key()])).starts_with("BatchGet {"));
    assert!(debug(&Album::scan()).starts_with("Scan {"));
    assert!(debug(&db.stream(Album::scan())).starts_with("ScanStream {"));
    assert!(debug(&db.transaction().put(&album)).contains("actions: 1"));
    let raw = RawExpression::new("#y > :y").name("#y", "year").value(":y", AttributeValue::N("2000".into()));
    assert!(debug(&Condition::raw(raw)).contains("#y > :y"));

    let query = Album::query("Solar Fields").page_size(10);
    let again = query.clone();
    assert!(debug(&again).contains("Solar Fields"));
    let page = db.page(&query, None);
    let stream = db.stream(again);
    drop((page, stream));
}
