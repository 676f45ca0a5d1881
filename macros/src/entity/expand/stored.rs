//! What an entity's item holds, as constants: its attributes (and the item type a query through
//! a projected index yields), its set attributes, the attributes a new item needs, where its key
//! fields are in the key, and its `#[ttl]` field.

use super::names::{definition, pk_static, sk_static};
use crate::const_check::{path_text, ConstCheck};
use crate::entity::ast::Entity;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use syn::spanned::Spanned;

/// The constant holding the attributes the entity's item holds besides the table's keys and
/// entity type (`None` when a flattened field makes them unknown).
pub fn attributes(model: &Entity) -> TokenStream {
    let constant = attributes_const();
    let value = if model.fields.iter().any(|field| field.flatten) {
        quote!(__dynashard::None)
    } else {
        let names = model.fields.iter().filter(|field| !field.no_attribute).map(|field| &field.attribute);
        quote!(__dynashard::Some(&[#(#names),*]))
    };
    quote! {
        #[allow(dead_code)]
        const #constant: __dynashard::Option<&[&str]> = #value;
    }
}

/// The constant holding the entity's attributes.
pub fn attributes_const() -> Ident {
    format_ident!("__DYNASHARD_ATTRIBUTES")
}

/// The type a query through the index in constant `index` yields: the entity when the index holds
/// all of its attributes, else `Projected<Self, IndexSlot<N>>`, which only hydration or a view
/// reads. Decided at compile time from the table's declaration.
pub fn index_item(index: &TokenStream) -> TokenStream {
    let (definition, attributes) = (definition(), attributes_const());
    quote! {
        __dynashard::IndexItem<
            Self,
            { __dynashard::covers(#definition, #index, #attributes) },
            { __dynashard::index_slot(#definition.indexes, #index.name) },
        >
    }
}

/// The `TTL` constant of a `#[ttl]` entity, and the check that its table declares that
/// attribute as its time to live.
pub fn ttl_items(model: &Entity) -> (TokenStream, TokenStream) {
    let Some((field, attr)) = model.fields.iter().find_map(|field| Some((field, field.ttl.as_ref()?))) else {
        return (TokenStream::new(), TokenStream::new());
    };
    let attribute = &field.attribute;
    let definition = definition();
    let (ident, table) = (&model.ident, path_text(&model.table));
    let check = ConstCheck {
        span: attr.span(),
        name: "TableDeclaresThisTtl",
        holds: quote! {
            match #definition.ttl {
                __dynashard::Some(ttl) => __dynashard::const_str_eq(ttl, #attribute),
                __dynashard::None => false,
            }
        },
        message: format!(
            "the `#[ttl]` field of `{ident}` is stored in attribute `{attribute}`, which table `{table}` does not \
             declare as its time to live"
        ),
        label: format!("stored in `{attribute}`"),
        note: Some(format!(
            "a table has one time-to-live attribute: declare it with `#[table(..., ttl = \"{attribute}\")]` on `{table}`"
        )),
    };
    let constant = quote!(const TTL: __dynashard::Option<&'static str> = __dynashard::Some(#attribute););
    (constant, super::check(&check))
}

/// Where each key field is in the base table's key templates, in `key_fields` order.
pub fn key_field_specs(model: &Entity) -> Vec<TokenStream> {
    let sharded = model.table_shard().is_some();
    model
        .key_fields()
        .iter()
        .filter_map(|field| {
            let name = field.ident.to_string();
            let attribute = &field.attribute;
            let (template, position, sharded) =
                match model.pk.fields().position(|candidate| candidate == name) {
                    Some(position) => (pk_static(), position, sharded),
                    None => (
                        sk_static(),
                        model.sk.as_ref()?.fields().position(|candidate| candidate == name)?,
                        false,
                    ),
                };
            // A field stored through a serde module is stored through a record carrying its
            // serde attributes; any other as its type serializes.
            let store = if field.serde_with {
                let (record, ty) = (format_ident!("__DynashardKeyField{}", position), &field.ty);
                let record_struct = super::field_record::record(&record, field, false);
                quote! {
                    __dynashard::Some({
                        #record_struct
                        |value| __dynashard::store_key_field(value, |value: #ty| #record { value })
                    })
                }
            } else {
                quote!(__dynashard::None)
            };
            Some(quote! {
                __dynashard::KeyField {
                    attribute: #attribute,
                    template: &#template,
                    position: #position,
                    sharded_partition: #sharded,
                    store: #store,
                }
            })
        })
        .collect()
}

/// The `SetAttribute` of each set field (stored as a DynamoDB set).
pub fn set_attributes(model: &Entity) -> Vec<TokenStream> {
    model
        .fields
        .iter()
        .filter(|field| !field.no_attribute)
        .filter_map(|field| {
            let optional = crate::types::set_type(&field.ty)?;
            let name = &field.attribute;
            Some(quote!(__dynashard::SetAttribute { name: #name, optional: #optional }))
        })
        .collect()
}

/// The attributes a new item cannot do without (what an upsert must set): not key fields,
/// versions, timestamps, `Option`s, sets or `#[serde(default)]` fields. A `#[serde(default)]`
/// field an index is keyed on is required too: an item created without it would be missing from
/// the index a put of the same entity puts it in.
pub fn required_attributes(model: &Entity) -> Vec<&str> {
    let indexed: Vec<String> = model
        .indexes
        .iter()
        .flat_map(|mapping| model.index_fields(mapping))
        .map(|field| field.field.ident.to_string())
        .chain(
            model
                .native_indexes
                .iter()
                .flat_map(|mapping| mapping.pk.iter().chain(&mapping.sk))
                .map(ToString::to_string),
        )
        .collect();
    model
        .fields
        .iter()
        .filter(|field| {
            !field.is_key
                && !field.no_attribute
                && !field.is_version()
                && field.timestamp().is_none()
                && (!field.serde_default || indexed.contains(&field.ident.to_string()))
                && crate::types::option_inner(&field.ty).is_none()
                && crate::types::set_type(&field.ty).is_none()
        })
        .map(|field| field.attribute.as_str())
        .collect()
}
