//! Progress bars on stderr, drawn only when stderr is a terminal.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;

/// Whether progress should be drawn: stderr is a terminal.
fn visible() -> bool {
    std::io::stderr().is_terminal()
}

/// A bar (or a spinner when `total` is unknown) counting bytes.
pub fn bytes(total: Option<u64>, message: &'static str) -> ProgressBar {
    bar(
        total,
        message,
        "{msg} [{bar:40}] {binary_bytes}/{binary_total_bytes} ({eta})",
        "{msg} {spinner} {binary_bytes}",
    )
}

/// A bar (or a spinner when `total` is unknown) counting items.
pub fn items(total: Option<u64>, message: &'static str) -> ProgressBar {
    bar(
        total,
        message,
        "{msg} [{bar:40}] {human_pos}/~{human_len} items ({eta})",
        "{msg} {spinner} {human_pos} items",
    )
}

/// A spinner for a step without a measurable length.
pub fn step(message: &'static str) -> ProgressBar {
    bar(None, message, "", "{msg} {spinner} {elapsed}")
}

fn bar(total: Option<u64>, message: &'static str, with_total: &str, without_total: &str) -> ProgressBar {
    if !visible() {
        return ProgressBar::hidden();
    }
    let (bar, template) = match total {
        Some(total) if total > 0 && !with_total.is_empty() => (ProgressBar::new(total), with_total),
        _ => (ProgressBar::new_spinner(), without_total),
    };
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_message(message);
    bar.enable_steady_tick(std::time::Duration::from_millis(120));
    bar
}
