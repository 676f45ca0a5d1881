use dynashard::{Entity, KeyPart, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "Music", pk = "pk", sk = "sk")]
struct Music;

/// A key type of the user's own: usable in keys, but not a type shards route by.
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

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Music, pk = "{album}", sk = "track#{isrc}")]
#[shard(hash = 4, by = isrc)]
struct Song {
    album: String,
    isrc: Isrc,
}

fn main() {}
