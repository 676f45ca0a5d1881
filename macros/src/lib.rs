//! Derive macros for dynashard. Depend on the `dynashard` crate, which re-exports them.
//!
//! Each derive runs one way: its attributes are parsed into typed values (`attr`), put together
//! into the declaration (`ast`), checked without being changed (`check`, every error collected
//! and reported at once, at its span), then expanded without checking (`expand`). Generated code
//! reaches the runtime only through its versioned `__private_v1` module (`door`); when a derive
//! fails, `fallback` emits a placeholder impl so that uses of the type report nothing more.

mod attr;
mod collection;
mod const_check;
mod door;
mod entity;
mod errors;
mod fallback;
mod names;
mod nested;
mod serde_attrs;
mod table;
mod template;
#[cfg(test)]
mod tests;
mod types;
mod view;

use proc_macro::TokenStream;
use syn::parse_macro_input;

/// The derive of `dynashard::Entity`.
#[proc_macro_derive(
    Entity,
    attributes(entity, version, ttl, created_at, updated_at, gsi, sparse_gsi, lsi, sparse_lsi, shard)
)]
pub fn derive_entity(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as syn::DeriveInput);
    entity::derive(input).into()
}

/// The derive of `dynashard::Table`.
#[proc_macro_derive(Table, attributes(table, gsi, lsi))]
pub fn derive_table(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as syn::DeriveInput);
    table::derive(input).into()
}

/// The derive of `dynashard::Collection`.
#[proc_macro_derive(Collection, attributes(collection))]
pub fn derive_collection(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as syn::DeriveInput);
    errors::into_tokens(collection::derive(input)).into()
}

/// The derive of `dynashard::View`.
#[proc_macro_derive(View, attributes(view))]
pub fn derive_view(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as syn::DeriveInput);
    errors::into_tokens(view::derive(input)).into()
}

/// The derive of `dynashard::Nested`.
#[proc_macro_derive(Nested, attributes(nested))]
pub fn derive_nested(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as syn::DeriveInput);
    errors::into_tokens(nested::derive(input)).into()
}
