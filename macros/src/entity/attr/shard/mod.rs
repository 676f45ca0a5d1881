//! `#[shard(...)]`: the strategy that spreads an index's partition over several shards.
//!
//! Without an index name, the strategy shards the base table's partition key; only hash shards
//! by a key field are allowed there, so a key builder can always compute an item's shard.
//!
//! ```text
//! #[shard(hash = 8, by = id)]                  // the base table
//! #[shard(GSI1(hash = 21, by = title))]
//! #[shard(GSI1(random = 10))]
//! #[shard(GSI1(range = "boundaries/albums.json", by = title, normalize = "nfkd-lower"))]
//! ```

mod given;

use super::boundaries_file::{read_boundaries, MAX_SHARDS};
use crate::errors::Errors;
use given::Given;
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
    /// Whether the count is kept in the shard metadata (puts read it; updates cannot).
    pub fn is_dynamic(&self) -> bool {
        matches!(self, Strategy::Dynamic { .. })
    }

    /// Whether the index is sorted by the normalized value of its one `by` field, which routes
    /// it (range shards): the index stores its own sort key, not the template's.
    pub fn sorts_by_value(&self) -> bool {
        matches!(self, Strategy::Range { .. })
    }

    /// Whether equal `by` values name one shard that a query can compute (hash shards).
    pub fn routes_by_equality(&self) -> bool {
        matches!(self, Strategy::Hash { .. })
    }

    /// The number of shards.
    pub fn shards(&self) -> u32 {
        match self {
            Strategy::Hash { shards } | Strategy::Random { shards } => *shards,
            Strategy::Dynamic { max } => *max,
            Strategy::Range { boundaries, .. } => boundaries.len() as u32,
        }
    }
}

/// The default most shards of a dynamic count.
const DEFAULT_DYNAMIC_MAX: u32 = 64;

/// Parses every `#[shard(...)]`, in order.
pub fn parse(attrs: &[Attribute], errors: &mut Errors) -> Vec<Shard> {
    attrs
        .iter()
        .filter(|attr| attr.path().is_ident("shard"))
        .filter_map(|attr| parse_one(attr, errors))
        .collect()
}

/// Parses one `#[shard(...)]`.
fn parse_one(attr: &Attribute, errors: &mut Errors) -> Option<Shard> {
    let mut given = Given::read(attr, errors)?;
    let index = given.index.take().map_or_else(|| BASE_TABLE.to_owned(), |index| index.to_string());
    let strategies = given.strategies();
    if given.dynamic && strategies.len() == 1 {
        return dynamic(attr, index, &given, errors);
    }
    if let Some(max) = &given.max {
        errors.push(max.span(), "`max` bounds `dynamic` shard counts only");
        return None;
    }
    let strategy = strategy(attr, &mut given, &strategies, errors)?;
    let by = by(attr, &strategy, given.by.take().unwrap_or_default(), errors)?;
    let bucket = bucket(attr, &strategy, given.bucket.take(), given.at.take(), errors)?;
    if let (Some(directory), None) = (given.directory, &bucket) {
        errors.push(directory, DIRECTORY_NEEDS_BUCKETS);
        return None;
    }
    Some(Shard { attr: attr.clone(), index, strategy, by, bucket, directory: given.directory })
}

/// A dynamic count's shard, once `given` names no other strategy.
fn dynamic(attr: &Attribute, index: String, given: &Given, errors: &mut Errors) -> Option<Shard> {
    if let Some(by) = given.by.as_ref().and_then(|by| by.first()) {
        errors.push(by.span(), "dynamic shards do not use `by`: every write picks a shard at random");
        return None;
    }
    if let Some(bucket) = &given.bucket {
        errors.push(bucket.span(), "time buckets combine with `hash` or `random` shards, not `dynamic`");
        return None;
    }
    let max = match &given.max {
        None => DEFAULT_DYNAMIC_MAX,
        Some(literal) => shard_count(literal, errors)?,
    };
    if let Some(directory) = given.directory {
        errors.push(directory, DIRECTORY_NEEDS_BUCKETS);
        return None;
    }
    let strategy = Strategy::Dynamic { max };
    Some(Shard { attr: attr.clone(), index, strategy, by: Vec::new(), bucket: None, directory: None })
}

