//! The declaration of one view: its fields with the attributes serde reads them from, and the
//! entity and runtime named by `#[view(entity = ..., crate = "...")]`.

use crate::attr::{set_once, unknown_key};
use crate::door::{set_door, Door};
use crate::errors::Errors;
use crate::serde_attrs::{self, StoredField};
use syn::{DeriveInput, Ident, Path};

/// A view declaration.
pub struct View {
    pub ident: Ident,
    pub generics: syn::Generics,
    /// The entity it reads, when `#[view(entity = ...)]` names one (else reported by the check).
    pub entity: Option<Path>,
    pub fields: Vec<StoredField>,
    /// Where generated code finds the runtime.
    pub door: Door,
}

impl View {
    /// The declaration, or `None` when the input is not a struct with named fields (reported).
    pub fn parse(input: &DeriveInput, errors: &mut Errors) -> Option<Self> {
        let (entity, door) = parse_attribute(input, errors);
        let fields = serde_attrs::stored_fields(input, "View", errors)?;
        Some(View { ident: input.ident.clone(), generics: input.generics.clone(), entity, fields, door })
    }
}

/// The keys of `#[view(...)]`: `entity = Path` and `crate = "..."`.
fn parse_attribute(input: &DeriveInput, errors: &mut Errors) -> (Option<Path>, Door) {
    let (mut entity, mut door) = (None, None);
    for attr in input.attrs.iter().filter(|attr| attr.path().is_ident("view")) {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("entity") {
                let value: Path =
                    crate::attr::value(&meta, "the entity the view reads", "entity = Order")?.parse()?;
                set_once(errors, &meta, &mut entity, value);
                Ok(())
            } else if meta.path.is_ident("crate") {
                set_door(errors, &meta, &mut door)
            } else {
                unknown_key(errors, &meta, "view", &["entity", "crate"])
            }
        });
        if let Err(error) = result {
            errors.add(error);
        }
    }
    (entity, door.unwrap_or_default())
}
