//! `#[created_at]` and `#[updated_at]` of the time crate's type, of an `Option` of it, and of a
//! type of one's own; a time in a key.

use dynashard::{Entity, Table, Timestamp};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

#[derive(Table)]
#[table(name = "Docs", pk = "pk", sk = "sk")]
struct Docs;

/// Milliseconds since the Unix epoch.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq)]
struct Millis(i64);

impl Timestamp for Millis {
    fn from_time(time: OffsetDateTime) -> Self {
        Millis((time.unix_timestamp_nanos() / 1_000_000) as i64)
    }
}

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Docs, pk = "{id}", sk = "{published}")]
#[serde(rename_all = "camelCase")]
struct Doc {
    id: String,
    #[serde(with = "time::serde::rfc3339")]
    published: OffsetDateTime,
    #[created_at]
    created_at: Millis,
    #[updated_at]
    #[serde(default, with = "time::serde::timestamp::option")]
    updated_at: Option<OffsetDateTime>,
}

#[test]
fn accepted() {
    assert_eq!(Doc::CREATED_AT, Some("createdAt"));
    assert_eq!(Doc::UPDATED_AT, Some("updatedAt"));
    let _key = Doc::key("d", OffsetDateTime::UNIX_EPOCH);
}
