//! Derive macros for dynashard. Use them through the `dynashard` crate.
use proc_macro::TokenStream;

/// Binds a struct to a table.
#[proc_macro_derive(Entity, attributes(entity, version))]
pub fn derive_entity(_input: TokenStream) -> TokenStream {
    TokenStream::new()
}

/// Declares a table.
#[proc_macro_derive(Table, attributes(table, gsi))]
pub fn derive_table(_input: TokenStream) -> TokenStream {
    TokenStream::new()
}
