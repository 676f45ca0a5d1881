//! What the renderings share: the colour of a heat, a row's label, the map's caption.

use super::map::HeatMap;
use crate::consumption::KeyPlace;

/// The colour ramp, by heat: idle to the limit on a square-root scale, then over it.
const RAMP: [(f64, [u8; 3]); 6] = [
    (0.0, [0x16, 0x1b, 0x22]),
    (0.1, [0x1d, 0x3b, 0x5c]),
    (0.3, [0x2c, 0x7f, 0xb8]),
    (0.55, [0x41, 0xb6, 0xc4]),
    (0.8, [0xfe, 0xd9, 0x76]),
    (1.0, [0xfd, 0x8d, 0x3c]),
];
/// Over the limit.
const OVER: [u8; 3] = [0xe3, 0x1a, 0x1c];

/// The colour of `heat` (a share of the limit) as an RGB triple.
pub(crate) fn rgb(heat: f64) -> [u8; 3] {
    if heat.is_nan() || heat <= 0.0 {
        return [0x11, 0x15, 0x1c];
    }
    if heat > 1.0 {
        return OVER;
    }
    let position = heat.sqrt();
    let upper = RAMP.iter().position(|(stop, _)| *stop >= position).unwrap_or(RAMP.len() - 1).max(1);
    let ((low, from), (high, to)) = (RAMP[upper - 1], RAMP[upper]);
    let t = ((position - low) / (high - low)).clamp(0.0, 1.0);
    let mix = |a: u8, b: u8| (f64::from(a) + (f64::from(b) - f64::from(a)) * t).round() as u8;
    [mix(from[0], to[0]), mix(from[1], to[1]), mix(from[2], to[2])]
}

/// The colour of `heat` as `#rrggbb`.
pub(crate) fn color(heat: f64) -> String {
    let [r, g, b] = rgb(heat);
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// A row's label: its index (or `(table)`) and key, the key's start cut to fit `chars`.
pub(crate) fn label(place: &KeyPlace, chars: usize) -> String {
    let index = place.index.as_deref().unwrap_or("(table)");
    let full = format!("{index} {}", place.partition_key);
    let count = full.chars().count();
    if count <= chars {
        return full;
    }
    let tail: String = full.chars().skip(count - chars.saturating_sub(1)).collect();
    format!("…{tail}")
}

/// The map's caption: when, how long a slice, how many keys, against which rate.
pub(crate) fn describe(map: &HeatMap) -> String {
    format!(
        "{} · {} slices of {} s · {} keys · a partition serves {} read, {} write units a second",
        time_of(map.start_ms),
        map.slices(),
        map.slice_ms as f64 / 1_000.0,
        map.rows.len(),
        map.rate.read_units,
        map.rate.write_units
    )
}

/// Milliseconds since the Unix epoch as UTC date and time.
pub(crate) fn time_of(ms: u64) -> String {
    let nanos = i128::from(ms).saturating_mul(1_000_000);
    match time::OffsetDateTime::from_unix_timestamp_nanos(nanos) {
        Ok(at) => format!(
            "{:04}-{:02}-{:02} {:02}:{:02}:{:02}.{:03} UTC",
            at.year(),
            u8::from(at.month()),
            at.day(),
            at.hour(),
            at.minute(),
            at.second(),
            at.millisecond()
        ),
        Err(_) => format!("{ms} ms"),
    }
}
