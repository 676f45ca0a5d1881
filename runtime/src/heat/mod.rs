//! Heat maps of partition keys against time, like Bigtable's Key Visualizer: which keys and
//! shards took the most, when, and which went over what their partition serves.
//!
//! A [`HeatMapBuilder`] collects what keys took, slice by slice, from any source:
//!
//! - the partition-limit emulator over a run (`Emulator::record_heat` samples its counters;
//!   with the `local` feature);
//! - a `Db`'s hot-key tracking ([`Db::heat_map`](crate::Db::heat_map): its hottest keys, a
//!   slice a period of its window);
//! - CloudWatch Contributor Insights, where the table has it on: the JSON of its rules' reports
//!   ([`HeatMapBuilder::add_insights`]);
//! - anything else that knows units by key and time.
//!
//! For a range layout, [`suggest_split`] turns the shards a map shows over their limit, and the
//! load observed on their routing values, into new boundaries for resharding.
//!
//! A [`HeatMap`] renders as an SVG picture ([`HeatMap::svg`]), an HTML page with the keys over
//! their limit ([`HeatMap::html`]) or a terminal view ([`HeatMap::terminal`]); it is a serde
//! record, so one saved as JSON renders later: `dynashard heat map.json`. No I/O here.
//!
//! ```
//! use dynashard::consumption::KeyPlace;
//! use dynashard::heat::{HeatCell, HeatMapBuilder};
//! use std::time::Duration;
//!
//! let mut builder = HeatMapBuilder::new(Duration::from_secs(1)).starting_at(0);
//! for second in 0..30u64 {
//!     for shard in 0..4 {
//!         let place = KeyPlace { table: "Music".into(), index: Some("ByTitle".into()), partition_key: format!("albums#{shard}") };
//!         let units = if shard == 2 { 40.0 * second as f64 } else { 150.0 };
//!         builder.add(second * 1_000, place, HeatCell { write_units: units, ..HeatCell::default() });
//!     }
//! }
//! let map = builder.build();
//! println!("{}", map.terminal(100, false));
//! assert_eq!(map.over_limit()[0].place.partition_key, "albums#2");
//! std::fs::write(std::env::temp_dir().join("heat.svg"), map.svg()).unwrap();
//! ```

mod insights;
mod map;
mod paint;
mod split;
mod svg;
mod terminal;
#[cfg(test)]
mod tests;

pub use insights::{Contributor, Datapoint, InsightsError, InsightsKind, InsightsReport};
pub use map::{HeatCell, HeatMap, HeatMapBuilder, HeatRow, OverLimit, PartitionRate, MAX_SLICES};
pub use split::{suggest_split, ShardSplit, SplitSuggestion, ValueLoad};
