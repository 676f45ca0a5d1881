//! Code generated for an entity's index mappings: the index lookups (checked at compile time),
//! their key templates, `write_index_keys` for puts and `index_key_updates` for updates.

use super::index_lookup::statics;
use super::keys::{as_arg, compose, KeyArg};
use super::names::{index_statics, pk_static, sk_static};
use super::native;
use super::shard;
use crate::entity::ast::Entity;
use crate::entity::ast::IndexField;
use crate::entity::attr::IndexMapping;
use crate::entity::attr::Shard;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

/// The generated pieces, placed by the entity expansion.
pub struct IndexTokens {
    pub statics: TokenStream,
    pub write_index_keys: TokenStream,
    pub index_key_updates: TokenStream,
}

/// Expands every index mapping of `model`.
pub fn expand(model: &Entity) -> IndexTokens {
    let native_statics = native::statics(model);
    let native_checks = native::write_checks(model);
    if model.indexes.is_empty() && model.native_indexes.is_empty() {
        return IndexTokens { statics: quote!(), write_index_keys: quote!(), index_key_updates: quote!() };
    }
    let statics =
        model.indexes.iter().enumerate().map(|(position, mapping)| statics(model, position, mapping));
    let writes =
        model.indexes.iter().enumerate().map(|(position, mapping)| write_block(model, position, mapping));
    let updates =
        model.indexes.iter().enumerate().map(|(position, mapping)| update_block(model, position, mapping));
    IndexTokens {
        statics: quote!(#(#statics)* #native_statics),
        write_index_keys: quote! {
            fn write_index_keys(
                &self,
                #[allow(unused_variables)] __keys: &mut __dynashard::IndexKeys<'_>,
            ) -> __dynashard::Result<()> {
                #native_checks
                #(#writes)*
                __dynashard::Ok(())
            }
        },
        index_key_updates: quote! {
            fn index_key_updates(
                __key: &__dynashard::Key<Self>,
                __changes: &__dynashard::FieldChanges,
            ) -> __dynashard::Result<__dynashard::Vec<__dynashard::IndexKeyUpdate>> {
                #[allow(unused_mut)]
                let mut __keys = __dynashard::IndexKeys::of_update(__key.pk(), __key.sk(), &__DYNASHARD_TABLE);
                #(#updates)*
                __dynashard::Ok(__keys.into_updates())
            }
        },
    }
}

/// Hands the key `key` of the attribute of `template` to the runtime's `IndexKeys`, which
/// writes it into the item or records it as an update's change.
fn emit(template: &Ident, key: TokenStream) -> TokenStream {
    quote!({
        let __value = #key;
        __keys.set(#template.attribute, __value)?;
    })
}

fn local(field: &IndexField, prefix: &str) -> Ident {
    format_ident!("__dynashard_{}_{}", prefix, field.field.ident)
}

/// The composition of the index keys, handed to the runtime ([`emit`]), guarded so it only
/// runs when every optional field is present. `value_of` gives each field's value expression
/// (an `Option<T>` for optional fields, a `T` otherwise).
fn guarded(
    position: usize,
    mapping: &IndexMapping,
    fields: &[IndexField],
    value_of: impl Fn(&IndexField) -> TokenStream,
    otherwise: Option<TokenStream>,
    sharding: Option<&Shard>,
) -> TokenStream {
    let (pk_ident, sk_ident) = index_statics(position);
    let args: Vec<KeyArg> = fields
        .iter()
        .map(|field| {
            let value = if field.optional {
                let bound = local(field, "present");
                quote!(#bound)
            } else {
                let value = value_of(field);
                quote!(&#value)
            };
            KeyArg {
                name: field.field.ident.to_string(),
                key_type: field.key_type,
                arg: as_arg(field.key_type, value),
            }
        })
        .collect();
    // A local index's partition key is the item's own: only its sort key is written.
    let mut pk = (!mapping.local).then(|| compose(&pk_ident, &mapping.pk, &args));
    let mut sk = mapping.sk.as_ref().map(|sk| compose(&sk_ident, sk, &args));
    if let Some(shard) = sharding {
        let spec = shard::spec_ident(shard, position);
        let value_of_field =
            |ident: &Ident| fields.iter().find(|field| &field.field.ident == ident).map(&value_of);
        let by_value = if shard.strategy.sorts_by_value() {
            shard.single_by().and_then(value_of_field)
        } else if shard.by.is_empty() {
            None
        } else {
            let values: Vec<TokenStream> = shard.by.iter().filter_map(value_of_field).collect();
            Some(shard::routing_text(&values))
        };
        let at_seconds = shard.bucket.as_ref().and_then(|(_, at)| {
            let field = fields.iter().find(|field| &field.field.ident == at)?;
            let (ty, value) = (&field.field.ty, value_of(field));
            Some(quote_spanned!(ty.span()=> <#ty as __dynashard::BucketTime>::unix_seconds(&#value)))
        });
        pk = pk.map(|pk| shard::partition(&spec, pk, by_value.clone(), at_seconds));
        if let Some(range_sk) = by_value.and_then(|value| shard::range_sort_key(&spec, shard, value)) {
            sk = Some(range_sk);
        }
    }
    let emit_pk = pk.map(|pk| emit(&pk_ident, pk));
    let emit_sk = sk.map(|sk| emit(&sk_ident, sk));
    let body = quote!({ #emit_pk #emit_sk });
    let optional: Vec<&IndexField> = fields.iter().filter(|field| field.optional).collect();
    if optional.is_empty() {
        return body;
    }
    let bindings = optional.iter().map(|field| local(field, "present"));
    let values = optional.iter().map(|field| {
        let value = value_of(field);
        quote!(&#value)
    });
    let otherwise = otherwise.map(|tokens| quote!(else { #tokens }));
    quote! {
        if let (#(__dynashard::Some(#bindings),)*) = (#(#values,)*) #body #otherwise
    }
}

fn write_block(model: &Entity, position: usize, mapping: &IndexMapping) -> TokenStream {
    let fields = model.index_fields(mapping);
    let block = guarded(
        position,
        mapping,
        &fields,
        |field| {
            let ident = &field.field.ident;
            quote!(self.#ident)
        },
        None,
        model.shard_of(&mapping.name),
    );
    match &mapping.when {
        Some(predicate) => quote!(if #predicate(self) { #block }),
        None => block,
    }
}

fn update_block(model: &Entity, position: usize, mapping: &IndexMapping) -> TokenStream {
    let fields = model.index_fields(mapping);
    let name = &mapping.name;
    let changed: Vec<&String> =
        fields.iter().filter(|field| !field.field.is_key).map(|field| &field.field.attribute).collect();
    // An index keyed on key fields and literals alone: only an upsert writes it, with the key
    // fields' values it read back from the key.
    let only_key_fields = changed.is_empty();
    if let Some(refused) = refused_update(model, mapping, &fields, &changed) {
        return refused;
    }
    let values = fields.iter().map(|field| {
        let local = local(field, "value");
        let ty = &field.field.ty;
        let attribute = &field.field.attribute;
        if field.field.is_key && !only_key_fields {
            decode_key_field(model, mapping, field, &local)
        } else {
            quote_spanned! {ty.span()=>
                let #local: #ty = match __changes.value::<#ty>(#name, #attribute) {
                    __dynashard::Some(value) => value?,
                    __dynashard::None => {
                        return __dynashard::Err(__dynashard::FieldChanges::missing(#name, #attribute))
                    }
                };
            }
        }
    });
    let (pk_ident, sk_ident) = index_statics(position);
    let remove_sk = mapping.sk.as_ref().map(|_| quote!(__keys.remove(#sk_ident.attribute);));
    let remove_pk = (!mapping.local).then(|| quote!(__keys.remove(#pk_ident.attribute);));
    let remove = quote! {
        #remove_pk
        #remove_sk
    };
    let block = guarded(
        position,
        mapping,
        &fields,
        |field| {
            let local = local(field, "value");
            quote!(#local)
        },
        Some(remove),
        model.shard_of(&mapping.name),
    );
    // An index keyed on key fields and literals is written by an upsert, which may create the
    // item; any other, when the fields it is keyed on are set (a sparse index's optional fields
    // left alone keep the item where it is).
    let written = if only_key_fields {
        quote!(__changes.creates())
    } else {
        quote!(__changes.touches(&[#(#changed),*]))
    };
    quote! {
        if #written {
            #(#values)*
            #block
        }
    }
}

/// Reads a key field's value back from the base table key being updated.
///
/// The field's type must implement `DecodeKeyPart`; the bound goes through a local trait whose
/// diagnostic says why an index needs it, at the field's type.
fn decode_key_field(
    model: &Entity,
    mapping: &IndexMapping,
    field: &IndexField,
    local: &Ident,
) -> TokenStream {
    let ty = &field.field.ty;
    let name = field.field.ident.to_string();
    let in_pk = model.pk.fields().position(|candidate| candidate == name);
    let in_sk = model.sk.as_ref().and_then(|sk| sk.fields().position(|candidate| candidate == name));
    let (template, key, position) = match (in_pk, in_sk) {
        (Some(position), _) if model.table_shard().is_some() => {
            (pk_static(), quote!(__dynashard::logical_partition(__key.pk())), position)
        }
        (Some(position), _) => (pk_static(), quote!(__key.pk()), position),
        (None, Some(position)) => (sk_static(), quote!(__key.sk().unwrap_or_default()), position),
        (None, None) => return quote!(),
    };
    let index = &mapping.name;
    let message = format!("`{{Self}}` cannot be read back from a key, which updates of index `{index}` need");
    let label = format!("key field `{name}` is in a key template of index `{index}`");
    let note = format!(
        "an update that changes index `{index}`'s key reads key field `{name}` back from the item's key: \
         implement `dynashard::key::DecodeKeyPart` for `{{Self}}`"
    );
    quote_spanned! {ty.span()=>
        let #local: #ty = {
            #[diagnostic::on_unimplemented(message = #message, label = #label, note = #note)]
            trait __DynashardDecodableKeyField: __dynashard::DecodeKeyPart {}
            impl<T: __dynashard::DecodeKeyPart> __DynashardDecodableKeyField for T {}
            fn __dynashard_decode<T: __DynashardDecodableKeyField>(
                template: &__dynashard::KeyTemplate,
                key: &str,
                position: usize,
            ) -> ::core::result::Result<T, __dynashard::KeyPartDecodeError> {
                template.decode_field::<T>(key, position)
            }
            __dynashard_decode::<#ty>(&#template, #key, #position)?
        };
    }
}

/// The refusal of an update that touches an index whose key it cannot recompute, if it is one.
fn refused_update(
    model: &Entity,
    mapping: &IndexMapping,
    fields: &[IndexField],
    changed: &[&String],
) -> Option<TokenStream> {
    let name = &mapping.name;
    let dynamic = model.shard_of(&mapping.name).is_some_and(|shard| shard.strategy.is_dynamic());
    let reason = if dynamic {
        "the index has a dynamic shard count, which puts read: write the entity with put"
    } else if mapping.when.is_some() {
        "the index has a `when` predicate, which needs the whole entity: write it with put"
    } else {
        return None;
    };
    let first = fields.first().map(|field| field.field.attribute.as_str()).unwrap_or_default();
    // An upsert may create the item, which puts such an index on by the whole entity.
    Some(quote! {
        if __changes.touches(&[#(#changed),*]) || __changes.creates() {
            return __dynashard::Err(__dynashard::Error::IndexKeyIncomplete {
                index: #name,
                field: #first,
                reason: #reason,
            });
        }
    })
}
