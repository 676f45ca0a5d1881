use dynashard::{Db, Entity, KeyPart, Table};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize)]
struct Isrc(String);

impl KeyPart for Isrc {
    type Arg<'a> = &'a str;

    fn as_arg(&self) -> &str {
        &self.0
    }

    fn encode(arg: &str, out: &mut String) {
        out.push_str(arg);
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

fn build(db: &Db) {
    // The key holds the ISRC encoded, and `Isrc` cannot be read back from it.
    let _ = db.upsert(Recording::key("usrc17607839").unwrap()).set(Recording::fields().title, "t");
}

fn main() {
    let _ = build;
}
