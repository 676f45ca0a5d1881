//! What a derive emits beside its errors: an impl of its trait that type-checks, so that one bad
//! attribute is reported once, where it is written, and not again at every place that uses the
//! type as a table or an entity.

use crate::door::Door;
use proc_macro2::TokenStream;
use quote::quote;
use syn::DeriveInput;

/// A `Table` impl with the placeholder definition of `FallbackTable`, for a `#[derive(Table)]`
/// that failed.
pub fn table(input: &DeriveInput) -> TokenStream {
    if !input.generics.params.is_empty() {
        return TokenStream::new();
    }
    let ident = &input.ident;
    Door::lenient(&input.attrs, "table").enclose(quote! {
        #[automatically_derived]
        impl __dynashard::Table for #ident {
            const DEFINITION: __dynashard::TableDefinition =
                <__dynashard::FallbackTable as __dynashard::Table>::DEFINITION;
        }
    })
}

/// An `Entity` impl whose methods are never reached (the crate does not compile), for a
/// `#[derive(Entity)]` that failed.
pub fn entity(input: &DeriveInput) -> TokenStream {
    // A generic struct, or one borrowing data (which serde cannot deserialize for every
    // lifetime), cannot be an entity at all: an impl would only add errors.
    if !input.generics.params.is_empty() || borrows(input) {
        return TokenStream::new();
    }
    let ident = &input.ident;
    let name = ident.to_string();
    Door::lenient(&input.attrs, "entity").enclose(quote! {
        #[automatically_derived]
        impl __dynashard::Entity for #ident {
            type Table = __dynashard::FallbackTable;
            type KeyFields = ();
            const TYPE_NAME: &'static str = #name;
            fn primary_key(&self) -> __dynashard::Result<__dynashard::PrimaryKey> {
                ::core::unreachable!("the derive of this entity failed to compile")
            }
        }
    })
}

/// Whether a field of the struct holds a reference.
fn borrows(input: &DeriveInput) -> bool {
    let syn::Data::Struct(data) = &input.data else { return false };
    data.fields.iter().any(|field| {
        let ty = &field.ty;
        quote!(#ty).to_string().contains('&')
    })
}
