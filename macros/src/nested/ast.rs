//! The declaration of one nested struct: its fields with the names serde stores them under, and
//! the runtime named by `#[nested(crate = "...")]`.

use crate::attr::unknown_key;
use crate::door::{set_door, Door};
use crate::errors::Errors;
use crate::serde_attrs::{self, StoredField};
use syn::{DeriveInput, Ident, Visibility};

/// A nested struct declaration.
pub struct Nested {
    pub ident: Ident,
    pub vis: Visibility,
    pub generics: syn::Generics,
    pub fields: Vec<StoredField>,
    /// Where generated code finds the runtime.
    pub door: Door,
}

impl Nested {
    /// The declaration, or `None` when the input is not a struct with named fields (reported).
    pub fn parse(input: &DeriveInput, errors: &mut Errors) -> Option<Self> {
        let door = parse_door(input, errors);
        let fields = serde_attrs::stored_fields(input, "Nested", errors)?;
        Some(Nested {
            ident: input.ident.clone(),
            vis: input.vis.clone(),
            generics: input.generics.clone(),
            fields,
            door,
        })
    }
}

/// The `crate = "..."` of `#[nested(...)]`, its only key.
fn parse_door(input: &DeriveInput, errors: &mut Errors) -> Door {
    let mut door = None;
    for attr in input.attrs.iter().filter(|attr| attr.path().is_ident("nested")) {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("crate") {
                set_door(errors, &meta, &mut door)
            } else {
                unknown_key(errors, &meta, "nested", &["crate"])
            }
        });
        if let Err(error) = result {
            errors.add(error);
        }
    }
    door.unwrap_or_default()
}
