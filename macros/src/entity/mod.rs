//! `#[derive(Entity)]`: parse and check the declaration, then expand it.

mod expand;
mod model;

use proc_macro2::TokenStream;

/// Derives `dynashard::Entity`.
pub fn derive(input: syn::DeriveInput) -> syn::Result<TokenStream> {
    let model = model::EntityModel::from_input(&input)?;
    Ok(expand::expand(&model))
}
