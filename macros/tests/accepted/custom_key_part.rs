//! A user newtype that implements `KeyPart` can be a key field.

use dynashard::{Entity, KeyPart, Table};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize)]
struct Isrc(String);

impl KeyPart for Isrc {
    type Arg<'a> = &'a str;

    fn as_arg(&self) -> &str {
        &self.0
    }

    fn encode(arg: &str, out: &mut String) {
        out.push_str(&arg.to_ascii_uppercase());
    }

    fn is_empty(arg: &str) -> bool {
        arg.is_empty()
    }
}

#[derive(Table)]
#[table(name = "Recordings", pk = "pk")]
struct Recordings;

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Recordings, pk = "recording#{isrc}")]
struct Recording {
    isrc: Isrc,
    title: String,
}

#[test]
fn accepted() {
    assert_eq!(Recording::key("usrc17607839").unwrap().pk(), "recording#USRC17607839");
    assert!(Recording::key("").is_err());
    let recording = Recording { isrc: Isrc("gbaym0000001".into()), title: "t".into() };
    assert_eq!(dynashard::Key::of(&recording).unwrap().pk(), "recording#GBAYM0000001");
    assert_eq!(Recording::fields().title.name(), "title");
}
