//! `#[shard(...)]`: the strategy that spreads an index's partition over several shards.
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

use super::boundaries_file::{read_boundaries, MAX_SHARDS};
use crate::attr::{set_once, unknown_key, value};
use crate::errors::Errors;
use syn::parse::Parse;
use syn::spanned::Spanned;
use syn::{Attribute, Ident, LitInt, LitStr};

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
    Range { path: String, boundaries: Vec<String>, normalize: Normalize, overflow: u32 },
}

/// How range routing normalizes a value before comparing it with the boundaries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Normalize {
    /// `"nfkd-lower"`, the default.
    NfkdLower,
    /// `"lower"`.
    Lower,
    /// `"none"`.
    None,
}

impl Normalize {
    fn parse(name: &str) -> Option<Self> {
        match name {
            "nfkd-lower" => Some(Normalize::NfkdLower),
            "lower" => Some(Normalize::Lower),
            "none" => Some(Normalize::None),
            _ => None,
        }
    }
}

/// The width of a time bucket.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bucket {
    /// `"minute"`.
    Minute,
    /// `"hour"`.
    Hour,
    /// `"day"`.
    Day,
}

impl Bucket {
    fn parse(name: &str) -> Option<Self> {
        match name {
            "minute" => Some(Bucket::Minute),
            "hour" => Some(Bucket::Hour),
            "day" => Some(Bucket::Day),
            _ => None,
        }
    }
}

/// The `index` of a shard on the base table's partition key.
pub const BASE_TABLE: &str = "";

/// A `#[shard(...)]`.
pub struct Shard {
    /// The attribute, where errors about the whole shard are reported.
    pub attr: Attribute,
    /// The sharded index, or [`BASE_TABLE`].
    pub index: String,
    pub strategy: Strategy,
    /// The fields whose values pick the shard (hash: one or more, range: one).
    pub by: Vec<Ident>,
    /// A time bucket and the field whose time picks it.
    pub bucket: Option<(Bucket, Ident)>,
    /// `directory`: writes keep a directory of the buckets' non-empty partitions, where `Some`
    /// (the span of the word, for errors).
    pub directory: Option<proc_macro2::Span>,
}

