//! The declaration of one entity, put together from its parsed attributes: the struct with its
//! fields, its key templates, index mappings and shards. Checked by `check`, expanded by
//! `expand`; neither changes it.

pub use super::attr::Timestamp;
use super::attr::{Attrs, IndexMapping, Mapping, NativeMapping, Shard, BASE_TABLE};
use crate::door::Door;
use crate::template::Template;
use crate::types::option_inner;
use syn::{Attribute, DeriveInput, Ident, Path, Type, Visibility};

/// One struct field.
pub struct Field {
    pub ident: Ident,
    pub ty: Type,
    /// The attribute name serde writes it under.
    pub attribute: String,
    /// Skipped or flattened by serde.
    pub no_attribute: bool,
    /// Flattened by serde: its attributes are not known.
    pub flatten: bool,
    /// `#[serde(default)]`: a missing attribute reads as the default.
    pub serde_default: bool,
    /// Its `#[version]` attribute, if it has one.
    pub version: Option<Attribute>,
    /// Its `#[ttl]` attribute, if it has one.
    pub ttl: Option<Attribute>,
    /// Its `#[created_at]` or `#[updated_at]` attribute, if it has one.
    pub timestamp: Option<(Timestamp, Attribute)>,
    /// Its `#[serde(...)]` attributes, as written.
    pub serde_attrs: Vec<Attribute>,
    /// Renamed by its own `#[serde(rename = "...")]`.
    pub renamed: bool,
    /// Stored through `#[serde(with = "...")]`.
    pub serde_with: bool,
    /// Named in the primary key's templates.
    pub is_key: bool,
}

impl Field {
    /// Whether it is the `#[version]` field.
    pub fn is_version(&self) -> bool {
        self.version.is_some()
    }

    /// Which time dynashard writes into it, if any.
    pub fn timestamp(&self) -> Option<Timestamp> {
        self.timestamp.as_ref().map(|(kind, _)| *kind)
    }
}

/// An entity declaration.
pub struct Entity {
    pub ident: Ident,
    pub vis: Visibility,
    pub table: Path,
    pub pk: Template,
    pub sk: Option<Template>,
    pub type_name: String,
    pub fields: Vec<Field>,
    pub indexes: Vec<IndexMapping>,
    pub native_indexes: Vec<NativeMapping>,
    pub shards: Vec<Shard>,
    /// Where generated code finds the runtime.
    pub door: Door,
}

/// A template field of an index mapping, with the type its key part has.
pub struct IndexField<'a> {
    pub field: &'a Field,
    /// The field's type, or the `T` of an `Option<T>` field in a sparse index.
    pub key_type: &'a Type,
    pub optional: bool,
}

impl Entity {
    /// The declaration, or `None` when the attributes lack a part every entity has (the table,
    /// the partition key, named fields), which parsing has reported.
    pub fn new(input: &DeriveInput, attrs: Attrs) -> Option<Self> {
        let Attrs { entity, fields, mappings, shards } = attrs;
        let (table, pk, fields) = (entity.table?, entity.pk?, fields?);
        let sk = entity.sk;
        let in_key =
            |name: &Ident| pk.fields().chain(sk.iter().flat_map(Template::fields)).any(|key| name == key);
        let fields = fields
            .into_iter()
            .map(|field| Field {
                is_key: in_key(&field.ident),
                ident: field.ident,
                ty: field.ty,
                attribute: field.attribute,
                no_attribute: field.no_attribute,
                flatten: field.flatten,
                serde_default: field.serde_default,
                version: field.version,
                ttl: field.ttl,
                timestamp: field.timestamp,
                serde_attrs: field.serde_attrs,
                renamed: field.renamed,
                serde_with: field.serde_with,
            })
            .collect();
        let (mut indexes, mut native_indexes) = (Vec::new(), Vec::new());
        for mapping in mappings {
            match mapping {
                Mapping::Composed(mut mapping) => {
                    if mapping.local {
                        mapping.pk = Template { span: mapping.pk.span, ..pk.clone() };
                    }
                    indexes.push(mapping)
                }
                Mapping::Native(mapping) => native_indexes.push(mapping),
            }
        }
        Some(Entity {
            ident: input.ident.clone(),
            vis: input.vis.clone(),
            table,
            pk,
            sk,
            type_name: entity.type_name,
            fields,
            indexes,
            native_indexes,
            shards,
            door: entity.door,
        })
    }

    /// Key fields in the order the key builder takes them: first appearance in pk, then sk.
    pub fn key_fields(&self) -> Vec<&Field> {
        let mut order: Vec<&str> = Vec::new();
        for name in self.pk.fields().chain(self.sk.iter().flat_map(Template::fields)) {
            if !order.contains(&name) {
                order.push(name);
            }
        }
        order.iter().filter_map(|name| self.field(name)).collect()
    }

    /// The field named `name`.
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|field| field.ident == name)
    }

    /// The shard strategy of the base table's partition key, if it is sharded.
    pub fn table_shard(&self) -> Option<&Shard> {
        self.shard_of(BASE_TABLE)
    }

    /// The shard strategy of index `name`, if it is sharded.
    pub fn shard_of(&self, name: &str) -> Option<&Shard> {
        self.shards.iter().find(|shard| shard.index == name)
    }

    /// The `#[created_at]` or `#[updated_at]` field, if any.
    pub fn timestamp_field(&self, kind: Timestamp) -> Option<&Field> {
        self.fields.iter().find(|field| field.timestamp() == Some(kind))
    }

    /// The `#[version]` field, if any.
    pub fn version_field(&self) -> Option<&Field> {
        self.fields.iter().find(|field| field.is_version())
    }

    /// The distinct template fields of `mapping`, pk first, in order of appearance (for a local
    /// index, whose partition key is the item's own, the sort key's only).
    pub fn index_fields(&self, mapping: &IndexMapping) -> Vec<IndexField<'_>> {
        let mut seen: Vec<&str> = Vec::new();
        let pk = mapping.pk.fields().filter(|_| !mapping.local);
        for name in pk.chain(mapping.sk.iter().flat_map(Template::fields)) {
            if !seen.contains(&name) {
                seen.push(name);
            }
        }
        seen.iter()
            .filter_map(|name| self.field(name))
            .map(|field| match option_inner(&field.ty) {
                Some(inner) => IndexField { field, key_type: inner, optional: true },
                None => IndexField { field, key_type: &field.ty, optional: false },
            })
            .collect()
    }
}
