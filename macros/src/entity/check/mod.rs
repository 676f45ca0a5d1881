//! The checks of an entity declaration against itself: fields named by templates exist and can
//! be keys, `#[version]` is used once and right, mappings and shards fit the fields and each
//! other. Every error is collected; nothing is changed.

mod mapping;
mod shard;

use super::ast::{Entity, Field, Timestamp};
use crate::errors::Errors;
use crate::template::Template;
use crate::types::{is_type_named, unkeyable_type};

/// Checks `entity`, recording every problem in `errors`.
pub fn check(entity: &Entity, errors: &mut Errors) {
    check_version(&entity.fields, errors);
    check_ttl(&entity.fields, errors);
    check_timestamps(&entity.fields, errors);
    for template in std::iter::once(&entity.pk).chain(&entity.sk) {
        check_key_template(template, &entity.fields, errors);
    }
    mapping::check(entity, errors);
    shard::check(entity, errors);
}

/// One `#[version]` field at most, a `u64` that serde stores.
fn check_version(fields: &[Field], errors: &mut Errors) {
    let versioned = fields.iter().filter_map(|field| Some((field, field.version.as_ref()?)));
    for (position, (field, attr)) in versioned.enumerate() {
        if position > 0 {
            errors.push_spanned(attr, "only one field can be `#[version]`");
        }
        if !is_type_named(&field.ty, "u64") {
            errors.push_spanned(&field.ty, "a `#[version]` field must be `u64`");
        }
        if field.no_attribute {
            errors.push_spanned(attr, "a `#[version]` field cannot be skipped or flattened by serde");
        }
    }
}

/// One `#[ttl]` field at most, stored as epoch seconds: an integer, or a time type written by a
/// `#[serde(with = "...")]` module (the number is checked when an item is written).
fn check_ttl(fields: &[Field], errors: &mut Errors) {
    let expiring = fields.iter().filter_map(|field| Some((field, field.ttl.as_ref()?)));
    for (position, (field, attr)) in expiring.enumerate() {
        if position > 0 {
            errors.push_spanned(attr, "only one field can be `#[ttl]`");
        }
        let ty = crate::types::option_inner(&field.ty).unwrap_or(&field.ty);
        let integer =
            ["u32", "u64", "i32", "i64", "usize", "isize"].iter().any(|name| is_type_named(ty, name));
        if !integer && !field.serde_with {
            errors.push_spanned(
                &field.ty,
                "a `#[ttl]` field holds a time as epoch seconds: an integer, or a time type stored with \
                 `#[serde(with = \"time::serde::timestamp\")]` (or `time::serde::timestamp::option`)",
            );
        }
        if field.no_attribute {
            errors.push_spanned(attr, "a `#[ttl]` field cannot be skipped or flattened by serde");
        }
        if field.is_key || field.is_version() {
            errors.push_spanned(attr, "a `#[ttl]` field cannot be a key field or the `#[version]` field");
        }
    }
}

/// One `#[created_at]` and one `#[updated_at]` field at most, each stored under a known name,
/// neither a key, the version nor the time to live. The type is checked by the generated code
/// (`dynashard::Timestamp`).
fn check_timestamps(fields: &[Field], errors: &mut Errors) {
    let flattened = fields.iter().any(|field| field.flatten);
    for kind in [Timestamp::Created, Timestamp::Updated] {
        let stamped = fields.iter().filter(|field| field.timestamp() == Some(kind));
        for (position, field) in stamped.enumerate() {
            let Some((_, attr)) = &field.timestamp else { continue };
            let name = kind.attribute();
            if position > 0 {
                errors.push_spanned(attr, format!("only one field can be `{name}`"));
            }
            if field.no_attribute {
                errors
                    .push_spanned(attr, format!("a `{name}` field cannot be skipped or flattened by serde"));
            }
            if field.is_key || field.is_version() || field.ttl.is_some() {
                errors.push_spanned(
                    attr,
                    format!(
                        "a `{name}` field cannot be a key field, the `#[version]` or the `#[ttl]` field: \
                         dynashard writes the current time into it"
                    ),
                );
            }
            if kind == Timestamp::Created && flattened {
                errors.push_spanned(
                    attr,
                    "an entity with a `#[created_at]` field cannot flatten fields: a put keeps the \
                     creation time by updating the item, which must know every attribute it removes",
                );
            }
        }
    }
}

/// The error for a `#[created_at]` or `#[updated_at]` field in a key template.
pub fn timestamp_in_key(name: &str, kind: Timestamp) -> String {
    format!(
        "the `{}` field `{name}` cannot be part of a key template: dynashard writes its time when the \
         item is written, after the keys are built; key on a time field you set",
        kind.attribute()
    )
}

/// The fields of a primary-key template: known, stored, not the version, of a key type.
fn check_key_template(template: &Template, fields: &[Field], errors: &mut Errors) {
    for name in template.fields() {
        let Some(field) = fields.iter().find(|field| field.ident == name) else {
            errors.push(template.span, unknown_field(name, template, fields));
            continue;
        };
        if field.no_attribute {
            errors.push(template.span, format!("key field `{name}` is skipped or flattened by serde"));
        }
        if field.is_version() {
            errors.push(template.span, format!("the `#[version]` field `{name}` cannot be part of a key"));
        }
        if let Some(kind) = field.timestamp() {
            errors.push(template.span, timestamp_in_key(name, kind));
        }
        if let Some(reason) = unkeyable_type(&field.ty) {
            errors.push_spanned(&field.ty, format!("field `{name}` cannot be part of a key: {reason}"));
        }
    }
}

/// The error for a template placeholder that names no field.
pub fn unknown_field(name: &str, template: &Template, fields: &[Field]) -> String {
    let known: Vec<String> = fields.iter().map(|field| format!("`{}`", field.ident)).collect();
    format!("unknown field `{name}` in key template `{}`; fields: {}", template.source, known.join(", "))
}
