//! `#[derive(Collection)]`: an enum of entities that share a partition key, read with one query
//! and dispatched on the entity-type attribute. One way, as the other derives: the enum and its
//! attribute (`ast`), checked (`check`), then expanded (`expand`).

mod ast;
mod check;
mod expand;

use crate::errors::Errors;
use proc_macro2::TokenStream;
use syn::DeriveInput;

/// Derives `dynashard::Collection` and `FromItem` for an enum of single-entity variants.
pub fn derive(input: DeriveInput) -> syn::Result<TokenStream> {
    let mut errors = Errors::default();
    let collection = ast::Collection::parse(&input, &mut errors);
    if let Some(collection) = &collection {
        check::check(collection, &mut errors);
    }
    errors.finish(())?;
    match collection {
        Some(collection) => {
            Ok(collection.door.enclose(expand::expand(&collection.ident, &collection.members)))
        }
        None => Err(syn::Error::new(input.ident.span(), "invalid collection declaration")),
    }
}
