//! The attributes of one `#[derive(Table)]`, each parsed into typed values on its own:
//! `#[table(...)]` and every `#[gsi(Name(pk = ..., sk = ...))]`. A value of the wrong
//! form (a bad name, a zero capacity, a fifth key attribute) is reported here.

use crate::attr::{set_once, unknown_key, value};
use crate::door::{set_door, Door};
use crate::errors::Errors;
use syn::meta::ParseNestedMeta;
use syn::{DeriveInput, LitInt, LitStr};

pub use super::index_attr::{IndexAttr, Projection};
use super::values::{checked_name, units_per_second};
pub use super::values::{KeyAttr, ScalarKind, Text};

const TABLE_KEYS: &[&str] = &[
    "name",
    "pk",
    "sk",
    "type_attribute",
    "ttl",
    "stream",
    "deletion_protection",
    "tags",
    "read_capacity",
    "write_capacity",
    "shard_metadata",
    "point_in_time_recovery",
    "warm_reads",
    "warm_writes",
    "crate",
];

/// Provisioned capacity units.
pub struct Capacity {
    pub read: u64,
    pub write: u64,
}

/// What `#[table(...)]` says; a key that is missing or failed to parse is `None` (reported).
pub struct TableAttr {
    pub name: Option<Text>,
    pub pk: Option<Text>,
    pub sk: Option<Text>,
    pub type_attribute: Option<Text>,
    pub capacity: Option<Capacity>,
    pub shard_metadata: Option<Text>,
    /// The time-to-live attribute.
    pub ttl: Option<Text>,
    /// The stream view type, in DynamoDB's spelling (`NEW_AND_OLD_IMAGES`).
    pub stream: Option<String>,
    /// Whether deletion protection is on.
    pub deletion_protection: bool,
    /// Whether point-in-time recovery is on.
    pub point_in_time_recovery: bool,
    /// Warm throughput: read units per second.
    pub warm_reads: Option<u64>,
    /// Warm throughput: write units per second.
    pub warm_writes: Option<u64>,
    /// Tags, key and value.
    pub tags: Vec<(String, String)>,
    pub door: Door,
}

/// Every attribute of the derive input.
pub struct Attrs {
    pub table: TableAttr,
    pub indexes: Vec<IndexAttr>,
}

/// The keys of `#[table(...)]` as written.
#[derive(Default)]
struct Written {
    name: Option<LitStr>,
    pk: Option<LitStr>,
    sk: Option<LitStr>,
    type_attribute: Option<LitStr>,
    read: Option<LitInt>,
    write: Option<LitInt>,
    shard_metadata: Option<LitStr>,
    ttl: Option<LitStr>,
    stream: Option<LitStr>,
    deletion_protection: Option<()>,
    point_in_time_recovery: Option<()>,
    warm_reads: Option<LitInt>,
    warm_writes: Option<LitInt>,
    tags: Option<Vec<LitStr>>,
    door: Option<Door>,
}

impl Attrs {
    /// Parses every attribute, reporting each one that is malformed.
    pub fn parse(input: &DeriveInput, errors: &mut Errors) -> Self {
        if !input.generics.params.is_empty() {
            errors.push_spanned(&input.generics, "`Table` cannot be derived for generic types");
        }
        let mut written = Written::default();
        let (mut first, mut malformed) = (None, false);
        let mut indexes = Vec::new();
        for attr in &input.attrs {
            if attr.path().is_ident("table") {
                first.get_or_insert(attr);
                if let Err(error) = attr.parse_nested_meta(|meta| parse_key(&meta, &mut written, errors)) {
                    errors.add(error);
                    malformed = true;
                }
            } else if attr.path().is_ident("gsi") {
                indexes.extend(super::index_attr::parse(attr, false, errors));
            } else if attr.path().is_ident("lsi") {
                indexes.extend(super::index_attr::parse(attr, true, errors));
            }
        }
        match first {
            None => errors.push(input.ident.span(), "missing `#[table(pk = \"...\")]` attribute"),
            // A malformed attribute has its own error; a missing key would only repeat it.
            Some(attr) if written.pk.is_none() && !malformed => {
                errors.push_spanned(attr, "missing `pk = \"...\"` in `#[table(...)]`")
            }
            Some(_) => {}
        }
        let capacity = match (&written.read, &written.write) {
            (None, None) => None,
            (Some(read), Some(write)) => {
                Some(Capacity { read: positive(read, errors), write: positive(write, errors) })
            }
            // After a parse error the other key may just not have been read.
            (Some(_), None) | (None, Some(_)) if malformed => None,
            (Some(one), None) | (None, Some(one)) => {
                errors.push(
                    one.span(),
                    "give both `read_capacity` and `write_capacity` for a provisioned table",
                );
                None
            }
        };
        let table = TableAttr {
            name: written.name.map(|literal| checked_name(&literal, errors)),
            pk: written.pk.map(|literal| checked_attribute(&literal, errors)),
            sk: written.sk.map(|literal| checked_attribute(&literal, errors)),
            type_attribute: written.type_attribute.map(|literal| checked_attribute(&literal, errors)),
            capacity,
            shard_metadata: written.shard_metadata.map(|literal| checked_name(&literal, errors)),
            ttl: written.ttl.map(|literal| checked_attribute(&literal, errors)),
            stream: written.stream.and_then(|literal| stream_view(&literal, errors)),
            deletion_protection: written.deletion_protection.is_some(),
            point_in_time_recovery: written.point_in_time_recovery.is_some(),
            warm_reads: written.warm_reads.map(|literal| units_per_second(&literal, errors)),
            warm_writes: written.warm_writes.map(|literal| units_per_second(&literal, errors)),
            tags: written
                .tags
                .map(|tags| tags.iter().filter_map(|tag| tag_pair(tag, errors)).collect())
                .unwrap_or_default(),
            door: written.door.unwrap_or_default(),
        };
        Attrs { table, indexes }
    }
}

