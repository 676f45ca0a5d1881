//! `#[derive(Nested)]`: a struct stored as a map attribute inside an entity, whose fields
//! conditions name through typed handles. One way, as the other derives: the struct and its
//! attribute (`ast`), checked (`check`), then expanded (`expand`).

mod ast;
mod check;
mod expand;

use crate::errors::Errors;
use proc_macro2::TokenStream;
use syn::DeriveInput;

/// Derives `dynashard::Nested` and the struct of handles on its fields.
pub fn derive(input: DeriveInput) -> syn::Result<TokenStream> {
    let mut errors = Errors::default();
    let nested = ast::Nested::parse(&input, &mut errors);
    if let Some(nested) = &nested {
        check::check(nested, &mut errors);
    }
    errors.finish(())?;
    match nested {
        Some(nested) => Ok(expand::expand(&nested)),
        None => Err(syn::Error::new(input.ident.span(), "invalid nested struct declaration")),
    }
}
