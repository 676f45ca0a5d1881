//! Code generated for index mappings on multi-attribute keys (`pk = [field, ...]`): the index
//! lookup with compile-time checks that each field's attribute name and type match the table's
//! declaration, the put-time check for empty strings, and the `query_<index>` entry point.

use super::index_lookup::index_declared_check;
use crate::const_check::{path_text, ConstCheck};
use crate::entity::ast::{Entity, Field};
use crate::entity::attr::NativeMapping;
use crate::types::option_inner;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::Type;

fn index_const(position: usize) -> Ident {
    format_ident!("__DYNASHARD_NATIVE_{}", position)
}

/// The field behind `ident` and its key type (the `T` of an `Option<T>`).
fn field_and_type<'a>(model: &'a Entity, ident: &Ident) -> Option<(&'a Field, &'a Type)> {
    let field = model.fields.iter().find(|field| &field.ident == ident)?;
    Some((field, option_inner(&field.ty).unwrap_or(&field.ty)))
}

/// The index constants and their compile-time checks.
pub fn statics(model: &Entity) -> TokenStream {
    let items = model
        .native_indexes
        .iter()
        .enumerate()
        .map(|(position, mapping)| index_static(model, position, mapping));
    quote!(#(#items)*)
}

/// One mapping's index constant, and the checks that the table declares the index with the
/// mapping's shape, attribute names and types. A missing index gets a stand-in of the mapping's
/// shape, so only the missing index is reported.
fn index_static(model: &Entity, position: usize, mapping: &NativeMapping) -> TokenStream {
    let index = index_const(position);
    let name = &mapping.name;
    let definition = super::names::definition();
    let find = quote!(__dynashard::find_index(#definition.indexes, #name));
    let stand_in = |count: usize| {
        let attributes = (0..count)
            .map(|_| quote!(__dynashard::KeyAttribute { name: "", kind: __dynashard::ScalarKind::String }));
        quote!(&[#(#attributes),*])
    };
    let (stand_in_pk, stand_in_sk) = (stand_in(mapping.pk.len()), stand_in(mapping.sk.len()));
    let table = path_text(&model.table);
    let kind = if mapping.sparse { "sparse_gsi" } else { "gsi" };
    let (npk, nsk) = (mapping.pk.len(), mapping.sk.len());
    let list = |fields: &[Ident]| fields.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ");
    let shape = quote!((#index.partition_key.len() == #npk && #index.sort_key.len() == #nsk));
    let mut checks = vec![
        index_declared_check(model, name, mapping.name_span, kind, find.clone()),
        ConstCheck {
            span: mapping.name_span,
            name: "IndexHasTheMappedShape",
            holds: shape.clone(),
            message: format!(
                "index `{name}` of table `{table}` has another number of key attributes than this mapping: \
                 {npk} partition and {nsk} sort"
            ),
            label: format!("this mapping lists {npk} partition and {nsk} sort fields"),
            note: Some(format!(
                "a multi-attribute mapping lists one field per key attribute of the index, in the order \
                 the table declares them; make `pk = [{}]` and `sk = [{}]` match the index's `pk` and `sk` \
                 lists",
                list(&mapping.pk),
                list(&mapping.sk)
            )),
        },
    ];
    // Attribute names and types are compared only once the index is found with the mapped shape.
    let compared = quote!((#find.is_some() && #shape));
    checks.extend(attribute_checks(model, mapping, &index, &compared));
    let checks = checks.iter().map(super::check);
    quote! {
        #[allow(dead_code)]
        const #index: &__dynashard::IndexDefinition = match #find {
            __dynashard::Some(index) => index,
            __dynashard::None => &__dynashard::IndexDefinition {
                local: false,
                name: #name,
                partition_key: #stand_in_pk,
                sort_key: #stand_in_sk,
                projection: __dynashard::IndexProjection::All,
                warm_throughput: __dynashard::None,
            },
        };
        #(#checks)*
    }
}

/// Put-time checks: DynamoDB refuses empty strings in index key attributes.
pub fn write_checks(model: &Entity) -> TokenStream {
    let mut seen: Vec<&Ident> = Vec::new();
    let checks =
        model.native_indexes.iter().flat_map(|mapping| mapping.pk.iter().chain(&mapping.sk)).filter_map(
            |ident| {
                if seen.contains(&ident) {
                    return None;
                }
                seen.push(ident);
                let (field, key_type) = field_and_type(model, ident)?;
                let attribute = &field.attribute;
                let field_name = ident.to_string();
                let check = |value: TokenStream| {
                    quote_spanned! {key_type.span()=>
                        if <#key_type as __dynashard::NativeKeyPart>::is_empty(
                            <#key_type as __dynashard::NativeKeyPart>::as_arg(#value),
                        ) {
                            return __dynashard::Err(__dynashard::Error::InvalidKey {
                                attribute: #attribute,
                                template: "",
                                reason: __dynashard::KeyError::EmptyValue { field: #field_name },
                            });
                        }
                    }
                };
                Some(if option_inner(&field.ty).is_some() {
                    let body = check(quote!(__present));
                    quote!(if let __dynashard::Some(__present) = &self.#ident { #body })
                } else {
                    check(quote!(&self.#ident))
                })
            },
        );
    quote!(#(#checks)*)
}

/// The `query_<index>` entry points.
pub fn queries(model: &Entity) -> TokenStream {
    let type_name = &model.type_name;
    let items = model
        .native_indexes
        .iter()
        .enumerate()
        .map(|(position, mapping)| entry_point(model, position, mapping, type_name));
    quote!(#(#items)*)
}

fn entry_point(model: &Entity, position: usize, mapping: &NativeMapping, type_name: &str) -> TokenStream {
    let index = index_const(position);
    let name = mapping.query_method();
    let resolved: Vec<(&Ident, &Type)> = mapping
        .pk
        .iter()
        .filter_map(|ident| field_and_type(model, ident).map(|(_, ty)| (ident, ty)))
        .collect();
    let params = resolved
        .iter()
        .map(|(ident, ty)| quote_spanned!(ty.span()=> #ident: <#ty as __dynashard::NativeKeyPart>::Arg<'_>));
    let values = resolved.iter().enumerate().map(|(slot, (ident, ty))| {
        quote! {
            (#index.partition_key[#slot].name, <#ty as __dynashard::NativeKeyPart>::to_attribute(#ident))
        }
    });
    let mut walk = quote!(__dynashard::Done);
    for ident in mapping.sk.iter().rev() {
        if let Some((_, ty)) = field_and_type(model, ident) {
            walk = quote!(__dynashard::Native<#ty, #walk>);
        }
    }
    let doc = format!(
        "Items of index `{}` with the given partition attributes, in sort order ({}); narrow them \
         attribute by attribute with the conditions of [`dynashard::Query`].",
        mapping.name,
        if mapping.sk.is_empty() {
            "no sort key".to_owned()
        } else {
            mapping.sk.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
        }
    );
    let item = super::index_item(&quote!(#index));
    quote! {
        #[doc = #doc]
        #[allow(dead_code, clippy::type_complexity)]
        pub fn #name(#(#params),*) -> __dynashard::Query<#item, #walk> {
            __dynashard::Query::new_native(
                __dynashard::QueryTarget {
                    table: &__DYNASHARD_TABLE,
                    index: __dynashard::Some(#index),
                    type_name: #type_name,
                    partition_attribute: "",
                    sort_attribute: __dynashard::None,
                    sort_template: __dynashard::None,
                },
                __dynashard::Vec::from([#(#values),*]),
            )
        }
    }
}

/// The checks that each key attribute of mapping's index (`index`) has its field's attribute
/// name and type, compared only when `compared` holds.
fn attribute_checks(
    model: &Entity,
    mapping: &NativeMapping,
    index: &Ident,
    compared: &TokenStream,
) -> Vec<ConstCheck<'static>> {
    let (name, table) = (&mapping.name, path_text(&model.table));
    let mut checks = Vec::new();
    let parts = [("partition_key", "partition key", &mapping.pk), ("sort_key", "sort key", &mapping.sk)];
    for (part, role, fields) in parts {
        let part = format_ident!("{}", part);
        for (slot, field_ident) in fields.iter().enumerate() {
            let Some((field, key_type)) = field_and_type(model, field_ident) else { continue };
            let attribute = &field.attribute;
            let number = slot + 1;
            // A wrong name is the mapping's to explain; a wrong type, the field's.
            checks.push(ConstCheck {
                span: field_ident.span(),
                name: "IndexAttributeIsTheField",
                holds: quote! {
                    !#compared || __dynashard::const_str_eq(#index.#part[#slot].name, #attribute)
                },
                message: format!(
                    "field `{field_ident}` is stored as attribute `{attribute}`, but {role} attribute \
                     {number} of index `{name}` has another name"
                ),
                label: format!("stored as `{attribute}`"),
                note: Some(format!(
                    "declare `{attribute}` as {role} attribute {number} of index `{name}` on `{table}`, or map \
                     the field stored under the attribute the index declares"
                )),
            });
            let native_kind = quote_spanned!(key_type.span()=>
                <#key_type as __dynashard::NativeKeyPart>::KIND
            );
            checks.push(ConstCheck {
                span: key_type.span(),
                name: "IndexAttributeHasTheFieldType",
                holds: quote! {
                    !#compared || __dynashard::same_kind(#index.#part[#slot].kind, #native_kind)
                },
                message: format!(
                    "attribute `{attribute}` of index `{name}` is declared with another type than field \
                     `{field_ident}` has"
                ),
                label: format!("this type does not match the declared type of attribute `{attribute}`"),
                note: Some(format!(
                    "declare string attributes as `\"{attribute}\"` and number attributes as \
                     `\"{attribute}:N\"` in the index's key lists on `{table}`"
                )),
            });
        }
    }
    checks
}
