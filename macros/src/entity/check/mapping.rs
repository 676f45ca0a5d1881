//! The checks of index mappings against the entity: their fields exist, are stored and can be
//! keys (optional ones only in sparse indexes), and no two mappings generate one query method.

use crate::entity::ast::{Entity, Field};
use crate::entity::attr::{IndexMapping, NativeMapping};
use crate::errors::Errors;
use crate::template::Template;
use crate::types::{is_wide_integer, option_inner, unkeyable_type, WIDE_INTEGER};
use proc_macro2::Span;
use syn::Ident;

/// Checks every mapping of `entity`.
pub fn check(entity: &Entity, errors: &mut Errors) {
    for mapping in &entity.indexes {
        // A local index's partition key template is the entity's own, checked with it.
        let pk = Some(&mapping.pk).filter(|_| !mapping.local);
        for template in pk.into_iter().chain(&mapping.sk) {
            check_fields(mapping, template, &entity.fields, errors);
        }
        if mapping.local {
            check_local(entity, mapping, errors);
        }
    }
    for mapping in &entity.native_indexes {
        check_native_fields(mapping, &entity.fields, errors);
    }
    check_methods(&entity.indexes, &entity.native_indexes, errors);
}

/// A local index is read by the entity's own partition key: neither it nor the base table's
/// partition key can be sharded.
fn check_local(entity: &Entity, mapping: &IndexMapping, errors: &mut Errors) {
    if let Some(shard) = entity.shard_of(&mapping.name) {
        errors.push_spanned(
            &shard.attr,
            format!(
                "local index `{}` shares the item's partition key, which cannot be sharded per index",
                mapping.name
            ),
        );
    }
    if entity.table_shard().is_some() {
        errors.push_spanned(
            &mapping.attr,
            format!(
                "local index `{}` cannot be mapped by an entity whose base table partition key is sharded",
                mapping.name
            ),
        );
    }
}

/// Two mappings cannot generate the same query method, nor one named like the base query.
fn check_methods(composed: &[IndexMapping], native: &[NativeMapping], errors: &mut Errors) {
    let span = |method: &Option<Ident>, name_span: Span| method.as_ref().map_or(name_span, Ident::span);
    let methods = composed
        .iter()
        .map(|mapping| (mapping.query_method(), &mapping.name, span(&mapping.method, mapping.name_span)))
        .chain(native.iter().map(|mapping| {
            (mapping.query_method(), &mapping.name, span(&mapping.method, mapping.name_span))
        }));
    let mut seen: Vec<(Ident, &String)> = Vec::new();
    for (method, index, span) in methods {
        if method == "query" {
            errors.push(span, "`query` is the base table's query method; name this one otherwise");
        } else if let Some((_, other)) = seen.iter().find(|(known, _)| *known == method) {
            errors.push(
                span,
                format!("the mappings of `{other}` and `{index}` both generate `{method}`; rename one with `method = \"...\"`"),
            );
        }
        seen.push((method, index));
    }
}

fn check_native_fields(mapping: &NativeMapping, fields: &[Field], errors: &mut Errors) {
    for ident in mapping.pk.iter().chain(&mapping.sk) {
        let Some(field) = fields.iter().find(|field| &field.ident == ident) else {
            errors.push(
                ident.span(),
                format!("unknown field `{ident}` in the key of index `{}`", mapping.name),
            );
            continue;
        };
        if field.no_attribute {
            errors.push(ident.span(), format!("index field `{ident}` is skipped or flattened by serde"));
        }
        if field.is_version() {
            errors.push(
                ident.span(),
                format!("the `#[version]` field `{ident}` cannot be part of an index key"),
            );
        }
        if option_inner(&field.ty).is_some() && !mapping.sparse {
            errors.push_spanned(
                &field.ty,
                format!(
                    "field `{ident}` is optional; map index `{}` with `#[sparse_gsi(...)]` so items \
                     without it stay out of the index",
                    mapping.name
                ),
            );
        }
        let key_type = option_inner(&field.ty).unwrap_or(&field.ty);
        if is_wide_integer(key_type) {
            errors.push_spanned(
                key_type,
                format!(
                    "field `{ident}` cannot be part of an index key: {WIDE_INTEGER}; multi-attribute key \
                     fields must be `String` or an integer type up to 64 bits"
                ),
            );
        }
    }
}

fn check_fields(mapping: &IndexMapping, template: &Template, fields: &[Field], errors: &mut Errors) {
    for name in template.fields() {
        let Some(field) = fields.iter().find(|field| field.ident == name) else {
            errors.push(template.span, super::unknown_field(name, template, fields));
            continue;
        };
        if field.no_attribute {
            errors.push(template.span, format!("index field `{name}` is skipped or flattened by serde"));
        }
        if field.is_version() {
            errors.push(
                template.span,
                format!("the `#[version]` field `{name}` cannot be part of an index key"),
            );
        }
        if let Some(kind) = field.timestamp() {
            errors.push(template.span, super::timestamp_in_key(name, kind));
        }
        let key_type = match option_inner(&field.ty) {
            Some(inner) if mapping.sparse => inner,
            Some(_) => {
                errors.push_spanned(
                    &field.ty,
                    format!(
                        "field `{name}` is optional; map index `{}` with `#[sparse_gsi(...)]` so items \
                         without it stay out of the index",
                        mapping.name
                    ),
                );
                continue;
            }
            None => &field.ty,
        };
        if let Some(reason) = unkeyable_type(key_type) {
            errors.push_spanned(key_type, format!("field `{name}` cannot be part of an index key: {reason}"));
        }
    }
}
