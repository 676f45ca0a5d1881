//! `#[derive(Table)]`: parse and check the declaration, then expand it.

mod expand;
mod model;

use proc_macro2::TokenStream;

/// Derives `dynashard::Table`.
pub fn derive(input: syn::DeriveInput) -> syn::Result<TokenStream> {
    let model = model::TableModel::from_input(&input)?;
    Ok(expand::expand(&model))
}