fn parse_key(meta: &ParseNestedMeta, written: &mut Written, errors: &mut Errors) -> syn::Result<()> {
    if meta.path.is_ident("name") {
        let value = value(meta, "a table name", "name = \"Music\"")?.parse()?;
        set_once(errors, meta, &mut written.name, value);
    } else if meta.path.is_ident("pk") {
        let value = value(meta, "an attribute name", "pk = \"pk\"")?.parse()?;
        set_once(errors, meta, &mut written.pk, value);
    } else if meta.path.is_ident("sk") {
        let value = value(meta, "an attribute name", "sk = \"sk\"")?.parse()?;
        set_once(errors, meta, &mut written.sk, value);
    } else if meta.path.is_ident("type_attribute") {
        let value = value(meta, "an attribute name", "type_attribute = \"_type\"")?.parse()?;
        set_once(errors, meta, &mut written.type_attribute, value);
    } else if meta.path.is_ident("ttl") {
        let value = value(meta, "an attribute name", "ttl = \"expires_at\"")?.parse()?;
        set_once(errors, meta, &mut written.ttl, value);
    } else if meta.path.is_ident("stream") {
        let value = value(meta, "a stream view", "stream = \"new_and_old_images\"")?.parse()?;
        set_once(errors, meta, &mut written.stream, value);
    } else if meta.path.is_ident("deletion_protection") {
        set_once(errors, meta, &mut written.deletion_protection, ());
    } else if meta.path.is_ident("point_in_time_recovery") {
        set_once(errors, meta, &mut written.point_in_time_recovery, ());
    } else if meta.path.is_ident("warm_reads") {
        let value = value(meta, "read units per second", "warm_reads = 12000")?.parse()?;
        set_once(errors, meta, &mut written.warm_reads, value);
    } else if meta.path.is_ident("warm_writes") {
        let value = value(meta, "write units per second", "warm_writes = 4000")?.parse()?;
        set_once(errors, meta, &mut written.warm_writes, value);
    } else if meta.path.is_ident("tags") {
        let list = value(meta, "a list of tags", "tags = [\"team=music\"]")?;
        let content;
        syn::bracketed!(content in list);
        let tags = content.parse_terminated(|input| input.parse::<LitStr>(), syn::Token![,])?;
        set_once(errors, meta, &mut written.tags, tags.into_iter().collect());
    } else if meta.path.is_ident("read_capacity") {
        let value = value(meta, "a number of capacity units", "read_capacity = 5")?.parse()?;
        set_once(errors, meta, &mut written.read, value);
    } else if meta.path.is_ident("write_capacity") {
        let value = value(meta, "a number of capacity units", "write_capacity = 5")?.parse()?;
        set_once(errors, meta, &mut written.write, value);
    } else if meta.path.is_ident("shard_metadata") {
        let value = value(meta, "a table name", "shard_metadata = \"ShardMetadata\"")?.parse()?;
        set_once(errors, meta, &mut written.shard_metadata, value);
    } else if meta.path.is_ident("crate") {
        set_door(errors, meta, &mut written.door)?;
    } else {
        unknown_key(errors, meta, "table", TABLE_KEYS)?;
    }
    Ok(())
}

/// `stream = "new_and_old_images"` (or `new_image`, `old_image`, `keys_only`), in DynamoDB's
/// spelling.
fn stream_view(literal: &LitStr, errors: &mut Errors) -> Option<String> {
    let view = literal.value().to_ascii_uppercase();
    if ["NEW_AND_OLD_IMAGES", "NEW_IMAGE", "OLD_IMAGE", "KEYS_ONLY"].contains(&view.as_str()) {
        return Some(view);
    }
    errors.push(
        literal.span(),
        format!(
            "unknown stream view `{}`: write \"new_and_old_images\", \"new_image\", \"old_image\" or \"keys_only\"",
            literal.value()
        ),
    );
    None
}

/// A tag written `"key=value"` (1 to 128 and 0 to 256 characters).
fn tag_pair(literal: &LitStr, errors: &mut Errors) -> Option<(String, String)> {
    let text = literal.value();
    match text.split_once('=') {
        Some((key, value)) if (1..=128).contains(&key.chars().count()) && value.chars().count() <= 256 => {
            Some((key.to_owned(), value.to_owned()))
        }
        _ => {
            errors.push(literal.span(), "a tag is written `\"key=value\"` (a key of 1 to 128 characters)");
            None
        }
    }
}

/// Attribute names: 1 to 255 bytes.
fn checked_attribute(literal: &LitStr, errors: &mut Errors) -> Text {
    let value = literal.value();
    if value.is_empty() || value.len() > 255 {
        errors.push(literal.span(), "key attribute names are 1 to 255 bytes long");
    }
    Text { value, span: literal.span() }
}

fn positive(literal: &LitInt, errors: &mut Errors) -> u64 {
    match literal.base10_parse::<u64>() {
        Ok(value) if value > 0 => value,
        _ => {
            errors.push(literal.span(), "capacity must be a positive integer");
            1
        }
    }
}
