//! `dynashard heat`: a heat map of partition keys against time, from a map a program recorded
//! (the JSON of a `dynashard::heat::HeatMap`) or from CloudWatch Contributor Insights reports,
//! shown in the terminal and written as SVG or HTML.

use crate::args::{ColorArg, HeatArgs};
use crate::error::CliError;
use dynashard::heat::{HeatMap, HeatMapBuilder, InsightsKind, InsightsReport};
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::time::Duration;

/// Runs `dynashard heat`.
pub fn run(args: HeatArgs) -> Result<(), CliError> {
    let map = load(&args)?;
    let color = match args.color {
        ColorArg::Always => true,
        ColorArg::Never => false,
        ColorArg::Auto => std::io::stdout().is_terminal(),
    };
    let width = args.width.unwrap_or(120);
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(map.terminal(width, color).as_bytes())
        .map_err(|error| CliError::io("writing the heat map", error))?;
    if let Some(path) = &args.svg {
        write(path, &map.svg())?;
    }
    if let Some(path) = &args.html {
        write(path, &map.html())?;
    }
    Ok(())
}

/// The map the arguments name: a recorded map, or Contributor Insights reports.
fn load(args: &HeatArgs) -> Result<HeatMap, CliError> {
    let read = |path: &Path| {
        std::fs::read_to_string(path)
            .map_err(|error| CliError::io(format!("reading {}", path.display()), error))
    };
    if args.consumed.is_none() && args.throttled.is_none() {
        let Some(path) = &args.map else {
            return Err(CliError::Usage(
                "give a heat map's JSON, or --consumed and --throttled reports".into(),
            ));
        };
        return serde_json::from_str(&read(path)?)
            .map_err(|error| CliError::Usage(format!("{}: not a heat map: {error}", path.display())));
    }
    let Some(table) = &args.table else {
        return Err(CliError::Usage(
            "Contributor Insights reports need --table (and --index for an index's)".into(),
        ));
    };
    let mut builder = HeatMapBuilder::new(Duration::from_secs(args.period));
    for (path, kind) in [(&args.consumed, InsightsKind::Consumed), (&args.throttled, InsightsKind::Throttled)]
    {
        let Some(path) = path else { continue };
        let usage =
            |error: dynashard::heat::InsightsError| CliError::Usage(format!("{}: {error}", path.display()));
        let report = InsightsReport::from_json(&read(path)?).map_err(usage)?;
        builder.add_insights(&report, (table, args.index.as_deref()), kind).map_err(usage)?;
    }
    Ok(builder.build())
}

fn write(path: &Path, text: &str) -> Result<(), CliError> {
    std::fs::write(path, text).map_err(|error| CliError::io(format!("writing {}", path.display()), error))
}
