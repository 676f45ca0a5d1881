//! `dynashard boundaries`: cut balanced range-shard boundaries from sample keys.
//!
//! Keys are normalized into one buffer (one key per line on every core, see [`lines`]), sorted
//! in parallel, collapsed into runs of equal keys, and cut into shards (see [`cuts`]); each
//! boundary is the shortest prefix separating its neighbours (see [`prefix`]). The boundaries go
//! to stdout as JSON, the report to stderr.

pub mod cuts;
pub mod key_set;
pub mod layout;
pub mod lines;
pub mod prefix;
pub mod report;
mod source_table;

pub use key_set::KeySet;

use crate::args::BoundariesArgs;
use crate::error::CliError;
use crate::input::{Counts, Format, Sources};
use crate::progress;
use dynashard::shard::Normalization;
use layout::Layout;
use report::Summary;
use std::io::Write;

/// Runs `dynashard boundaries`.
pub fn run(args: BoundariesArgs) -> Result<(), CliError> {
    let normalization = Normalization::from(args.normalize);
    let (keys, counts) = match &args.from_table {
        Some(table) => source_table::read(&args, table, normalization)?,
        None => read_inputs(&args, normalization)?,
    };
    if keys.is_empty() {
        let skipped = if counts.skipped > 0 {
            format!(" ({} empty or missing keys skipped)", counts.skipped)
        } else {
            String::new()
        };
        return Err(CliError::Usage(format!("the input has no keys{skipped}")));
    }
    let sorting = progress::step("sorting keys");
    let runs = keys.into_runs();
    sorting.finish_and_clear();
    let layout = Layout::cut(&runs, args.shards as usize)?;
    let summary = Summary::new(&runs, &layout, normalization.name(), counts.skipped, args.top);
    let json = serde_json::to_string_pretty(&layout.boundaries)
        .map_err(|error| CliError::io("encoding the boundaries", std::io::Error::other(error)))?;
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{json}").map_err(|error| CliError::io("writing the boundaries", error))?;
    eprint!("{}", summary.render(args.verbose));
    Ok(())
}

/// Reads and normalizes the keys of the input files (or stdin).
fn read_inputs(args: &BoundariesArgs, normalization: Normalization) -> Result<(KeySet, Counts), CliError> {
    let sources = Sources::new(args.files.clone());
    let format = match (&args.csv_column, &args.jsonl_field) {
        (Some(column), _) => Format::CsvColumn(column.clone()),
        (None, Some(field)) => Format::JsonlField(field.clone()),
        (None, None) => Format::Lines,
    };
    let size_hint = sources.size_hint();
    let capacity =
        size_hint.map_or(1 << 20, |bytes| usize::try_from(bytes).unwrap_or(usize::MAX).min(1 << 32));
    let mut keys = KeySet::new(normalization, capacity);
    let bar = progress::bytes(size_hint, "reading keys");
    let counts = match format {
        Format::Lines => lines::read(&args.files, args.lossy, &mut keys, |bytes| bar.inc(bytes))?,
        _ => sources.read(
            &format,
            args.lossy,
            |bytes| bar.inc(bytes),
            |key| keys.push(key).map_err(CliError::from),
        )?,
    };
    bar.finish_and_clear();
    Ok((keys, counts))
}
