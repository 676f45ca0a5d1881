//! `#[derive(Table)]`: parse and check the declaration, then expand it.

mod expand;
mod model;

use proc_macro2::TokenStream;

/// Derives `dynashard::Table`; on errors, reports them and emits a fallback impl.
pub fn derive(input: syn::DeriveInput) -> TokenStream {
    match model::TableModel::from_input(&input) {
        Ok(model) => expand::expand(&model),
        Err(errors) => {
            let mut tokens = errors.into_compile_error();
            tokens.extend(crate::fallback::table(&input));
            tokens
        }
    }
}
