//! `dynashard reshard`: the state and progress of every resharding a shard metadata table
//! records, read from any machine while workers run it; with `--watch`, a progress bar each,
//! redrawn until every one is finished.

pub mod render;

use crate::args::ReshardArgs;
use crate::dynamo;
use crate::error::CliError;
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use std::io::{IsTerminal, Write};
use std::time::Duration;

/// Runs `dynashard reshard`.
pub fn run(args: ReshardArgs) -> Result<(), CliError> {
    crate::runtime()?.block_on(show(&args))
}

async fn show(args: &ReshardArgs) -> Result<(), CliError> {
    let endpoint = args.endpoint.as_deref();
    let db = dynashard::Db::new(dynamo::client(endpoint).await);
    let read = || async {
        db.reshardings(&args.metadata_table).await.map_err(|error| CliError::Dynamo {
            context: format!("reading the reshardings in {}", args.metadata_table),
            message: error.to_string(),
        })
    };
    let Some(every) = args.watch.filter(|_| std::io::stderr().is_terminal()) else {
        // Once (or, watching without a terminal, every interval as text until all are finished).
        loop {
            let found = read().await?;
            let mut text = String::new();
            if found.is_empty() {
                text.push_str(&format!("no resharding recorded in {}\n", args.metadata_table));
            }
            found.iter().for_each(|progress| text.push_str(&render::render(progress)));
            std::io::stdout()
                .lock()
                .write_all(text.as_bytes())
                .map_err(|error| CliError::io("writing the report", error))?;
            match args.watch {
                Some(every) if !found.iter().all(render::finished) => {
                    tokio::time::sleep(Duration::from_secs(every)).await
                }
                _ => return Ok(()),
            }
        }
    };
    let bars = MultiProgress::new();
    let mut shown: Vec<ProgressBar> = Vec::new();
    loop {
        let found = read().await?;
        while shown.len() < found.len() {
            let bar = bars.add(ProgressBar::new(1_000));
            if let Ok(style) = ProgressStyle::with_template("{prefix} [{bar:40}] {percent:>3}% {msg}") {
                bar.set_style(style.progress_chars("=> "));
            }
            shown.push(bar);
        }
        for (bar, progress) in shown.iter().zip(&found) {
            bar.set_prefix(format!("{}/{}", progress.table, progress.state.source));
            bar.set_position((progress.fraction() * 1_000.0) as u64);
            let left =
                progress.remaining.map_or(String::new(), |left| format!(", {} left", render::duration(left)));
            bar.set_message(format!(
                "{:?}, {} items{left}",
                progress.state.phase,
                crate::format::count(progress.scanned)
            ));
        }
        if found.iter().all(render::finished) {
            shown.iter().for_each(ProgressBar::finish);
            return Ok(());
        }
        tokio::time::sleep(Duration::from_secs(every)).await;
    }
}
