//! The struct's fields with what their attributes say: the name serde stores each under, and
//! `#[version]`.

use crate::errors::Errors;
use crate::serde_attrs;
use syn::{Attribute, Data, DeriveInput, Fields, Ident, Type};

/// One named field and its attributes.
pub struct FieldAttr {
    pub ident: Ident,
    pub ty: Type,
    /// The attribute name serde writes it under.
    pub attribute: String,
    /// Skipped or flattened by serde.
    pub no_attribute: bool,
    /// Its `#[version]` attribute, if it has one.
    pub version: Option<Attribute>,
}

/// The named fields, or `None` (reported) when the input is not a struct with named fields.
pub fn parse(input: &DeriveInput, errors: &mut Errors) -> Option<Vec<FieldAttr>> {
    let Data::Struct(data) = &input.data else {
        errors.push(input.ident.span(), "`Entity` can only be derived for structs with named fields");
        return None;
    };
    let Fields::Named(named) = &data.fields else {
        errors.push(input.ident.span(), "`Entity` can only be derived for structs with named fields");
        return None;
    };
    let rename_all = serde_attrs::rename_all(&input.attrs);
    let fields = named.named.iter().filter_map(|field| {
        let ident = field.ident.clone()?;
        let serde = serde_attrs::field(&field.attrs);
        let unraw = ident.to_string().trim_start_matches("r#").to_owned();
        let attribute = serde
            .rename
            .clone()
            .or_else(|| rename_all.as_deref().and_then(|rule| serde_attrs::apply_rename_all(rule, &unraw)))
            .unwrap_or(unraw);
        Some(FieldAttr {
            ident,
            ty: field.ty.clone(),
            attribute,
            no_attribute: serde.no_attribute,
            version: field.attrs.iter().find(|attr| attr.path().is_ident("version")).cloned(),
        })
    });
    Some(fields.collect())
}
