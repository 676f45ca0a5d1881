//! Range boundaries files, read and checked at compile time.

use super::shard_model::MAX_SHARDS;
use crate::errors::Errors;
use serde_json::Value;
use syn::LitStr;

/// `path` relative to the crate being compiled.
pub fn resolve(path: &str) -> String {
    let base = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    std::path::Path::new(&base).join(path).to_string_lossy().into_owned()
}

/// Reads and checks a boundaries file: a JSON array of strings, first `""`, strictly increasing
/// in UTF-8 byte order. Errors point at the path literal and name the path as written.
pub fn read_boundaries(path: &LitStr, errors: &mut Errors) -> Option<Vec<String>> {
    let written = path.value();
    let mut fail = |message: String| {
        errors.push(path.span(), message);
        None
    };
    let text = match std::fs::read_to_string(resolve(&written)) {
        Ok(text) => text,
        Err(error) => {
            return fail(format!(
                "cannot read boundaries file `{written}` (paths are relative to the package's \
                 `Cargo.toml`): {error}"
            ))
        }
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
    Some(boundaries)
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
