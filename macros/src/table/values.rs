//! The values `#[table(...)]` and `#[gsi(...)]` share: names with where they are written, key
//! attribute types, and the checks of names and units.

use crate::errors::Errors;
use proc_macro2::Span;
use syn::{LitInt, LitStr};

/// A string value and where it is written.
pub struct Text {
    pub value: String,
    pub span: Span,
}

/// The type of a key attribute.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum ScalarKind {
    /// `"name"` or `"name:S"`.
    String,
    /// `"name:N"`.
    Number,
    /// `"name:B"`.
    Binary,
}

/// One key attribute of an index.
pub struct KeyAttr {
    pub name: String,
    pub kind: ScalarKind,
}

/// Table and index names: 3 to 255 characters of `a-z A-Z 0-9 _ - .`.
pub(super) fn checked_name(literal: &LitStr, errors: &mut Errors) -> Text {
    let value = literal.value();
    let valid_chars = value.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if value.len() < 3 || value.len() > 255 || !valid_chars {
        errors.push(
            literal.span(),
            "table and index names are 3 to 255 characters of a-z, A-Z, 0-9, `_`, `-` and `.`",
        );
    }
    Text { value, span: literal.span() }
}

/// Warm throughput: a positive number of units per second.
pub(super) fn units_per_second(literal: &LitInt, errors: &mut Errors) -> u64 {
    match literal.base10_parse::<u64>() {
        Ok(value) if value > 0 => value,
        _ => {
            errors.push(literal.span(), "warm throughput is a positive number of units per second");
            1
        }
    }
}
