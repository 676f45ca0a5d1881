//! Drawing items per shard as horizontal bars in the terminal.

use crate::format::count;
use std::fmt::Write;

/// Characters wide of the fullest shard's bar.
const WIDTH: usize = 40;
/// Partial blocks, in eighths.
const EIGHTHS: [char; 8] = [' ', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];

/// One bar of `value` on a scale where `max` fills [`WIDTH`] characters.
pub fn bar(value: u64, max: u64) -> String {
    let eighths =
        if max == 0 { 0 } else { (u128::from(value) * (WIDTH as u128 * 8) / u128::from(max)) as usize };
    let mut out = "█".repeat(eighths / 8);
    if eighths % 8 > 0 {
        out.push(EIGHTHS[eighths % 8]);
    }
    let drawn = out.chars().count();
    out.extend(std::iter::repeat_n(' ', WIDTH - drawn));
    out
}

/// One line per shard: its id, a bar, and its items; shards above `hot` are marked.
pub fn histogram(shards: &[u64], hot: f64) -> String {
    let max = shards.iter().copied().max().unwrap_or(0);
    let mut out = String::new();
    let _ = writeln!(out, "  {:>6}  {:<WIDTH$}  {:>12}", "shard", "", "items");
    for (shard, &items) in shards.iter().enumerate() {
        let marker = if items as f64 > hot { "  hot" } else { "" };
        let _ = writeln!(out, "  {shard:>6}  {}  {:>12}{marker}", bar(items, max), count(items));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_scale_to_the_fullest_shard() {
        assert_eq!(bar(10, 10), "█".repeat(WIDTH));
        assert_eq!(bar(0, 10).trim(), "");
        assert_eq!(bar(5, 10).trim_end(), "█".repeat(WIDTH / 2));
        assert_eq!(bar(1, 320).trim_end(), "▏");
        assert_eq!(bar(3, 0).chars().count(), WIDTH);
    }

    #[test]
    fn marks_hot_shards() {
        let text = histogram(&[10, 30, 20], 25.0);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4);
        assert!(lines[2].ends_with("30  hot"), "{text}");
        assert!(lines[3].ends_with("20"), "{text}");
    }
}