/// The one strategy of `given` other than `dynamic`, with its options checked.
fn strategy(
    attr: &Attribute,
    given: &mut Given,
    strategies: &[String],
    errors: &mut Errors,
) -> Option<Strategy> {
    let strategy = match (given.hash.take(), given.random.take(), given.range.take()) {
        (Some(n), None, None) => Strategy::Hash { shards: shard_count(&n, errors)? },
        (None, Some(n), None) => Strategy::Random { shards: shard_count(&n, errors)? },
        (None, None, Some(path)) => range(&path, given, errors)?,
        (None, None, None) => {
            errors.push_spanned(
                attr,
                "`#[shard(...)]` needs a strategy: `hash = N`, `random = N`, `range = \"file.json\"` or `dynamic`",
            );
            return None;
        }
        _ => {
            let found = format!("found {}: {}", strategies.len(), strategies.join(", "));
            errors.push_spanned(attr, format!("`#[shard(...)]` takes exactly one strategy, {found}"));
            return None;
        }
    };
    if let (Some(literal), false) = (&given.overflow, matches!(strategy, Strategy::Range { .. })) {
        errors.push(
            literal.span(),
            "`overflow` spreads hot values of `range` shards; hash and random shards spread already",
        );
        return None;
    }
    if given.normalize.is_some() && !matches!(strategy, Strategy::Range { .. }) {
        errors.push_spanned(&given.normalize, "`normalize` applies to `range` shards only");
    }
    Some(strategy)
}

/// Range shards cut by the boundaries file at `path`, with `given`'s normalization and overflow.
fn range(path: &LitStr, given: &Given, errors: &mut Errors) -> Option<Strategy> {
    let normalize = match &given.normalize {
        None => Normalize::NfkdLower,
        Some(name) => Normalize::parse(&name.value()).unwrap_or_else(|| {
            errors.push(
                name.span(),
                "`normalize` is one of \"nfkd-lower\" (the default), \"lower\" or \"none\"",
            );
            Normalize::NfkdLower
        }),
    };
    let file = read_boundaries(path, errors)?;
    let overflow = match &given.overflow {
        None => 1,
        Some(literal) => match literal.base10_parse::<u32>() {
            Ok(count) if (2..=64).contains(&count) => count,
            _ => {
                errors.push(literal.span(), "`overflow` is a number of sub-shards from 2 to 64");
                return None;
            }
        },
    };
    Some(Strategy::Range { path: file.path, boundaries: file.boundaries, normalize, overflow })
}

/// The fields that pick the shard, checked against the strategy.
fn by(attr: &Attribute, strategy: &Strategy, by: Vec<Ident>, errors: &mut Errors) -> Option<Vec<Ident>> {
    match (strategy, by.first()) {
        (Strategy::Random { .. }, Some(by)) => {
            errors.push(by.span(), "random shards do not use `by`: every write picks a shard at random");
            None
        }
        (Strategy::Hash { .. } | Strategy::Range { .. }, None) => {
            errors.push_spanned(
                attr,
                "hash and range shards need `by = field`: the field whose value picks the shard",
            );
            None
        }
        (Strategy::Range { .. }, Some(_)) if by.len() > 1 => {
            errors
                .push(by[1].span(), "range shards route by one field: its normalized value picks the shard");
            None
        }
        _ => Some(by),
    }
}

/// The time bucket, when both `bucket` and `at` are given; `Some(None)` when neither is.
fn bucket(
    attr: &Attribute,
    strategy: &Strategy,
    bucket: Option<LitStr>,
    at: Option<Ident>,
    errors: &mut Errors,
) -> Option<Option<(Bucket, Ident)>> {
    match (bucket, at) {
        (None, None) => Some(None),
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
            Some(Some((width, at)))
        }
        _ => {
            errors.push_spanned(attr, "a time bucket needs both `bucket = \"hour\"` and `at = field`");
            None
        }
    }
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
