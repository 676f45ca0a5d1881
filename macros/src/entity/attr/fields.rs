//! The struct's fields with what their attributes say: the name serde stores each under, and
//! `#[version]`.

use crate::errors::Errors;
use crate::serde_attrs;
use syn::{Attribute, DeriveInput, Ident, Type};

/// One named field and its attributes.
pub struct FieldAttr {
    pub ident: Ident,
    pub ty: Type,
    /// The attribute name serde writes it under.
    pub attribute: String,
    /// Skipped or flattened by serde.
    pub no_attribute: bool,
    /// Flattened by serde.
    pub flatten: bool,
    /// `#[serde(default)]`: optional on read.
    pub serde_default: bool,
    /// Its `#[version]` attribute, if it has one.
    pub version: Option<Attribute>,
    /// Its `#[ttl]` attribute, if it has one.
    pub ttl: Option<Attribute>,
    /// Stored through `#[serde(with = "...")]`.
    pub serde_with: bool,
}

/// The named fields, or `None` (reported) when the input is not a struct with named fields.
pub fn parse(input: &DeriveInput, errors: &mut Errors) -> Option<Vec<FieldAttr>> {
    let fields = serde_attrs::named_fields(input, "Entity", errors)?;
    let fields = fields.into_iter().map(|named| FieldAttr {
        ident: named.ident,
        ty: named.field.ty.clone(),
        attribute: named.attribute,
        no_attribute: named.serde.no_attribute,
        flatten: named.serde.flatten,
        serde_default: named.serde.default,
        version: named.field.attrs.iter().find(|attr| attr.path().is_ident("version")).cloned(),
        ttl: named.field.attrs.iter().find(|attr| attr.path().is_ident("ttl")).cloned(),
        serde_with: named.serde.with,
    });
    Some(fields.collect())
}
