//! A one-field record carrying a field's own serde attributes: what generated code serializes a
//! value of the field through (and reads one back with), so it is stored exactly as the entity
//! stores the field, `#[serde(with = "...")]` included.

use crate::entity::ast::Field;
use proc_macro2::{Ident, TokenStream};
use quote::quote;

/// The record struct `name` holding one value of `field`, serialized under the field's attribute
/// (and deserialized too, with `deserialize`).
pub fn record(name: &Ident, field: &Field, deserialize: bool) -> TokenStream {
    let (ty, attribute, serde_attrs) = (&field.ty, &field.attribute, &field.serde_attrs);
    let rename = (!field.renamed).then(|| quote!(#[serde(rename = #attribute)]));
    let derives = if deserialize {
        quote!(__dynashard::serde::Serialize, __dynashard::serde::Deserialize)
    } else {
        quote!(__dynashard::serde::Serialize)
    };
    quote! {
        #[derive(#derives)]
        #[serde(crate = "__dynashard::serde")]
        struct #name {
            #(#serde_attrs)*
            #rename
            value: #ty,
        }
    }
}
