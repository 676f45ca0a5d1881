//! Range boundaries files, read and checked at compile time.

use crate::errors::Errors;
use proc_macro2::Span;
use serde_json::Value;
use std::path::{Path, PathBuf};
use syn::LitStr;

/// The most shards one index may have.
pub const MAX_SHARDS: u64 = 10_000;

/// Where the boundaries file `written` is. A relative path is looked up relative to the
/// package's manifest directory first, then to the directory of the source file holding the
/// attribute at `span` (as `include_str!` does). The path found is absolute, for
/// `include_bytes!`.
fn locate(written: &str, span: Span) -> Option<PathBuf> {
    let path = Path::new(written);
    let manifest_dir = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from).unwrap_or_default();
    let candidates =
        std::iter::once(manifest_dir.join(path)).chain(source_dir(span).map(|dir| dir.join(path)));
    candidates.filter(|candidate| candidate.exists()).find_map(|found| std::path::absolute(found).ok())
}

/// The directory of the source file that `span` is in, when the macro runs inside the compiler
/// and the file is on disk.
fn source_dir(span: Span) -> Option<PathBuf> {
    if !proc_macro::is_available() {
        return None;
    }
    let file = std::path::absolute(span.unwrap().local_file()?).ok()?;
    file.parent().map(Path::to_path_buf)
}

/// A checked boundaries file: where it is, and its boundaries.
pub struct BoundariesFile {
    /// The absolute path of the file, which the expansion includes so that editing it rebuilds.
    pub path: String,
    pub boundaries: Vec<String>,
}

/// Reads and checks a boundaries file: a JSON array of strings, first `""`, strictly increasing
/// in UTF-8 byte order. Errors point at the path literal and name the path as written.
pub fn read_boundaries(path: &LitStr, errors: &mut Errors) -> Option<BoundariesFile> {
    let written = path.value();
    let mut fail = |message: String| {
        errors.push(path.span(), message);
        None
    };
    let Some(found) = locate(&written, path.span()) else {
        return fail(format!(
            "cannot find boundaries file `{written}` (looked up relative to the package's `Cargo.toml` \
             and to this source file)"
        ));
    };
    let Some(resolved) = found.to_str().map(str::to_owned) else {
        return fail(format!("the path of boundaries file `{written}` is not valid UTF-8"));
    };
    let text = match std::fs::read_to_string(&found) {
        Ok(text) => text,
        Err(error) => return fail(format!("cannot read boundaries file `{written}`: {error}")),
    };
    let entries = match serde_json::from_str(&text) {
        Ok(Value::Array(entries)) => entries,
        Ok(other) => {
            return fail(format!(
                "boundaries file `{written}` must hold a JSON array of strings, not {}",
                describe(&other)
            ))
        }
        Err(error) => return fail(format!("boundaries file `{written}` is not valid JSON: {error}")),
    };
    let mut boundaries = Vec::with_capacity(entries.len());
    for (position, entry) in entries.into_iter().enumerate() {
        match entry {
            Value::String(boundary) => boundaries.push(boundary),
            other => {
                return fail(format!(
                    "boundaries file `{written}` must hold a JSON array of strings, but entry \
                     {position} is {}",
                    describe(&other)
                ))
            }
        }
    }
    match boundaries.first() {
        None => {
            return fail(format!(
                "boundaries file `{written}` is empty: it needs at least the first boundary, \"\""
            ))
        }
        Some(first) if !first.is_empty() => {
            return fail(format!("the first boundary in `{written}` must be \"\", found {first:?}"))
        }
        Some(_) => {}
    }
    if let Some(position) = boundaries.windows(2).position(|pair| pair[1] <= pair[0]) {
        return fail(format!(
            "boundaries in `{written}` must be strictly increasing (in UTF-8 byte order), but entry {} \
             ({:?}) is not greater than entry {position} ({:?})",
            position + 1,
            boundaries[position + 1],
            boundaries[position]
        ));
    }
    if boundaries.len() as u64 > MAX_SHARDS {
        return fail(format!(
            "boundaries file `{written}` has {} boundaries; at most {MAX_SHARDS} range shards",
            boundaries.len()
        ));
    }
    Some(BoundariesFile { path: resolved, boundaries })
}

/// A JSON value's kind, for messages: `the number 5`, `an object`.
fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(flag) => format!("the boolean {flag}"),
        Value::Number(number) => format!("the number {number}"),
        Value::String(text) => format!("the string {text:?}"),
        Value::Array(_) => "an array".to_owned(),
        Value::Object(_) => "an object".to_owned(),
    }
}
