//! The attributes of one `#[derive(Entity)]`, each parsed into typed values on its own: what an
//! attribute says, before anything is checked against the rest of the declaration.

mod boundaries_file;
mod entity;
mod fields;
mod mapping;
mod shard;

pub use entity::EntityAttr;
pub use fields::{FieldAttr, Timestamp};
pub use mapping::{IndexMapping, Mapping, NativeMapping};
pub use shard::{Bucket, Normalize, Shard, Strategy, BASE_TABLE};

use crate::errors::Errors;
use syn::DeriveInput;

/// Every attribute of the derive input.
pub struct Attrs {
    pub entity: EntityAttr,
    /// `None` (reported) when the input is not a struct with named fields.
    pub fields: Option<Vec<FieldAttr>>,
    /// `#[gsi(...)]` and `#[sparse_gsi(...)]`, in order.
    pub mappings: Vec<Mapping>,
    /// `#[shard(...)]`, in order.
    pub shards: Vec<Shard>,
}

impl Attrs {
    /// Parses every attribute, reporting each one that is malformed.
    pub fn parse(input: &DeriveInput, errors: &mut Errors) -> Self {
        if !input.generics.params.is_empty() {
            errors.push_spanned(&input.generics, "`Entity` cannot be derived for generic structs");
        }
        let entity = EntityAttr::parse(input, errors);
        let fields = fields::parse(input, errors);
        let mut mappings: Vec<Mapping> = Vec::new();
        for mapping in mapping::parse(&input.attrs, errors) {
            if mappings.iter().any(|known| known.name() == mapping.name()) {
                errors.push_spanned(mapping.attr(), format!("index `{}` is mapped twice", mapping.name()));
            } else {
                mappings.push(mapping);
            }
        }
        let mut shards: Vec<Shard> = Vec::new();
        for shard in shard::parse(&input.attrs, errors) {
            match shard.index.as_str() {
                index if shards.iter().all(|known| known.index != index) => shards.push(shard),
                BASE_TABLE => errors.push_spanned(&shard.attr, "the base table is sharded twice"),
                index => errors.push_spanned(&shard.attr, format!("index `{index}` is sharded twice")),
            }
        }
        Attrs { entity, fields, mappings, shards }
    }
}
