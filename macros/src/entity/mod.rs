//! `#[derive(Entity)]`: parse and check the declaration, then expand it.

mod boundaries_file;
mod expand;
mod index_expand;
mod index_lookup;
mod index_model;
mod keys;
mod model;
mod native_expand;
mod query_expand;
mod shard_checks;
mod shard_expand;
mod shard_lookup;
mod shard_model;

use proc_macro2::TokenStream;

/// Derives `dynashard::Entity`.
pub fn derive(input: syn::DeriveInput) -> syn::Result<TokenStream> {
    let model = model::EntityModel::from_input(&input)?;
    Ok(expand::expand(&model))
}
