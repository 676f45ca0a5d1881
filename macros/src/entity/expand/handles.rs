//! The `<Entity>Fields` struct of typed handles, for updates and conditions.

use crate::entity::ast::{Entity, Field};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// The `<Entity>Fields` struct of typed handles on non-key fields, and `fields()`.
pub fn field_handles(model: &Entity) -> (TokenStream, TokenStream) {
    let ident = &model.ident;
    let vis = &model.vis;
    let struct_ident = format_ident!("{}Fields", ident);
    let door = model.door.path();
    let updatable: Vec<&Field> = model
        .fields
        .iter()
        // A field stored through `#[serde(with = "...")]` gets no handle: a value set or compared
        // through it would be written as its type stores it, not as the module does.
        // Nor do `#[created_at]` and `#[updated_at]` fields: dynashard writes them.
        .filter(|field| {
            !field.is_key
                && !field.is_version()
                && !field.no_attribute
                && !field.serde_with
                && field.timestamp().is_none()
        })
        .collect();
    let declarations = updatable.iter().map(|field| {
        let name = &field.ident;
        let ty = &field.ty;
        let doc = format!("The `{}` attribute.", field.attribute);
        quote!(#[doc = #doc] pub #name: #door::Field<#ident, #ty>)
    });
    let values = updatable.iter().map(|field| {
        let name = &field.ident;
        let attribute = &field.attribute;
        quote!(#name: __dynashard::Field::new(#attribute))
    });
    let doc = format!("Typed handles on the non-key fields of [`{ident}`], for updates and conditions.");
    let fields_doc = format!("Typed handles on the non-key fields of `{ident}`.");
    let structure = quote! {
        #[doc = #doc]
        #[derive(Clone, Copy, Debug)]
        #[allow(dead_code)]
        #vis struct #struct_ident {
            #(#declarations,)*
        }
    };
    let function = quote! {
        #[doc = #fields_doc]
        #[allow(dead_code)]
        pub const fn fields() -> #struct_ident {
            #struct_ident { #(#values,)* }
        }
    };
    (structure, function)
}
