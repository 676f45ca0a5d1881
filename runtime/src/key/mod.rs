//! Safe single-table keys.
//!
//! Keys are composed from templates such as `album#{title}` or `song#{album}#{title}`. Every
//! placeholder is followed by `#` or ends the template, and its value is encoded so that the
//! composed key is injective and prefix-safe:
//!
//! - strings escape `#` as `$#` and `$` as `$$`, so album `x#y`/title `z` (`song#x$#y#z`) never
//!   equals album `x`/title `y#z` (`song#x#y$#z`), and `begins_with(sk, "song#x#")` never matches
//!   the songs of album `x#y`;
//! - integers are fixed-width and order-preserving, negative numbers included (`9 < 10`).
//! - `time::OffsetDateTime` is written in UTC, fixed-width with nanoseconds
//!   (`2026-11-25T04:13:20.000000000Z`), so key order is time order.
//!
//! Empty values, and keys over 2,048 bytes (partition) or 1,024 bytes (sort), are rejected with
//! [`crate::Error::InvalidKey`] before any request is sent.
//!
//! ```
//! use dynashard::key::{escape, unescape_prefix};
//! assert_eq!(escape("x#y"), "x$#y");
//! assert_eq!(unescape_prefix("x$#y#z").unwrap(), ("x#y".to_string(), "#z"));
//! ```

mod escape;
mod part;
mod prefix_free;
mod template;
mod time;

pub use escape::{escape, escape_into, unescape_prefix, UnescapeError, ESCAPE, SEPARATOR};
pub use part::{DecodeKeyPart, KeyPart, KeyPartDecodeError};
pub use prefix_free::PrefixFree;
pub use template::{KeyRole, KeyTemplate, KeyWriter, Segment, MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES};
