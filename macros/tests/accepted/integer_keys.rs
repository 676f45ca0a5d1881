//! A table without a sort key; integer and `char` key parts; an explicit entity type name.

use dynashard::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "Counters", pk = "id")]
struct Counters;

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Counters, pk = "counter#{shard}#{day}#{grade}", name = "counter")]
struct Counter {
    shard: i32,
    day: u64,
    grade: char,
    count: i64,
}

#[test]
fn accepted() {
    assert_eq!(<Counters as Table>::DEFINITION.sort_key, None);
    assert_eq!(<Counter as dynashard::Entity>::TYPE_NAME, "counter");

    let key = Counter::key(-1, 9, 'A').unwrap();
    assert_eq!(key.pk(), "counter#-2147483647#00000000000000000009#A");
    assert_eq!(key.sk(), None);
    assert!(Counter::key(9, 0, 'A').unwrap().pk() < Counter::key(10, 0, 'A').unwrap().pk());
    assert_eq!(Counter::fields().count.name(), "count");
}
