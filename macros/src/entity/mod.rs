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

/// Derives `dynashard::Entity`; on errors, reports them and emits a fallback impl.
pub fn derive(input: syn::DeriveInput) -> TokenStream {
    match model::EntityModel::from_input(&input) {
        Ok(model) => expand::expand(&model),
        Err(errors) => {
            let mut tokens = errors.into_compile_error();
            tokens.extend(crate::fallback::entity(&input));
            tokens
        }
    }
}
