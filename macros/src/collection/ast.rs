//! The declaration of one collection: its members (one entity per variant) and where the runtime
//! is, parsed from the enum and its `#[collection(...)]` attribute.

use crate::attr::unknown_key;
use crate::door::{set_door, Door};
use crate::errors::Errors;
use syn::{Data, DeriveInput, Fields, Ident, Type};

/// One variant and the entity it holds.
pub struct Member {
    pub variant: Ident,
    pub ty: Type,
}

/// A collection declaration.
pub struct Collection {
    pub ident: Ident,
    pub members: Vec<Member>,
    /// Where generated code finds the runtime.
    pub door: Door,
}

impl Collection {
    /// The declaration, or `None` when the input is not an enum (reported). A variant that does
    /// not hold exactly one entity is reported and left out.
    pub fn parse(input: &DeriveInput, errors: &mut Errors) -> Option<Self> {
        if !input.generics.params.is_empty() {
            errors.push_spanned(&input.generics, "`Collection` cannot be derived for generic enums");
        }
        let Data::Enum(data) = &input.data else {
            errors.push(input.ident.span(), "`Collection` can only be derived for enums");
            return None;
        };
        let mut members = Vec::new();
        for variant in &data.variants {
            match &variant.fields {
                Fields::Unnamed(fields) if fields.unnamed.len() == 1 => {
                    members.push(Member { variant: variant.ident.clone(), ty: fields.unnamed[0].ty.clone() });
                }
                _ => errors.push_spanned(
                    variant,
                    "each variant of a collection holds exactly one entity, like `Album(Album)`",
                ),
            }
        }
        let door = parse_door(input, errors);
        Some(Collection { ident: input.ident.clone(), members, door })
    }
}

/// The `crate = "..."` of `#[collection(...)]`, its only key.
fn parse_door(input: &DeriveInput, errors: &mut Errors) -> Door {
    let mut door = None;
    for attr in input.attrs.iter().filter(|attr| attr.path().is_ident("collection")) {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("crate") {
                set_door(errors, &meta, &mut door)
            } else {
                unknown_key(errors, &meta, "collection", &["crate"])
            }
        });
        if let Err(error) = result {
            errors.add(error);
        }
    }
    door.unwrap_or_default()
}
