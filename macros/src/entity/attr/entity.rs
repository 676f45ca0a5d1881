//! `#[entity(table = ..., pk = "...", sk = "...", name = "...", crate = "...")]`.

use crate::attr::{set_once, unknown_key, value};
use crate::door::{set_door, Door};
use crate::errors::Errors;
use crate::template::{self, Template};
use syn::{DeriveInput, LitStr, Path};

const ENTITY_KEYS: &[&str] = &["table", "pk", "sk", "name", "crate"];

/// What `#[entity(...)]` says; a key that is missing or failed to parse is `None` (reported).
pub struct EntityAttr {
    pub table: Option<Path>,
    pub pk: Option<Template>,
    pub sk: Option<Template>,
    /// The entity-type attribute's value: `name = "..."`, else the struct's name.
    pub type_name: String,
    pub door: Door,
}

/// The keys as written, before templates are parsed.
#[derive(Default)]
struct Written {
    table: Option<Path>,
    pk: Option<LitStr>,
    sk: Option<LitStr>,
    name: Option<LitStr>,
    door: Option<Door>,
}

impl EntityAttr {
    /// Parses every `#[entity(...)]` of `input`.
    pub fn parse(input: &DeriveInput, errors: &mut Errors) -> Self {
        let mut written = Written::default();
        let mut first = None;
        let mut malformed = false;
        for attr in input.attrs.iter().filter(|attr| attr.path().is_ident("entity")) {
            first.get_or_insert(attr);
            if let Err(error) = attr.parse_nested_meta(|meta| parse_key(&meta, &mut written, errors)) {
                errors.add(error);
                malformed = true;
            }
        }
        match first {
            None => {
                errors.push(input.ident.span(), "missing `#[entity(table = ..., pk = \"...\")]` attribute")
            }
            // A malformed attribute has its own error; missing keys would only repeat it.
            Some(attr) if !malformed => {
                if written.table.is_none() {
                    errors.push_spanned(attr, "missing `table = ...` in `#[entity(...)]`");
                }
                if written.pk.is_none() {
                    errors.push_spanned(attr, "missing `pk = \"...\"` in `#[entity(...)]`");
                }
            }
            Some(_) => {}
        }
        let mut template = |literal: Option<LitStr>| {
            literal.and_then(|literal| template::parse(&literal).map_err(|error| errors.add(error)).ok())
        };
        let (pk, sk) = (template(written.pk), template(written.sk));
        if let Some(name) = written.name.as_ref().filter(|name| name.value().is_empty()) {
            errors.push(name.span(), "the entity `name` cannot be empty");
        }
        EntityAttr {
            table: written.table,
            pk,
            sk,
            type_name: written.name.map_or_else(|| input.ident.to_string(), |name| name.value()),
            door: written.door.unwrap_or_default(),
        }
    }
}

fn parse_key(
    meta: &syn::meta::ParseNestedMeta,
    written: &mut Written,
    errors: &mut Errors,
) -> syn::Result<()> {
    if meta.path.is_ident("table") {
        let value = value(meta, "the table type", "table = MyTable")?;
        if value.peek(LitStr) {
            let literal: LitStr = value.parse()?;
            let message =
                format!("`table` takes the table type, not a string: `table = {}`", literal.value());
            return Err(syn::Error::new(literal.span(), message));
        }
        let path: Path = value.parse()?;
        set_once(errors, meta, &mut written.table, path);
    } else if meta.path.is_ident("pk") {
        let value: LitStr = value(meta, "a key template", "pk = \"{id}\"")?.parse()?;
        set_once(errors, meta, &mut written.pk, value);
    } else if meta.path.is_ident("sk") {
        let value: LitStr = value(meta, "a key template", "sk = \"item#{id}\"")?.parse()?;
        set_once(errors, meta, &mut written.sk, value);
    } else if meta.path.is_ident("name") {
        let value: LitStr = value(meta, "an entity-type name", "name = \"Album\"")?.parse()?;
        set_once(errors, meta, &mut written.name, value);
    } else if meta.path.is_ident("crate") {
        set_door(errors, meta, &mut written.door)?;
    } else {
        unknown_key(errors, meta, "entity", ENTITY_KEYS)?;
    }
    Ok(())
}
