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
        out.push_str(arg);
    }

    fn is_empty(arg: &str) -> bool {
        arg.is_empty()
    }
}

#[derive(Table)]
#[table(name = "Music", pk = "pk", sk = "sk")]
#[gsi(GSI1(pk = "gsi1pk", sk = "gsi1sk"))]
struct Music;

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Music, pk = "recording#{isrc}", sk = "recording")]
#[gsi(GSI1(pk = "{label}", sk = "{isrc}"))]
struct Recording {
    isrc: Isrc,
    label: String,
}

fn main() {}
