//! A table of its own for scan tests that count every item of a table.

use dynashard::{Collection, Entity, Table};
use serde::{Deserialize, Serialize};

/// Only `scan::a_whole_table_scans_the_same_with_1_and_8_segments` writes here.
#[derive(Table)]
#[table(name = "ScanTests", pk = "pk", sk = "sk")]
pub struct ScanTable;

#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = ScanTable, pk = "sensor#{sensor}", sk = "reading#{at}")]
pub struct Reading {
    pub sensor: String,
    pub at: u32,
    pub value: i64,
}

#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = ScanTable, pk = "sensor#{sensor}", sk = "note")]
pub struct Note {
    pub sensor: String,
    pub text: String,
}

#[derive(Collection, Debug)]
pub enum SensorItems {
    Reading(Reading),
    Note(Note),
}
