//! Conditions and updates take literals as they are written: no `5u64`, no `&"x".to_string()`.

use dynashard::{Db, Entity, Table};
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
    plays: u64,
    rating: Option<u8>,
    label: Option<String>,
}

#[test]
fn accepted() {
    let fields = Album::fields();
    let title = String::from("Leaving Home");
    let conditions = [
        fields.plays.eq(0),
        fields.year.ge(2000),
        fields.year.lt(&2010),
        fields.rating.eq(5),
        fields.rating.eq(None),
        fields.label.eq("Ultimae Records"),
        fields.label.ne(Some("Warp".to_string())),
    ];
    let rendered = format!("{conditions:?}");
    for expected in [
        r#"N("0")"#,
        r#"N("2000")"#,
        r#"N("2010")"#,
        r#"N("5")"#,
        "Null(true)",
        r#"S("Ultimae Records")"#,
        r#"S("Warp")"#,
    ] {
        assert!(rendered.contains(expected), "{expected} in {rendered}");
    }

    let db = Db::new(dynashard::client_for_endpoint("http://127.0.0.1:9"));
    let key = Album::key("Solar Fields", &title).expect("a key");
    let update = db
        .update(key)
        .set(fields.plays, 5)
        .set(fields.rating, 4)
        .set(fields.label, "Warp")
        .set(fields.year, 2007);
    let rendered = format!("{update:?}");
    for expected in [r#"N("5")"#, r#"N("4")"#, r#"S("Warp")"#, r#"N("2007")"#] {
        assert!(rendered.contains(expected), "{expected} in {rendered}");
    }
}
