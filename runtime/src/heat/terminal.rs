//! The heat map for a terminal: a line a key, a character a slice (or a few slices merged to
//! fit), optionally in colour.

use super::map::{HeatCell, HeatMap};
use super::paint::{describe, label, rgb};
use std::fmt::Write;

/// The characters of a cell by heat: idle, under 5%, 25%, 50%, 100% of the limit, over it.
const SHADES: [char; 6] = [' ', '·', '░', '▒', '▓', '█'];
/// A throttled cell.
const THROTTLED: char = '!';
/// The most rows shown: the hottest, in key order.
const MAX_ROWS: usize = 40;
/// The longest label.
const LABEL_CHARS: usize = 36;

impl HeatMap {
    /// The map in `width` columns (at least 40): a line a key (the 40 hottest, as
    /// [`HeatMap::hottest_rows`] picks them),
    /// a character a slice, or the hottest of a few slices merged to fit, by heat (` ·░▒▓█`, `█`
    /// over the limit), `!` where requests were throttled; after each line its peak heat and
    /// throttles. `color` adds the SVG's colours as 24-bit ANSI escapes.
    pub fn terminal(&self, width: usize, color: bool) -> String {
        let mut out = format!("Partition heat: {}\n", describe(self));
        let shown = self.hottest_rows(MAX_ROWS);
        let labels: Vec<String> = shown.iter().map(|row| label(&row.place, LABEL_CHARS)).collect();
        let label_width = labels.iter().map(|label| label.chars().count()).max().unwrap_or(0);
        let columns = width.max(40).saturating_sub(label_width + 24).max(8);
        let slices = self.slices();
        let merged = slices.div_ceil(columns).max(1);
        if merged > 1 {
            let _ = writeln!(out, "(a character is {merged} slices: the hottest of them)");
        }
        for (row, label) in shown.iter().zip(&labels) {
            let peak = self.peak(&row.cells);
            let _ = write!(out, "{label:>label_width$} │");
            for group in row.cells.chunks(merged) {
                let heat = self.peak(group);
                let throttled = group.iter().any(|cell| cell.throttles > 0);
                let shade = if throttled { THROTTLED } else { shade(heat) };
                if color {
                    let [r, g, b] = rgb(heat);
                    let _ = write!(out, "\x1b[48;2;{r};{g};{b}m{shade}\x1b[0m");
                } else {
                    out.push(shade);
                }
            }
            let throttles: u64 = row.cells.iter().map(|cell| cell.throttles).sum();
            let _ = writeln!(
                out,
                "│ {:>5.2}x{}",
                peak,
                if throttles > 0 { format!(" {throttles}!") } else { String::new() }
            );
        }
        if self.rows.len() > shown.len() {
            let _ = writeln!(out, "… and {} cooler keys", self.rows.len() - shown.len());
        }
        let over = self.over_limit();
        if !over.is_empty() {
            let hottest = label(&over[0].place, LABEL_CHARS);
            let _ = writeln!(
                out,
                "{} of {} keys went over their partition's limit; the hottest: {hottest} ({:.2}x)",
                over.len(),
                self.rows.len(),
                over[0].peak
            );
        }
        out
    }

    /// The hottest of `cells`.
    fn peak(&self, cells: &[HeatCell]) -> f64 {
        cells.iter().map(|cell| self.heat(cell)).fold(0.0, f64::max)
    }
}

/// The character of a heat.
fn shade(heat: f64) -> char {
    match heat {
        heat if heat.is_nan() || heat <= 0.0 => SHADES[0],
        heat if heat < 0.05 => SHADES[1],
        heat if heat < 0.25 => SHADES[2],
        heat if heat < 0.5 => SHADES[3],
        heat if heat <= 1.0 => SHADES[4],
        _ => SHADES[5],
    }
}
