//! A public entity declared in a module and used from outside it.

mod music {
    use dynashard::{Entity, Table};
    use serde::{Deserialize, Serialize};

    #[derive(Table)]
    #[table(name = "Music", pk = "pk", sk = "sk")]
    pub struct Music;

    #[derive(Entity, Serialize, Deserialize)]
    #[entity(table = Music, pk = "{artist}", sk = "song#{album}#{title}")]
    pub struct Song {
        pub artist: String,
        pub album: String,
        pub title: String,
        pub length: u32,
    }
}

use music::{Song, SongFields};

#[test]
fn accepted() {
    let key: dynashard::Key<Song> = Song::key("a", "b", "c").unwrap();
    assert_eq!(key.sk(), Some("song#b#c"));
    let fields: SongFields = Song::fields();
    let length: dynashard::Field<Song, u32> = fields.length;
    assert_eq!(length.name(), "length");
    assert_eq!(<Song as dynashard::Entity>::TYPE_NAME, "Song");
    assert_eq!(<<Song as dynashard::Entity>::Table as dynashard::Table>::DEFINITION.name, "Music");
}