impl Shard {
    /// The `by` field, when there is exactly one.
    pub fn single_by(&self) -> Option<&Ident> {
        match self.by.as_slice() {
            [by] => Some(by),
            _ => None,
        }
    }
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

const SHARD_KEYS: &[&str] = &[
    "hash",
    "random",
    "range",
    "dynamic",
    "max",
    "by",
    "normalize",
    "bucket",
    "at",
    "overflow",
    "directory",
];

/// The default most shards of a dynamic count.
const DEFAULT_DYNAMIC_MAX: u32 = 64;

/// Parses every `#[shard(...)]`, in order; `mapped` names the indexes the entity maps with key
/// templates.
pub fn parse(attrs: &[Attribute], mapped: &[&str], errors: &mut Errors) -> Vec<Shard> {
    attrs
        .iter()
        .filter(|attr| attr.path().is_ident("shard"))
        .filter_map(|attr| parse_one(attr, mapped, errors))
        .collect()
}

/// Parses one `#[shard(...)]`; `mapped` names the indexes the entity maps with key templates.
fn parse_one(attr: &Attribute, mapped: &[&str], errors: &mut Errors) -> Option<Shard> {
    let mut index: Option<Ident> = None;
    let (mut hash, mut random, mut range): (Option<LitInt>, Option<LitInt>, Option<LitStr>) =
        (None, None, None);
    let (mut by, mut normalize): (Option<Vec<Ident>>, Option<LitStr>) = (None, None);
    let (mut bucket, mut at): (Option<LitStr>, Option<Ident>) = (None, None);
    let mut overflow: Option<LitInt> = None;
    let (mut dynamic, mut max): (bool, Option<LitInt>) = (false, None);
    let mut directory: Option<proc_macro2::Span> = None;
    let result = attr.parse_nested_meta(|meta| {
        let is_bare = !meta.input.peek(syn::Token![=]) && !meta.input.peek(syn::token::Paren);
        if is_bare && index.is_none() {
            if let Some(ident) = meta.path.get_ident() {
                // A strategy key written bare is a key missing its value, unless the entity maps
                // an index of that name.
                let mapped = mapped.iter().any(|name| ident == name);
                if mapped || !SHARD_KEYS.iter().any(|key| ident == key) {
                    index = Some(ident.clone());
                    return Ok(());
                }
            }
        }
        if meta.path.is_ident("dynamic") {
            if !is_bare {
                return Err(syn::Error::new_spanned(
                    &meta.path,
                    "`dynamic` takes no value: `#[shard(INDEX, dynamic)]`, or `#[shard(INDEX, dynamic, max = N)]`",
                ));
            }
            dynamic = true;
        } else if meta.path.is_ident("directory") {
            if !is_bare {
                return Err(syn::Error::new_spanned(
                    &meta.path,
                    "`directory` takes no value: `#[shard(INDEX, hash = 4, by = field, bucket = \"hour\", at = field, directory)]`",
                ));
            }
            directory = Some(meta.path.span());
        } else if meta.path.is_ident("max") {
            let value = value(&meta, "the most shards", "max = 64")?.parse()?;
            set_once(errors, &meta, &mut max, value);
        } else if meta.path.is_ident("hash") {
            let value = value(&meta, "a shard count", "hash = 8")?.parse()?;
            set_once(errors, &meta, &mut hash, value);
        } else if meta.path.is_ident("random") {
            let value = value(&meta, "a shard count", "random = 8")?.parse()?;
            set_once(errors, &meta, &mut random, value);
        } else if meta.path.is_ident("range") {
            let value = value(&meta, "a boundaries file", "range = \"path/to/boundaries.json\"")?.parse()?;
            set_once(errors, &meta, &mut range, value);
        } else if meta.path.is_ident("by") {
            let input = value(&meta, "the field whose value picks the shard", "by = field` or `by = (a, b)")?;
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
            let value = value(&meta, "a normalization", "normalize = \"nfkd-lower\"")?.parse()?;
            set_once(errors, &meta, &mut normalize, value);
        } else if meta.path.is_ident("bucket") {
            let value = value(&meta, "a time bucket", "bucket = \"hour\"")?.parse()?;
            set_once(errors, &meta, &mut bucket, value);
        } else if meta.path.is_ident("overflow") {
            let value = value(&meta, "a number of sub-shards", "overflow = 4")?.parse()?;
            set_once(errors, &meta, &mut overflow, value);
        } else if meta.path.is_ident("at") {
            let value = value(&meta, "the time field whose value picks the bucket", "at = field")?.parse()?;
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
        let strategy = Strategy::Dynamic { max };
        if let Some(directory) = directory {
            errors.push(directory, DIRECTORY_NEEDS_BUCKETS);
            return None;
        }
        return Some(Shard { attr: attr.clone(), index, strategy, by: Vec::new(), bucket: None, directory });
    }
    if let Some(max) = &max {
        errors.push(max.span(), "`max` bounds `dynamic` shard counts only");
        return None;
    }
    let strategy = match (hash, random, range) {
        (Some(n), None, None) => Strategy::Hash { shards: shard_count(&n, errors)? },
        (None, Some(n), None) => Strategy::Random { shards: shard_count(&n, errors)? },
        (None, None, Some(path)) => {
            let normalize = match &normalize {
                None => Normalize::NfkdLower,
                Some(name) => Normalize::parse(&name.value()).unwrap_or_else(|| {
                    errors.push(
                        name.span(),
                        "`normalize` is one of \"nfkd-lower\" (the default), \"lower\" or \"none\"",
                    );
                    Normalize::NfkdLower
                }),
            };
            let file = read_boundaries(&path, errors)?;
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
            Strategy::Range { path: file.path, boundaries: file.boundaries, normalize, overflow }
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
            let Some(width) = Bucket::parse(&bucket.value()) else {
                errors.push(bucket.span(), "`bucket` is one of \"minute\", \"hour\" or \"day\"");
                return None;
            };
            if matches!(strategy, Strategy::Range { .. }) {
                errors
                    .push(bucket.span(), "time buckets combine with `hash` or `random` shards, not `range`");
                return None;
            }
            Some((width, at))
        }
        _ => {
            errors.push_spanned(attr, "a time bucket needs both `bucket = \"hour\"` and `at = field`");
            return None;
        }
    };
    if let (Some(directory), None) = (directory, &bucket) {
        errors.push(directory, DIRECTORY_NEEDS_BUCKETS);
        return None;
    }
    let index = index.map_or_else(|| BASE_TABLE.to_owned(), |index| index.to_string());
    Some(Shard { attr: attr.clone(), index, strategy, by, bucket, directory })
}

const DIRECTORY_NEEDS_BUCKETS: &str = "a `directory` lists the time buckets that hold items: it needs \
     `bucket = \"hour\"` and `at = field`";

fn shard_count(literal: &LitInt, errors: &mut Errors) -> Option<u32> {
    match literal.base10_parse::<u64>() {
        Ok(count) if (1..=MAX_SHARDS).contains(&count) => Some(count as u32),
        _ => {
            errors.push(literal.span(), format!("a shard count is a whole number from 1 to {MAX_SHARDS}"));
            None
        }
    }
}
