//! `#[derive(View)]`: a struct holding some of an entity's fields, read with a projection. One
//! way, as the other derives: the struct and its attribute (`ast`), checked (`check`), then
//! expanded (`expand`), whose constant checks compare it with the entity and the indexes.

mod ast;
mod check;
mod expand;

use crate::errors::Errors;
use proc_macro2::TokenStream;
use syn::DeriveInput;

/// Derives `dynashard::View` and `FromItem` for a struct of some of an entity's fields.
pub fn derive(input: DeriveInput) -> syn::Result<TokenStream> {
    let mut errors = Errors::default();
    let view = ast::View::parse(&input, &mut errors);
    if let Some(view) = &view {
        check::check(view, &mut errors);
    }
    errors.finish(())?;
    match view {
        Some(view) => Ok(view.door.enclose(expand::expand(&view))),
        None => Err(syn::Error::new(input.ident.span(), "invalid view declaration")),
    }
}
