//! Code generated for one entity: key templates, the key builder, the `Entity` and `FromItem`
//! impls, the field handles, index keys and query entry points.

use super::index_expand;
use super::keys::{as_arg, compose, template_static, KeyArg};
use super::model::{EntityModel, FieldModel};
use super::query_expand;
use super::shard_expand;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

/// Expands a checked entity.
///
/// Every use of a key field's type is spanned at that type, so a type that is not a `KeyPart`
/// gets one error there; the table is named only in `type Table`, so a type that is not a table
/// gets one error at the `table = ...` path.
pub fn expand(model: &EntityModel) -> TokenStream {
    let ident = &model.ident;
    let table = &model.table;
    let type_name = &model.type_name;
    let templates = base_templates(model);
    let sort_key_check = sort_key_check(model);
    let key_fields = model.key_fields();
    let params = key_fields.iter().map(|field| param(field));
    let param_args: Vec<KeyArg> = key_fields
        .iter()
        .map(|field| {
            let name = param_ident(field);
            KeyArg { name: field.ident.to_string(), key_type: &field.ty, arg: quote!(#name) }
        })
        .collect();
    let self_args: Vec<KeyArg> = key_fields
        .iter()
        .map(|field| {
            let name = &field.ident;
            KeyArg {
                name: name.to_string(),
                key_type: &field.ty,
                arg: as_arg(&field.ty, quote!(&self.#name)),
            }
        })
        .collect();
    let compose_from_params = primary_key(model, &param_args);
    let compose_from_self = primary_key(model, &self_args);
    let key_doc = format!(
        "The primary key of a [`{ident}`] from its key fields (pk `{}`{}).",
        model.pk.source,
        model.sk.as_ref().map(|sk| format!(", sk `{}`", sk.source)).unwrap_or_default()
    );
    let version = version_items(model);
    let (fields_struct, fields_fn) = field_handles(model);
    let indexes = index_expand::expand(model);
    let queries = query_expand::expand(model);
    let index_statics = &indexes.statics;
    let write_index_keys = &indexes.write_index_keys;
    let index_key_updates = &indexes.index_key_updates;
    let shard_lookups = &indexes.shard_lookups;
    let dynamic_shards = model
        .shards
        .iter()
        .any(|shard| matches!(shard.strategy, super::shard_model::Strategy::Dynamic { .. }))
        .then(|| {
            quote!(
                const DYNAMIC_SHARDS: bool = true;
            )
        });
    let base_table_shards = model.table_shard().map(|shard| {
        let shards = shard.strategy.shards();
        quote!(const BASE_TABLE_SHARDS: u32 = #shards;)
    });

    quote! {
        #fields_struct

        #[allow(non_local_definitions)]
        const _: () = {
            /// The table of entity `E`; the bound on `Entity::Table` makes this always valid.
            #[allow(dead_code)]
            const fn __dynashard_table<E: ::dynashard::Entity>() -> ::dynashard::TableDefinition {
                <E::Table as ::dynashard::Table>::DEFINITION
            }
            #[allow(dead_code)]
            static __DYNASHARD_TABLE: ::dynashard::TableDefinition = __dynashard_table::<#ident>();

            #sort_key_check
            #templates
            #index_statics

            impl #ident {
                #[doc = #key_doc]
                #[allow(dead_code)]
                pub fn key(#(#params),*) -> ::dynashard::Result<::dynashard::Key<Self>> {
                    ::dynashard::__private::Ok(::dynashard::Key::from_primary(#compose_from_params))
                }

                #fields_fn
                #queries
            }

            impl ::dynashard::Entity for #ident {
                type Table = #table;
                const TYPE_NAME: &'static str = #type_name;
                #base_table_shards
                #dynamic_shards
                #version

                fn primary_key(&self) -> ::dynashard::Result<::dynashard::PrimaryKey> {
                    ::dynashard::__private::Ok(#compose_from_self)
                }

                #write_index_keys
                #index_key_updates
                #shard_lookups
            }

            impl ::dynashard::__private::FromItem for #ident {
                fn from_item(
                    item: ::dynashard::Item,
                    skip_other_types: bool,
                ) -> ::dynashard::Result<::dynashard::__private::Option<Self>> {
                    ::dynashard::item::from_item_checked::<Self>(item, skip_other_types)
                }
            }
        };
    }
}

/// The statics holding the base table's key templates.
fn base_templates(model: &EntityModel) -> TokenStream {
    let ident = &model.ident;
    let definition = quote!(__dynashard_table::<#ident>());
    let pk = template_static(&pk_static(), &model.pk, quote!(#definition.partition_key), "Partition");
    let sk = model.sk.as_ref().map(|sk| {
        let attribute = quote! {
            match #definition.sort_key {
                ::dynashard::__private::Some(name) => name,
                ::dynashard::__private::None => "",
            }
        };
        template_static(&sk_static(), sk, attribute, "Sort")
    });
    quote!(#pk #sk)
}

/// The static holding the partition key template.
pub fn pk_static() -> Ident {
    format_ident!("__DYNASHARD_PK")
}

/// The static holding the sort key template.
pub fn sk_static() -> Ident {
    format_ident!("__DYNASHARD_SK")
}

/// The `PrimaryKey` expression composed from `args`.
fn primary_key(model: &EntityModel, args: &[KeyArg]) -> TokenStream {
    let mut pk = compose(&pk_static(), &model.pk, args);
    if let Some(shard) = model.table_shard() {
        let by: Vec<TokenStream> = shard
            .by
            .iter()
            .filter_map(|by| args.iter().find(|arg| *by == arg.name))
            .map(|arg| arg.arg.clone())
            .collect();
        let text = shard_expand::routing_text(&by);
        pk = shard_expand::partition(0, shard, pk, Some(text), None, None);
    }
    let sk = match &model.sk {
        Some(sk) => {
            let sk = compose(&sk_static(), sk, args);
            quote!(::dynashard::__private::Some(#sk))
        }
        None => quote!(::dynashard::__private::None),
    };
    quote!(::dynashard::PrimaryKey { pk: #pk, sk: #sk })
}

/// The key builder's parameter for `field`, spanned at the field's type.
pub fn param_ident(field: &FieldModel) -> Ident {
    format_ident!("{}", field.ident, span = field.ty.span())
}

/// `name: <T as KeyPart>::Arg<'_>`.
pub fn param(field: &FieldModel) -> TokenStream {
    let name = param_ident(field);
    let ty = &field.ty;
    quote_spanned!(ty.span()=> #name: <#ty as ::dynashard::__private::KeyPart>::Arg<'_>)
}

/// Checks at compile time that the entity declares `sk` exactly when its table has a sort key;
/// rustc reports the panic at the `sk` template, or at the table path.
fn sort_key_check(model: &EntityModel) -> TokenStream {
    let ident = &model.ident;
    let definition = quote!(__dynashard_table::<#ident>());
    match &model.sk {
        Some(sk) => {
            let message = format!("entity `{ident}` declares `sk`, but its table has no sort key");
            quote_spanned! {sk.span=>
                const _: () = if #definition.sort_key.is_none() {
                    ::core::panic!(#message)
                };
            }
        }
        None => {
            let message = format!("entity `{ident}` has no `sk`, but its table has a sort key");
            quote_spanned! {model.table.span()=>
                const _: () = if #definition.sort_key.is_some() {
                    ::core::panic!(#message)
                };
            }
        }
    }
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
