//! The `Nested` impl of a checked nested struct and its `<Struct>Fields<E>` of handles.

use super::ast::Nested;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// The handles struct (beside the input, so it can be named) and the impl (in the door's block).
pub fn expand(nested: &Nested) -> TokenStream {
    let (ident, vis) = (&nested.ident, &nested.vis);
    let handles = format_ident!("{}Fields", ident);
    let door = nested.door.path();
    let stored: Vec<_> = nested.fields.iter().filter(|field| !field.no_attribute).collect();
    let declarations = stored.iter().map(|field| {
        let (name, ty) = (&field.ident, &field.ty);
        let doc = format!("The `{}` entry.", field.attribute);
        quote!(#[doc = #doc] pub #name: #door::NestedField<E, #ty>)
    });
    let values = stored.iter().map(|field| {
        let (name, attribute) = (&field.ident, &field.attribute);
        quote!(#name: parent.member(#attribute))
    });
    let doc = format!("Typed handles on the fields of a [`{ident}`] stored in an attribute of entity `E`.");
    let implementation = nested.door.enclose(quote! {
        #[automatically_derived]
        impl __dynashard::Nested for #ident {
            type Fields<E> = #handles<E>;

            fn fields<E>(parent: &__dynashard::NestedField<E, Self>) -> #handles<E> {
                #handles { #(#values,)* }
            }
        }
    });
    quote! {
        #[doc = #doc]
        #[allow(dead_code)]
        #vis struct #handles<E> {
            #(#declarations,)*
        }
        #implementation
    }
}
