//! The checks of a `#[shard(...)]` against the entity: the mapping it shards, its `by` and `at`
//! fields, and what the base table allows.

use crate::entity::ast::{Entity, Field};
use crate::entity::attr::{IndexMapping, Shard, Strategy, BASE_TABLE};
use crate::errors::Errors;
use crate::template::{Piece, Template};
use crate::types::{is_routable, is_string};
use syn::Ident;

/// Checks every shard of `entity`.
pub fn check(entity: &Entity, errors: &mut Errors) {
    for shard in &entity.shards {
        if shard.index == BASE_TABLE {
            check_base_table(shard, entity, errors);
            continue;
        }
        let Some(mapping) = entity.indexes.iter().find(|mapping| mapping.name == shard.index) else {
            errors.push_spanned(
                &shard.attr,
                format!(
                    "`#[shard({}(...))]` needs a `#[gsi({}(pk = \"...\", ...))]` key template mapping",
                    shard.index, shard.index
                ),
            );
            continue;
        };
        for by in &shard.by {
            check_by(by, shard, mapping, &entity.fields, errors);
        }
        if let Some((_, at)) = &shard.bucket {
            check_at(at, mapping, &entity.fields, errors);
        }
    }
}

/// Checks one `by` field of an index shard: known, routable, in the mapping's key template.
fn check_by(by: &Ident, shard: &Shard, mapping: &IndexMapping, fields: &[Field], errors: &mut Errors) {
    let Some(field) = fields.iter().find(|field| &field.ident == by) else {
        let known: Vec<String> = fields.iter().map(|field| format!("`{}`", field.ident)).collect();
        errors.push(by.span(), format!("unknown field `{by}` in `by`; fields: {}", known.join(", ")));
        return;
    };
    let is_range = matches!(shard.strategy, Strategy::Range { .. });
    if is_range && !is_string(&field.ty) {
        errors.push_spanned(
            &field.ty,
            format!(
                "`by` field `{by}` of a range shard must be a `String`: its normalized text picks the shard"
            ),
        );
    } else if !is_routable(&field.ty) {
        errors.push_spanned(
            &field.ty,
            format!("`by` field `{by}` must be a `String`, a `char` or an integer: shards are computed from its text"),
        );
    }
    let template_fields: Vec<&str> =
        mapping.pk.fields().chain(mapping.sk.iter().flat_map(|sk| sk.fields())).collect();
    if !template_fields.contains(&by.to_string().as_str()) {
        let sk = mapping.sk.as_ref().map(|sk| format!(", sk `{}`", sk.source)).unwrap_or_default();
        errors.push(
            by.span(),
            format!(
                "`by` field `{by}` must be part of index `{}`'s key template (pk `{}`{sk})",
                mapping.name, mapping.pk.source
            ),
        );
        return;
    }
    if matches!(shard.strategy, Strategy::Range { .. }) {
        // The index stores its own sort key, built from the normalized `by` value; any other
        // part of the template would be dropped.
        let sorted_by_alone = mapping
            .sk
            .as_ref()
            .is_some_and(|sk| matches!(sk.pieces.as_slice(), [Piece::Field(name)] if by == name));
        if !sorted_by_alone {
            let span = mapping.sk.as_ref().map_or_else(|| by.span(), |sk| sk.span);
            errors.push(
                span,
                format!(
                    "a range-sharded index is sorted by its `by` field alone: map index `{}` with `sk = \"{{{by}}}\"`",
                    mapping.name
                ),
            );
        }
    }
}

/// Checks a base-table shard: hash shards by a `String` field of the primary key, so that
/// `Entity::key(...)` computes the shard from its arguments.
fn check_base_table(shard: &Shard, entity: &Entity, errors: &mut Errors) {
    let (Strategy::Hash { .. }, None) = (&shard.strategy, &shard.bucket) else {
        errors.push_spanned(
            &shard.attr,
            "the base table takes `hash = N, by = field` shards only: a key must name its shard, so \
             random, range and time-bucket shards belong on an index (`#[shard(Index(...))]`)",
        );
        return;
    };
    for by in &shard.by {
        if !check_base_table_by(by, (Some(&entity.pk), entity.sk.as_ref()), &entity.fields, errors) {
            return;
        }
    }
}

fn check_base_table_by(
    by: &Ident,
    (pk, sk): (Option<&Template>, Option<&Template>),
    fields: &[Field],
    errors: &mut Errors,
) -> bool {
    let Some(field) = fields.iter().find(|field| &field.ident == by) else {
        errors.push(by.span(), format!("unknown field `{by}` in `by`"));
        return false;
    };
    let in_key = pk.into_iter().chain(sk).flat_map(Template::fields).any(|name| by == name);
    if !in_key {
        let key = pk
            .map(|pk| format!("pk `{}`", pk.source))
            .into_iter()
            .chain(sk.map(|sk| format!("sk `{}`", sk.source)));
        errors.push(
            by.span(),
            format!(
                "`by` field `{by}` of a base-table shard must be part of the primary key ({}), so keys can name their shard",
                key.collect::<Vec<_>>().join(", ")
            ),
        );
        return false;
    }
    if !is_routable(&field.ty) {
        errors.push_spanned(
            &field.ty,
            format!("`by` field `{by}` must be a `String`, a `char` or an integer: shards are computed from its text"),
        );
        return false;
    }
    true
}

fn check_at(at: &Ident, mapping: &IndexMapping, fields: &[Field], errors: &mut Errors) {
    if !fields.iter().any(|field| &field.ident == at) {
        errors.push(at.span(), format!("unknown field `{at}` in `at`"));
        return;
    }
    let template_fields: Vec<&str> =
        mapping.pk.fields().chain(mapping.sk.iter().flat_map(|sk| sk.fields())).collect();
    if !template_fields.contains(&at.to_string().as_str()) {
        errors.push(
            at.span(),
            format!("`at` field `{at}` must be part of index `{}`'s key template", mapping.name),
        );
    }
}
