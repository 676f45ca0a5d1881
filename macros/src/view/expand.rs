//! The `View`, `FromItem` and `CoveredBy` impls of a checked view, with the compile-time checks
//! that each field is a field of the entity, of the same type, stored under the same attribute.

use super::ast::View;
use crate::const_check::{path_text, ConstCheck};
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

/// The impls and checks, inside the door's `const _` block.
pub fn expand(view: &View) -> TokenStream {
    let ident = &view.ident;
    let Some(entity) = &view.entity else { return TokenStream::new() };
    let entity_text = path_text(entity);
    let read: Vec<_> = view.fields.iter().filter(|field| !field.no_attribute).collect();
    let attributes = read.iter().map(|field| &field.attribute);
    let attributes = quote!(&[#(#attributes),*]);
    // A field of another type, or one the entity does not have, is an error at the view's field.
    let same_fields = read.iter().map(|field| {
        let (name, ty) = (&field.ident, &field.ty);
        quote_spanned!(ty.span()=> let _: &#ty = &entity.#name;)
    });
    let same_attributes = read.iter().map(|field| {
        let (name, attribute) = (&field.ident, &field.attribute);
        ConstCheck {
            span: field.ident.span(),
            name: "ViewAttributeIsTheEntitys",
            holds: quote! {
                match <#entity as __dynashard::Entity>::ATTRIBUTES {
                    __dynashard::Some(attributes) => __dynashard::contains(attributes, #attribute),
                    __dynashard::None => true,
                }
            },
            message: format!(
                "field `{name}` of view `{ident}` is read from attribute `{attribute}`, which entity \
                 `{entity_text}` does not write"
            ),
            label: format!("read from `{attribute}`"),
            note: Some(format!(
                "a view's fields are stored as the entity's are: give `{ident}` the same serde renames as \
                 `{entity_text}`"
            )),
        }
        .expand()
    });
    let definition = quote!(<<#entity as __dynashard::Entity>::Table as __dynashard::Table>::DEFINITION_REF);
    let slots = (0..MAX_INDEXES).map(|slot| {
        quote! {
            #[automatically_derived]
            impl __dynashard::CoveredBy<__dynashard::IndexSlot<#slot>> for #ident {
                type Verdict = __dynashard::Verdict<
                    { __dynashard::slot_covers(#definition, #slot, __dynashard::Some(#attributes)) },
                >;
            }
        }
    });
    let check_fields = format_ident!("__dynashard_view_fields_of_{}", ident);
    quote! {
        #[allow(dead_code, non_snake_case)]
        fn #check_fields(entity: &#entity) {
            #(#same_fields)*
        }
        #(#same_attributes)*

        #[automatically_derived]
        impl __dynashard::View for #ident {
            type Entity = #entity;
            const ATTRIBUTES: &'static [&'static str] = #attributes;
        }

        #[automatically_derived]
        impl __dynashard::FromItem for #ident {
            const TYPE_NAMES: &'static [&'static str] = &[<#entity as __dynashard::Entity>::TYPE_NAME];
            fn from_item(
                item: __dynashard::Item,
                skip_other_types: bool,
            ) -> __dynashard::Result<__dynashard::Option<Self>> {
                __dynashard::view_from_item::<#entity, Self>(item, skip_other_types)
            }
        }

        #(#slots)*
    }
}

/// The index slots a view is checked against: DynamoDB's most indexes per table (20 global and 5
/// local), as `dynashard::projection::MAX_INDEXES`.
const MAX_INDEXES: usize = 25;
