//! The declaration of one table, put together from its parsed attributes, with the defaults of
//! every key not given. Checked by `check`, expanded by `expand`; neither changes it.

use super::attr::{Attrs, Capacity, IndexAttr, KeyAttr, ScalarKind, Text};
use crate::door::Door;
use proc_macro2::Span;
use syn::{DeriveInput, Ident};

/// The entity-type attribute when none is given.
const DEFAULT_TYPE_ATTRIBUTE: &str = "_type";

/// A table declaration.
pub struct Table {
    pub ident: Ident,
    pub name: Text,
    pub pk: Text,
    pub sk: Option<Text>,
    /// The attribute holding each item's entity type, and whether it was given.
    pub type_attribute: String,
    pub type_attribute_given: Option<Span>,
    pub indexes: Vec<Index>,
    pub capacity: Option<Capacity>,
    /// The shard metadata table every `Db` writing this table consults.
    pub shard_metadata: Option<Text>,
    /// The time-to-live attribute, enabled by `create_table`.
    pub ttl: Option<Text>,
    /// The stream view type, when the table has a stream.
    pub stream: Option<String>,
    /// Whether deletion protection is on.
    pub deletion_protection: bool,
    /// Whether point-in-time recovery is on.
    pub point_in_time_recovery: bool,
    /// Warm throughput: read and write units per second.
    pub warm_throughput: Option<(Option<u64>, Option<u64>)>,
    /// Tags, key and value.
    pub tags: Vec<(String, String)>,
    /// Where generated code finds the runtime.
    pub door: Door,
}

/// A global or local secondary index, with the associated constant naming it.
pub struct Index {
    pub gsi: IndexAttr,
    /// `BY_TITLE` for `ByTitle`.
    pub constant: Ident,
}

impl Table {
    /// The declaration, or `None` when it has no partition key (reported while parsing).
    pub fn new(input: &DeriveInput, attrs: Attrs) -> Option<Self> {
        let Attrs { table, indexes } = attrs;
        let name =
            table.name.unwrap_or_else(|| Text { value: input.ident.to_string(), span: input.ident.span() });
        let (type_attribute, type_attribute_given) = match table.type_attribute {
            Some(text) => (text.value, Some(text.span)),
            None => (DEFAULT_TYPE_ATTRIBUTE.to_owned(), None),
        };
        let pk = table.pk?;
        let indexes = indexes
            .into_iter()
            .map(|mut gsi| {
                if gsi.local {
                    gsi.pk = vec![KeyAttr { name: pk.value.clone(), kind: ScalarKind::String }];
                }
                gsi
            })
            .map(|gsi| Index {
                constant: Ident::new(&crate::names::constant_case(&gsi.name.value), Span::call_site()),
                gsi,
            })
            .collect();
        Some(Table {
            ident: input.ident.clone(),
            name,
            pk,
            sk: table.sk,
            type_attribute,
            type_attribute_given,
            indexes,
            capacity: table.capacity,
            shard_metadata: table.shard_metadata,
            ttl: table.ttl,
            stream: table.stream,
            deletion_protection: table.deletion_protection,
            point_in_time_recovery: table.point_in_time_recovery,
            warm_throughput: (table.warm_reads.is_some() || table.warm_writes.is_some())
                .then_some((table.warm_reads, table.warm_writes)),
            tags: table.tags,
            door: table.door,
        })
    }
}
