//! Code generated for one entity: the key builder, the `Entity` impl and the field handles.

use super::model::{EntityModel, FieldModel};
use crate::template::{Piece, Template};
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

/// Expands a checked entity.
pub fn expand(model: &EntityModel) -> TokenStream {
    let ident = &model.ident;
    let table = &model.table;
    let type_name = &model.type_name;
    let assertions = assertions(model);
    let compose = compose_fn(model);
    let key_fields = model.key_fields();
    let params = key_fields.iter().map(|field| param(field));
    let args: Vec<_> = key_fields.iter().map(|field| &field.ident).collect();
    let self_args = key_fields.iter().map(|field| {
        let name = &field.ident;
        quote!(::dynashard::__private::KeyPart::as_arg(&self.#name))
    });
    let key_doc = format!(
        "The primary key of a [`{ident}`] from its key fields (pk `{}`{}).",
        model.pk.source,
        model.sk.as_ref().map(|sk| format!(", sk `{}`", sk.source)).unwrap_or_default()
    );
    let version = version_items(model);
    let (fields_struct, fields_fn) = field_handles(model);

    quote! {
        #fields_struct

        #[allow(non_local_definitions)]
        const _: () = {
            #assertions

            impl #ident {
                #compose

                #[doc = #key_doc]
                #[allow(dead_code)]
                pub fn key(#(#params),*) -> ::dynashard::Result<::dynashard::Key<Self>> {
                    Self::__dynashard_compose(#(#args),*).map(::dynashard::Key::from_primary)
                }

                #fields_fn
            }

            impl ::dynashard::Entity for #ident {
                type Table = #table;
                const TYPE_NAME: &'static str = #type_name;
                #version

                fn primary_key(&self) -> ::dynashard::Result<::dynashard::PrimaryKey> {
                    Self::__dynashard_compose(#(#self_args),*)
                }
            }
        };
    }
}

fn param(field: &FieldModel) -> TokenStream {
    let name = &field.ident;
    let ty = &field.ty;
    quote!(#name: <#ty as ::dynashard::__private::KeyPart>::Arg<'_>)
}

/// Compile-time checks whose errors rustc reports at the user's spans.
fn assertions(model: &EntityModel) -> TokenStream {
    let table = &model.table;
    let table_check = quote_spanned! {table.span()=>
        let _ = <#table as ::dynashard::Table>::DEFINITION;
    };
    let key_checks = model.key_fields().into_iter().map(|field| {
        let ty = &field.ty;
        quote_spanned! {ty.span()=> __dynashard_assert_key_part::<#ty>(); }
    });
    let ident = &model.ident;
    let sort_key_check = match &model.sk {
        Some(sk) => {
            let message = format!("entity `{ident}` declares `sk`, but its table has no sort key");
            quote_spanned! {sk.span=>
                const _: () = if <#table as ::dynashard::Table>::DEFINITION.sort_key.is_none() {
                    ::core::panic!(#message)
                };
            }
        }
        None => {
            let message = format!("entity `{ident}` has no `sk`, but its table has a sort key");
            quote_spanned! {table.span()=>
                const _: () = if <#table as ::dynashard::Table>::DEFINITION.sort_key.is_some() {
                    ::core::panic!(#message)
                };
            }
        }
    };
    quote! {
        #[allow(dead_code)]
        fn __dynashard_assert_key_part<T: ::dynashard::__private::KeyPart + ?Sized>() {}
        #[allow(dead_code)]
        fn __dynashard_assertions() {
            #table_check
            #(#key_checks)*
        }
        #sort_key_check
    }
}

/// The private function that composes the primary key from borrowed key-field values.
fn compose_fn(model: &EntityModel) -> TokenStream {
    let table = &model.table;
    let params = model.key_fields().into_iter().map(param);
    let pk_attribute = quote!(<#table as ::dynashard::Table>::DEFINITION.partition_key);
    let pk = compose_template(model, &model.pk, pk_attribute, quote!(Partition));
    let sk = match &model.sk {
        Some(sk) => {
            let sk_attribute = quote! {
                match <#table as ::dynashard::Table>::DEFINITION.sort_key {
                    ::dynashard::__private::Some(name) => name,
                    ::dynashard::__private::None => "",
                }
            };
            let body = compose_template(model, sk, sk_attribute, quote!(Sort));
            quote!(::dynashard::__private::Some(#body))
        }
        None => quote!(::dynashard::__private::None),
    };
    quote! {
        #[doc(hidden)]
        #[allow(clippy::needless_lifetimes)]
        fn __dynashard_compose(#(#params),*) -> ::dynashard::Result<::dynashard::PrimaryKey> {
            ::dynashard::__private::Ok(::dynashard::PrimaryKey { pk: #pk, sk: #sk })
        }
    }
}

fn compose_template(model: &EntityModel, template: &Template, attribute: TokenStream, role: TokenStream) -> TokenStream {
    let source = &template.source;
    let segments = template.pieces.iter().map(|piece| match piece {
        Piece::Literal(text) => quote!(::dynashard::__private::Segment::Literal(#text)),
        Piece::Field(name) => quote!(::dynashard::__private::Segment::Field(#name)),
    });
    let writes = template.pieces.iter().map(|piece| match piece {
        Piece::Literal(text) => quote!(__writer.literal(#text);),
        Piece::Field(name) => match model.field(name) {
            Some(field) => {
                let ident = &field.ident;
                let ty = &field.ty;
                quote!(__writer.part::<#ty>(#name, #ident)?;)
            }
            None => quote!(),
        },
    });
    quote! {{
        static __TEMPLATE: ::dynashard::__private::KeyTemplate = ::dynashard::__private::KeyTemplate {
            attribute: #attribute,
            source: #source,
            segments: &[#(#segments),*],
            role: ::dynashard::__private::KeyRole::#role,
        };
        let mut __writer = __TEMPLATE.writer();
        #(#writes)*
        __writer.finish()?
    }}
}

fn version_items(model: &EntityModel) -> TokenStream {
    match model.version_field() {
        Some(field) => {
            let ident = &field.ident;
            let attribute = &field.attribute;
            quote! {
                const VERSION_ATTRIBUTE: ::core::option::Option<&'static str> =
                    ::dynashard::__private::Some(#attribute);
                fn version(&self) -> u64 {
                    self.#ident
                }
                fn set_version(&mut self, version: u64) {
                    self.#ident = version;
                }
            }
        }
        None => quote!(),
    }
}

/// The `<Entity>Fields` struct of typed handles on non-key fields, and `fields()`.
fn field_handles(model: &EntityModel) -> (TokenStream, TokenStream) {
    let ident = &model.ident;
    let vis = &model.vis;
    let struct_ident = format_ident!("{}Fields", ident);
    let updatable: Vec<&FieldModel> = model
        .fields
        .iter()
        .filter(|field| !field.is_key && !field.is_version && !field.no_attribute)
        .collect();
    let declarations = updatable.iter().map(|field| {
        let name = &field.ident;
        let ty = &field.ty;
        let doc = format!("The `{}` attribute.", field.attribute);
        quote!(#[doc = #doc] pub #name: ::dynashard::Field<#ident, #ty>)
    });
    let values = updatable.iter().map(|field| {
        let name = &field.ident;
        let attribute = &field.attribute;
        quote!(#name: ::dynashard::Field::new(#attribute))
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
