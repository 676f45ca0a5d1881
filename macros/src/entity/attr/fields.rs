//! The struct's fields with what their attributes say: the name serde stores each under, and
//! `#[version]`.

use crate::errors::Errors;
use crate::serde_attrs;
use syn::{Attribute, DeriveInput, Ident, Type};

/// Which time dynashard writes into a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Timestamp {
    /// `#[created_at]`: the time of the item's first write.
    Created,
    /// `#[updated_at]`: the time of every write.
    Updated,
}

impl Timestamp {
    /// The attribute as written on the field.
    pub fn attribute(self) -> &'static str {
        match self {
            Timestamp::Created => "#[created_at]",
            Timestamp::Updated => "#[updated_at]",
        }
    }
}

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
    /// Its `#[created_at]` or `#[updated_at]` attribute, if it has one.
    pub timestamp: Option<(Timestamp, Attribute)>,
    /// Its `#[serde(...)]` attributes, as written.
    pub serde_attrs: Vec<Attribute>,
    /// Renamed by its own `#[serde(rename = "...")]`.
    pub renamed: bool,
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
        timestamp: timestamp(&named.field.attrs, errors),
        serde_attrs: named.field.attrs.iter().filter(|attr| attr.path().is_ident("serde")).cloned().collect(),
        renamed: named.serde.rename.is_some(),
        serde_with: named.serde.with,
    });
    Some(fields.collect())
}

/// The field's `#[created_at]` or `#[updated_at]` attribute; both on one field, or either with
/// arguments, is reported.
fn timestamp(attrs: &[Attribute], errors: &mut Errors) -> Option<(Timestamp, Attribute)> {
    let mut found: Option<(Timestamp, Attribute)> = None;
    for attr in attrs {
        let kind = if attr.path().is_ident("created_at") {
            Timestamp::Created
        } else if attr.path().is_ident("updated_at") {
            Timestamp::Updated
        } else {
            continue;
        };
        if !matches!(attr.meta, syn::Meta::Path(_)) {
            errors.push_spanned(attr, format!("`{}` takes no arguments", kind.attribute()));
        }
        match &found {
            Some(_) => {
                errors.push_spanned(attr, "a field can be `#[created_at]` or `#[updated_at]`, not both")
            }
            None => found = Some((kind, attr.clone())),
        }
    }
    found
}
