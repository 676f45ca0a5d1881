//! Parsing and checking `#[shard(...)]`: the strategy that spreads an index's partition over
//! several shards.
//!
//! Without an index name, the strategy shards the base table's partition key; only hash shards
//! by a key field are allowed there, so a key builder can always compute an item's shard.
//!
//! ```text
//! #[shard(hash = 8, by = id)]                  // the base table
//! #[shard(GSI1, hash = 21, by = title)]
//! #[shard(GSI1, random = 10)]
//! #[shard(GSI1, range = "boundaries/albums.json", by = title, normalize = "nfkd-lower")]
//! ```

use super::index_model::IndexMappingModel;
use super::model::FieldModel;
use crate::attr::{set_once, unknown_key};
use crate::errors::Errors;
use crate::template::{Piece, Template};
use serde_json::Value;
use syn::parse::Parse;
use syn::{Attribute, Ident, LitInt, LitStr};

/// The most shards one index may have.
const MAX_SHARDS: u64 = 10_000;

/// How an index's partition is spread.
pub enum Strategy {
    /// `hash(by) mod shards`.
    Hash { shards: u32 },
    /// A random shard for every write.
    Random { shards: u32 },
    /// A count per partition kept in the shard metadata table, raised under throttling, at most
    /// `max`.
    Dynamic { max: u32 },
    /// Ordered range shards cut at the boundaries read from `path` at compile time.
    Range { path: String, boundaries: Vec<String>, normalize: String, overflow: u32 },
}

/// The `index` of a shard on the base table's partition key.
pub const BASE_TABLE: &str = "";

/// A checked `#[shard(...)]`.
pub struct ShardModel {
    /// The sharded index, or [`BASE_TABLE`].
    pub index: String,
    pub strategy: Strategy,
    /// The fields whose values pick the shard (hash: one or more, range: one).
    pub by: Vec<Ident>,
    /// A time bucket (`minute`, `hour` or `day`) and the field whose time picks it.
    pub bucket: Option<(String, Ident)>,
}

impl ShardModel {
    /// The `by` field, when there is exactly one.
    pub fn single_by(&self) -> Option<&Ident> {
        match self.by.as_slice() {
            [by] => Some(by),
            _ => None,
        }
    }
}

/// Whether `ty` is a type hash shards can route by: `String`, `char` or an integer.
fn is_routable(ty: &syn::Type) -> bool {
    const ROUTABLE: &[&str] = &[
        "String", "char", "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128",
        "isize",
    ];
    matches!(ty, syn::Type::Path(path) if ROUTABLE.iter().any(|name| path.path.is_ident(name)))
}

fn is_string(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(path) if path.path.is_ident("String"))
}

impl Strategy {
    /// The number of shards.
    pub fn shards(&self) -> u32 {
        match self {
            Strategy::Hash { shards } | Strategy::Random { shards } => *shards,
            Strategy::Dynamic { max } => *max,
            Strategy::Range { boundaries, .. } => boundaries.len() as u32,
        }
    }
}

const SHARD_KEYS: &[&str] =
    &["hash", "random", "range", "dynamic", "max", "by", "normalize", "bucket", "at", "overflow"];

/// The default most shards of a dynamic count.
const DEFAULT_DYNAMIC_MAX: u32 = 64;

/// Parses every `#[shard(...)]`, checking each against the entity's index mappings.
pub fn parse(
    attrs: &[Attribute],
    indexes: &[IndexMappingModel],
    base_key: (Option<&Template>, Option<&Template>),
    fields: Option<&[FieldModel]>,
    errors: &mut Errors,
) -> Vec<ShardModel> {
    let mut shards: Vec<ShardModel> = Vec::new();
    for attr in attrs.iter().filter(|attr| attr.path().is_ident("shard")) {
        let Some(shard) = parse_one(attr, errors) else { continue };
        if shards.iter().any(|known| known.index == shard.index) {
            match shard.index.as_str() {
                BASE_TABLE => errors.push_spanned(attr, "the base table is sharded twice"),
                index => errors.push_spanned(attr, format!("index `{index}` is sharded twice")),
            }
            continue;
        }
        if shard.index == BASE_TABLE {
            if check_base_table(attr, &shard, base_key, fields, errors) {
                shards.push(shard);
            }
            continue;
        }
        let Some(mapping) = indexes.iter().find(|mapping| mapping.name == shard.index) else {
            errors.push_spanned(
                attr,
                format!(
                    "`#[shard({}, ...)]` needs a `#[gsi({}, pk = \"...\", ...)]` key template mapping",
                    shard.index, shard.index
                ),
            );
            continue;
        };
        if let Some(fields) = fields {
            for by in &shard.by {
                check_by(by, &shard, mapping, fields, errors);
            }
        }
        if let (Some((_, at)), Some(fields)) = (&shard.bucket, fields) {
            check_at(at, mapping, fields, errors);
        }
        shards.push(shard);
    }
    shards
}

