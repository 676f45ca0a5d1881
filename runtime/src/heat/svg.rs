//! The heat map as an SVG picture, and as an HTML page holding it with the keys over their limit.

use super::map::{HeatCell, HeatMap, OverLimit};
use super::paint::{color, describe, label};
use std::fmt::Write;

/// A cell's largest side, and its height.
const CELL_WIDTH_MAX: usize = 24;
const CELL_HEIGHT: usize = 14;
/// The width the cells of a long map share.
const PLOT_WIDTH: usize = 960;
/// The width of a label's character, in the monospace font used.
const CHAR_WIDTH: usize = 7;
const MARGIN: usize = 16;
const TITLE_HEIGHT: usize = 40;
const AXIS_HEIGHT: usize = 28;
const LEGEND_HEIGHT: usize = 36;
/// The most rows drawn: the hottest keys (throttled ones first), in key order.
const MAX_ROWS: usize = 64;
/// The longest label shown whole.
const LABEL_CHARS: usize = 48;

impl HeatMap {
    /// The map as an SVG picture: a row a key (the 64 hottest, as [`HeatMap::hottest_rows`]
    /// picks them), a column a slice, each cell coloured by its
    /// [heat](HeatMap::heat) (dark: idle; blue to yellow: up to its partition's limit, on a
    /// square-root scale; red: over it), throttled cells outlined in pink, the time along the
    /// bottom and a legend.
    pub fn svg(&self) -> String {
        let slices = self.slices();
        let rows = self.hottest_rows(MAX_ROWS);
        let labels: Vec<String> = rows.iter().map(|row| label(&row.place, LABEL_CHARS)).collect();
        let label_width =
            labels.iter().map(|label| label.chars().count()).max().unwrap_or(0) * CHAR_WIDTH + 12;
        let cell = (PLOT_WIDTH / slices.max(1)).clamp(2, CELL_WIDTH_MAX);
        let plot = (MARGIN + label_width, MARGIN + TITLE_HEIGHT);
        let caption = describe(self);
        let width = (plot.0 + cell * slices + MARGIN).max(caption.chars().count() * CHAR_WIDTH + 2 * MARGIN);
        let hidden = self.rows.len() - rows.len();
        let height = plot.1
            + CELL_HEIGHT * (rows.len() + usize::from(hidden > 0))
            + AXIS_HEIGHT
            + LEGEND_HEIGHT
            + MARGIN;
        let mut svg = String::with_capacity(256 + rows.len() * slices * 160);
        let _ = write!(
            svg,
            r##"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="ui-monospace, Menlo, Consolas, monospace" font-size="11">"##
        );
        let _ = write!(svg, r##"<rect width="{width}" height="{height}" fill="#0d1117"/>"##);
        let _ = write!(
            svg,
            r##"<text x="{MARGIN}" y="{}" fill="#e6edf3" font-size="14" font-weight="bold">Partition heat</text><text x="{MARGIN}" y="{}" fill="#8b949e">{}</text>"##,
            MARGIN + 12,
            MARGIN + 28,
            escape(&caption)
        );
        for (row, (heat_row, label)) in rows.iter().zip(&labels).enumerate() {
            let y = plot.1 + row * CELL_HEIGHT;
            let _ = write!(
                svg,
                r##"<text x="{}" y="{}" fill="#c9d1d9" text-anchor="end">{}</text>"##,
                plot.0 - 8,
                y + CELL_HEIGHT - 3,
                escape(label)
            );
            // The row idle, then each cell that took anything.
            let _ = write!(
                svg,
                r##"<rect x="{}" y="{y}" width="{}" height="{}" fill="{}"/>"##,
                plot.0,
                (cell * slices).saturating_sub(1),
                CELL_HEIGHT - 1,
                color(0.0)
            );
            self.cells(&mut svg, &heat_row.cells, (plot.0, y), cell);
        }
        let bottom = plot.1 + CELL_HEIGHT * rows.len();
        if hidden > 0 {
            let _ = write!(
                svg,
                r##"<text x="{}" y="{}" fill="#8b949e" text-anchor="end">… and {hidden} cooler keys</text>"##,
                plot.0 - 8,
                bottom + CELL_HEIGHT - 3
            );
        }
        axis(&mut svg, self, (plot.0, bottom + CELL_HEIGHT * usize::from(hidden > 0)), cell);
        legend(&mut svg, (MARGIN, height - MARGIN - LEGEND_HEIGHT + 14));
        svg.push_str("</svg>\n");
        svg
    }

    /// The cells of one row that took anything, from `left` at height `y`, `cell` wide.
    fn cells(&self, svg: &mut String, cells: &[HeatCell], (left, y): (usize, usize), cell: usize) {
        for (slice, heat_cell) in cells.iter().enumerate() {
            if *heat_cell == HeatCell::default() {
                continue;
            }
            let x = left + slice * cell;
            let heat = self.heat(heat_cell);
            let _ = write!(
                svg,
                r##"<rect x="{x}" y="{y}" width="{}" height="{}" fill="{}""##,
                cell.saturating_sub(1).max(1),
                CELL_HEIGHT - 1,
                color(heat)
            );
            if heat_cell.throttles > 0 {
                svg.push_str(r##" stroke="#ff4d8d" stroke-width="1.5""##);
            }
            let seconds = self.slice_ms.saturating_mul(slice as u64) as f64 / 1_000.0;
            let _ = write!(
                svg,
                r##"><title>+{seconds}s: {:.0}% ({:.1} R, {:.1} W, {} throttled)</title></rect>"##,
                100.0 * heat,
                heat_cell.read_units,
                heat_cell.write_units,
                heat_cell.throttles
            );
        }
    }

    /// An HTML page: the [picture](HeatMap::svg), then the keys over their partition's limit.
    pub fn html(&self) -> String {
        let mut html = String::from(
            "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>Partition heat</title><style>\
             body{background:#0d1117;color:#c9d1d9;font:13px ui-monospace,Menlo,Consolas,monospace;margin:24px}\
             td,th{padding:2px 12px 2px 0;text-align:left}th{color:#8b949e;font-weight:normal}</style></head><body>\n",
        );
        html.push_str(&self.svg());
        let over = self.over_limit();
        if over.is_empty() {
            html.push_str("<p>No key went over its partition's limit.</p>\n");
        } else {
            html.push_str("<h3>Over their partition's limit</h3>\n<table><tr><th>table</th><th>index</th><th>key</th><th>peak</th><th>slices</th></tr>\n");
            for OverLimit { place, slices, peak } in &over {
                let _ = writeln!(
                    html,
                    "<tr><td>{}</td><td>{}</td><td>{}</td><td>{:.2}x</td><td>{}</td></tr>",
                    escape(&place.table),
                    escape(place.index.as_deref().unwrap_or("(table)")),
                    escape(&place.partition_key),
                    peak,
                    slices.len()
                );
            }
            html.push_str("</table>\n");
        }
        html.push_str("</body></html>\n");
        html
    }
}

/// Time marks under the cells: about one every 80 pixels, as seconds from the start.
fn axis(svg: &mut String, map: &HeatMap, (left, top): (usize, usize), cell: usize) {
    let slices = map.slices();
    let every = (80 / cell.max(1)).max(1);
    for slice in (0..=slices).step_by(every) {
        let x = left + slice * cell;
        let seconds = map.slice_ms.saturating_mul(slice as u64) as f64 / 1_000.0;
        let _ = write!(
            svg,
            r##"<line x1="{x}" y1="{top}" x2="{x}" y2="{}" stroke="#30363d"/><text x="{x}" y="{}" fill="#8b949e" text-anchor="middle">+{seconds}s</text>"##,
            top + 4,
            top + 16
        );
    }
}

/// The colours' meaning: a bar from idle to the limit, then over it, and the throttled outline.
fn legend(svg: &mut String, (left, top): (usize, usize)) {
    const STEPS: usize = 40;
    for step in 0..=STEPS {
        let heat = (step as f64 / STEPS as f64).powi(2);
        let _ = write!(
            svg,
            r##"<rect x="{}" y="{top}" width="4" height="10" fill="{}"/>"##,
            left + step * 4,
            color(heat)
        );
    }
    let over = left + (STEPS + 1) * 4 + 24;
    let _ = write!(
        svg,
        r##"<rect x="{over}" y="{top}" width="12" height="10" fill="{}"/><rect x="{}" y="{top}" width="12" height="10" fill="{}" stroke="#ff4d8d" stroke-width="1.5"/><text x="{left}" y="{}" fill="#8b949e">idle</text><text x="{}" y="{}" fill="#8b949e" text-anchor="end">limit</text><text x="{}" y="{}" fill="#8b949e">over</text><text x="{}" y="{}" fill="#8b949e">throttled</text>"##,
        color(1.5),
        over + 60,
        color(0.5),
        top + 22,
        over - 24,
        top + 22,
        over - 2,
        top + 22,
        over + 60,
        top + 22
    );
}

/// Text safe inside an SVG or HTML element or attribute.
pub(crate) fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for character in text.chars() {
        match character {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&#39;"),
            control if control.is_control() => escaped.push('\u{fffd}'),
            other => escaped.push(other),
        }
    }
    escaped
}