fn check_by(
    by: &Ident,
    shard: &ShardModel,
    mapping: &IndexMappingModel,
    fields: &[FieldModel],
    errors: &mut Errors,
) {
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
/// `Entity::key(...)` computes the shard from its arguments. Returns whether it is valid.
fn check_base_table(
    attr: &Attribute,
    shard: &ShardModel,
    (pk, sk): (Option<&Template>, Option<&Template>),
    fields: Option<&[FieldModel]>,
    errors: &mut Errors,
) -> bool {
    let (Strategy::Hash { .. }, None) = (&shard.strategy, &shard.bucket) else {
        errors.push_spanned(
            attr,
            "the base table takes `hash = N, by = field` shards only: a key must name its shard, so \
             random, range and time-bucket shards belong on an index (`#[shard(INDEX, ...)]`)",
        );
        return false;
    };
    let Some(fields) = fields else { return true };
    shard.by.iter().all(|by| check_base_table_by(by, (pk, sk), fields, errors))
}

fn check_base_table_by(
    by: &Ident,
    (pk, sk): (Option<&Template>, Option<&Template>),
    fields: &[FieldModel],
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

fn check_at(at: &Ident, mapping: &IndexMappingModel, fields: &[FieldModel], errors: &mut Errors) {
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

fn parse_one(attr: &Attribute, errors: &mut Errors) -> Option<ShardModel> {
    let mut index: Option<Ident> = None;
    let (mut hash, mut random, mut range): (Option<LitInt>, Option<LitInt>, Option<LitStr>) =
        (None, None, None);
    let (mut by, mut normalize): (Option<Vec<Ident>>, Option<LitStr>) = (None, None);
    let (mut bucket, mut at): (Option<LitStr>, Option<Ident>) = (None, None);
    let mut overflow: Option<LitInt> = None;
    let (mut dynamic, mut max): (bool, Option<LitInt>) = (false, None);
    let result = attr.parse_nested_meta(|meta| {
        let is_bare = !meta.input.peek(syn::Token![=]) && !meta.input.peek(syn::token::Paren);
        if is_bare && index.is_none() {
            if let Some(ident) = meta.path.get_ident() {
                index = Some(ident.clone());
                return Ok(());
            }
        }
        if is_bare && meta.path.is_ident("dynamic") {
            dynamic = true;
        } else if meta.path.is_ident("max") {
            let value = meta.value()?.parse()?;
            set_once(errors, &meta, &mut max, value);
        } else if meta.path.is_ident("hash") {
            let value = meta.value()?.parse()?;
            set_once(errors, &meta, &mut hash, value);
        } else if meta.path.is_ident("random") {
            let value = meta.value()?.parse()?;
            set_once(errors, &meta, &mut random, value);
        } else if meta.path.is_ident("range") {
            let value = meta.value()?.parse()?;
            set_once(errors, &meta, &mut range, value);
        } else if meta.path.is_ident("by") {
            let input = meta.value()?;
            let value = if input.peek(syn::token::Paren) {
                let content;
                syn::parenthesized!(content in input);
                let fields = content.parse_terminated(Ident::parse, syn::Token![,])?;
                fields.into_iter().collect()
            } else {
                vec![input.parse()?]
            };
            set_once(errors, &meta, &mut by, value);
        } else if meta.path.is_ident("normalize") {
            let value = meta.value()?.parse()?;
            set_once(errors, &meta, &mut normalize, value);
        } else if meta.path.is_ident("bucket") {
            let value = meta.value()?.parse()?;
            set_once(errors, &meta, &mut bucket, value);
        } else if meta.path.is_ident("overflow") {
            let value = meta.value()?.parse()?;
            set_once(errors, &meta, &mut overflow, value);
        } else if meta.path.is_ident("at") {
            let value = meta.value()?.parse()?;
            set_once(errors, &meta, &mut at, value);
        } else {
            unknown_key(errors, &meta, "shard", SHARD_KEYS)?;
        }
        Ok(())
    });
    if let Err(error) = result {
        errors.add(error);
        return None;
    }
    let given: Vec<String> = [
        ("hash", hash.is_some()),
        ("random", random.is_some()),
        ("range", range.is_some()),
        ("dynamic", dynamic),
    ]
    .iter()
    .filter(|(_, is_given)| *is_given)
    .map(|(name, _)| format!("`{name}`"))
    .collect();
    if dynamic && given.len() == 1 {
        if let Some(by) = by.as_ref().and_then(|by| by.first()) {
            errors.push(by.span(), "dynamic shards do not use `by`: every write picks a shard at random");
            return None;
        }
        if let Some(bucket) = &bucket {
            errors.push(bucket.span(), "time buckets combine with `hash` or `random` shards, not `dynamic`");
            return None;
        }
        let max = match &max {
            None => DEFAULT_DYNAMIC_MAX,
            Some(literal) => shard_count(literal, errors)?,
        };
        let index = index.map_or_else(|| BASE_TABLE.to_owned(), |index| index.to_string());
        return Some(ShardModel { index, strategy: Strategy::Dynamic { max }, by: Vec::new(), bucket: None });
    }
    if let Some(max) = &max {
        errors.push(max.span(), "`max` bounds `dynamic` shard counts only");
        return None;
    }
    let strategy = match (hash, random, range) {
        (Some(n), None, None) => Strategy::Hash { shards: shard_count(&n, errors)? },
        (None, Some(n), None) => Strategy::Random { shards: shard_count(&n, errors)? },
        (None, None, Some(path)) => {
            let normalize_name = normalize.as_ref().map_or_else(|| "nfkd-lower".to_owned(), LitStr::value);
            if !["nfkd-lower", "lower", "none"].contains(&normalize_name.as_str()) {
                let span = normalize.as_ref().map_or_else(|| path.span(), LitStr::span);
                errors
                    .push(span, "`normalize` is one of \"nfkd-lower\" (the default), \"lower\" or \"none\"");
            }
            let boundaries = read_boundaries(&path, errors)?;
            let overflow = match &overflow {
                None => 1,
                Some(literal) => match literal.base10_parse::<u32>() {
                    Ok(count) if (2..=64).contains(&count) => count,
                    _ => {
                        errors.push(literal.span(), "`overflow` is a number of sub-shards from 2 to 64");
                        return None;
                    }
                },
            };
            Strategy::Range { path: resolve(&path.value()), boundaries, normalize: normalize_name, overflow }
        }
        (None, None, None) => {
            errors.push_spanned(
                attr,
                "`#[shard(...)]` needs a strategy: `hash = N`, `random = N`, `range = \"file.json\"` or `dynamic`",
            );
            return None;
        }
        _ => {
            errors.push_spanned(
                attr,
                format!(
                    "`#[shard(...)]` takes exactly one strategy, found {}: {}",
                    given.len(),
                    given.join(", ")
                ),
            );
            return None;
        }
    };
    if let (Some(literal), false) = (&overflow, matches!(strategy, Strategy::Range { .. })) {
        errors.push(
            literal.span(),
            "`overflow` spreads hot values of `range` shards; hash and random shards spread already",
        );
        return None;
    }
    if normalize.is_some() && !matches!(strategy, Strategy::Range { .. }) {
        errors.push_spanned(&normalize, "`normalize` applies to `range` shards only");
    }
    let by = by.unwrap_or_default();
    match (&strategy, by.first()) {
        (Strategy::Random { .. }, Some(by)) => {
            errors.push(by.span(), "random shards do not use `by`: every write picks a shard at random");
            return None;
        }
        (Strategy::Hash { .. } | Strategy::Range { .. }, None) => {
            errors.push_spanned(
                attr,
                "hash and range shards need `by = field`: the field whose value picks the shard",
            );
            return None;
        }
        (Strategy::Range { .. }, Some(_)) if by.len() > 1 => {
            errors
                .push(by[1].span(), "range shards route by one field: its normalized value picks the shard");
            return None;
        }
        _ => {}
    }
    let bucket = match (bucket, at) {
        (None, None) => None,
        (Some(bucket), Some(at)) => {
            if !["minute", "hour", "day"].contains(&bucket.value().as_str()) {
                errors.push(bucket.span(), "`bucket` is one of \"minute\", \"hour\" or \"day\"");
                return None;
            }
            if matches!(strategy, Strategy::Range { .. }) {
                errors
                    .push(bucket.span(), "time buckets combine with `hash` or `random` shards, not `range`");
                return None;
            }
            Some((bucket.value(), at))
        }
        _ => {
            errors.push_spanned(attr, "a time bucket needs both `bucket = \"hour\"` and `at = field`");
            return None;
        }
    };
    let index = index.map_or_else(|| BASE_TABLE.to_owned(), |index| index.to_string());
    Some(ShardModel { index, strategy, by, bucket })
}

fn shard_count(literal: &LitInt, errors: &mut Errors) -> Option<u32> {
    match literal.base10_parse::<u64>() {
        Ok(count) if (1..=MAX_SHARDS).contains(&count) => Some(count as u32),
        _ => {
            errors.push(literal.span(), format!("a shard count is a whole number from 1 to {MAX_SHARDS}"));
            None
        }
    }
}

/// `path` relative to the crate being compiled.
fn resolve(path: &str) -> String {
    let base = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    std::path::Path::new(&base).join(path).to_string_lossy().into_owned()
}

/// Reads and checks a boundaries file: a JSON array of strings, first `""`, strictly increasing
/// in UTF-8 byte order. Errors point at the path literal and name the path as written.
fn read_boundaries(path: &LitStr, errors: &mut Errors) -> Option<Vec<String>> {
    let written = path.value();
    let mut fail = |message: String| {
        errors.push(path.span(), message);
        None
    };
    let text = match std::fs::read_to_string(resolve(&written)) {
        Ok(text) => text,
        Err(error) => {
            return fail(format!(
                "cannot read boundaries file `{written}` (paths are relative to the package's \
                 `Cargo.toml`): {error}"
            ))
        }
    };
    let entries = match serde_json::from_str(&text) {
        Ok(Value::Array(entries)) => entries,
        Ok(other) => {
            return fail(format!(
                "boundaries file `{written}` must hold a JSON array of strings, not {}",
                describe(&other)
            ))
        }
        Err(error) => return fail(format!("boundaries file `{written}` is not valid JSON: {error}")),
    };
    let mut boundaries = Vec::with_capacity(entries.len());
    for (position, entry) in entries.into_iter().enumerate() {
        match entry {
            Value::String(boundary) => boundaries.push(boundary),
            other => {
                return fail(format!(
                    "boundaries file `{written}` must hold a JSON array of strings, but entry \
                     {position} is {}",
                    describe(&other)
                ))
            }
        }
    }
    match boundaries.first() {
        None => {
            return fail(format!(
                "boundaries file `{written}` is empty: it needs at least the first boundary, \"\""
            ))
        }
        Some(first) if !first.is_empty() => {
            return fail(format!("the first boundary in `{written}` must be \"\", found {first:?}"))
        }
        Some(_) => {}
    }
    if let Some(position) = boundaries.windows(2).position(|pair| pair[1] <= pair[0]) {
        return fail(format!(
            "boundaries in `{written}` must be strictly increasing (in UTF-8 byte order), but entry {} \
             ({:?}) is not greater than entry {position} ({:?})",
            position + 1,
            boundaries[position + 1],
            boundaries[position]
        ));
    }
    if boundaries.len() as u64 > MAX_SHARDS {
        return fail(format!(
            "boundaries file `{written}` has {} boundaries; at most {MAX_SHARDS} range shards",
            boundaries.len()
        ));
    }
    Some(boundaries)
}

/// A JSON value's kind, for messages: `the number 5`, `an object`.
fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(flag) => format!("the boolean {flag}"),
        Value::Number(number) => format!("the number {number}"),
        Value::String(text) => format!("the string {text:?}"),
        Value::Array(_) => "an array".to_owned(),
        Value::Object(_) => "an object".to_owned(),
    }
}
