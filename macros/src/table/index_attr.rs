//! `#[gsi(Name(pk = ..., sk = ..., projection = ...))]` and `#[lsi(Name(sk = ..., projection =
//! ...))]`: the indexes a table declares (`name = "..."` inside gives a DynamoDB name that is not
//! a Rust identifier).

use super::values::{checked_name, units_per_second, KeyAttr, ScalarKind, Text};
use crate::attr::{set_once, unknown_key, value};
use crate::errors::Errors;
use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::{Attribute, LitInt, LitStr};

const GSI_KEYS: &[&str] = &["name", "pk", "sk", "projection", "warm_reads", "warm_writes"];
const LSI_KEYS: &[&str] = &["name", "sk", "projection"];

/// One `#[gsi(...)]` or `#[lsi(...)]` of the table.
pub struct IndexAttr {
    /// The attribute, where errors about the whole index are reported.
    pub attr: Attribute,
    pub name: Text,
    /// Declared with `#[lsi(...)]`: keyed on the table's partition key and a sort key of its own.
    pub local: bool,
    /// One to four partition key attributes (none as written for a local index: the table's).
    pub pk: Vec<KeyAttr>,
    /// Up to four sort key attributes.
    pub sk: Vec<KeyAttr>,
    /// The attributes it copies besides the keys.
    pub projection: Projection,
    /// Warm throughput of a global index: read and write units per second, if declared.
    pub warm: (Option<u64>, Option<u64>),
}

/// `projection = "all"` (the default), `"keys_only"`, or `["a", "b"]` (the keys and these).
pub enum Projection {
    All,
    KeysOnly,
    Include(Vec<String>),
}

/// DynamoDB's limit of non-key attributes an index projection names.
const MAX_INCLUDED: usize = 100;

/// The key attributes of an index as written, with the span of the value.
struct AttributeList {
    attributes: Vec<LitStr>,
    span: Span,
}

/// Parses one `#[gsi(...)]` (or, `local`, `#[lsi(...)]`).
pub fn parse(attr: &Attribute, local: bool, errors: &mut Errors) -> Option<IndexAttr> {
    let kind = if local { "lsi" } else { "gsi" };
    let example = match local {
        true => "#[lsi(ByDate(sk = \"date\"))]",
        false => "#[gsi(ByTitle(pk = \"gsi1pk\", sk = \"gsi1sk\"))]",
    };
    let mut name: Option<LitStr> = None;
    let (mut pk, mut sk): (Option<AttributeList>, Option<AttributeList>) = (None, None);
    let mut projection: Option<Projection> = None;
    let (mut warm_reads, mut warm_writes): (Option<LitInt>, Option<LitInt>) = (None, None);
    let ident = crate::attr::named(attr, example, errors, |meta, errors| {
        if meta.path.is_ident("name") {
            let value = value(meta, "the index's name in DynamoDB", "name = \"by-title\"")?.parse()?;
            set_once(errors, meta, &mut name, value);
        } else if meta.path.is_ident("projection") {
            let value = parse_projection(meta, errors)?;
            set_once(errors, meta, &mut projection, value);
        } else if meta.path.is_ident("pk") && !local {
            let value = attribute_list(meta)?;
            set_once(errors, meta, &mut pk, value);
        } else if meta.path.is_ident("sk") {
            let value = attribute_list(meta)?;
            set_once(errors, meta, &mut sk, value);
        } else if meta.path.is_ident("warm_reads") && !local {
            let value = value(meta, "read units per second", "warm_reads = 12000")?.parse()?;
            set_once(errors, meta, &mut warm_reads, value);
        } else if meta.path.is_ident("warm_writes") && !local {
            let value = value(meta, "write units per second", "warm_writes = 4000")?.parse()?;
            set_once(errors, meta, &mut warm_writes, value);
        } else {
            unknown_key(errors, meta, kind, if local { LSI_KEYS } else { GSI_KEYS })?;
        }
        Ok(())
    })?;
    // The name in DynamoDB: the identifier, unless `name` gives one that is not an identifier.
    let name = name.unwrap_or_else(|| LitStr::new(&ident.to_string(), ident.span()));
    if local {
        return local_index(attr, name, sk, projection, errors);
    }
    let Some(pk) = pk else {
        errors.push_spanned(attr, format!("a `#[gsi(...)]` needs `pk = \"...\"`: `{example}`"));
        return None;
    };
    if pk.attributes.is_empty() {
        errors.push(pk.span, "an index needs a partition key attribute");
    } else if pk.attributes.len() > 4 {
        errors.push(pk.span, "an index key has up to four partition key attributes");
    }
    if let Some(sk) = sk.as_ref().filter(|sk| sk.attributes.len() > 4) {
        errors.push(sk.span, "an index key has up to four sort key attributes");
    }
    let sk = sk.map(|sk| sk.attributes).unwrap_or_default();
    let name = checked_name(&name, errors);
    let warm = (
        warm_reads.map(|literal| units_per_second(&literal, errors)),
        warm_writes.map(|literal| units_per_second(&literal, errors)),
    );
    Some(IndexAttr {
        attr: attr.clone(),
        local: false,
        warm,
        name,
        pk: pk.attributes.iter().map(|literal| key_attribute(literal, errors)).collect(),
        sk: sk.iter().map(|literal| key_attribute(literal, errors)).collect(),
        projection: projection.unwrap_or(Projection::All),
    })
}

/// `projection = "all"`, `"keys_only"` or `["a", "b"]`.
fn parse_projection(meta: &ParseNestedMeta, errors: &mut Errors) -> syn::Result<Projection> {
    let form = "projection = \"keys_only\"` or `projection = [\"title\", \"year\"]";
    let value = value(meta, "a projection", form)?;
    if value.peek(syn::token::Bracket) {
        let content;
        let brackets = syn::bracketed!(content in value);
        let list = content.parse_terminated(|input| input.parse::<LitStr>(), syn::Token![,])?;
        let names: Vec<String> = list.iter().map(LitStr::value).collect();
        if names.is_empty() {
            errors.push(
                brackets.span.join(),
                "list the attributes to include, or write `projection = \"keys_only\"`",
            );
        } else if names.len() > MAX_INCLUDED {
            errors.push(
                brackets.span.join(),
                format!("an index projection includes at most {MAX_INCLUDED} attributes"),
            );
        }
        for literal in &list {
            if literal.value().is_empty() || literal.value().len() > 255 {
                errors.push(literal.span(), "attribute names are 1 to 255 bytes long");
            }
        }
        return Ok(Projection::Include(names));
    }
    let literal: LitStr = value.parse()?;
    match literal.value().as_str() {
        "all" | "ALL" => Ok(Projection::All),
        "keys_only" | "KEYS_ONLY" => Ok(Projection::KeysOnly),
        other => {
            errors.push(
                literal.span(),
                format!("unknown projection `{other}`: write \"all\", \"keys_only\" or a list of attributes to include"),
            );
            Ok(Projection::All)
        }
    }
}

/// `"name"` or `["a", "b:N", ...]`.
fn attribute_list(meta: &ParseNestedMeta) -> syn::Result<AttributeList> {
    let form = if meta.path.is_ident("pk") {
        "pk = \"gsi1pk\"` or `pk = [\"a\", \"b:N\"]"
    } else {
        "sk = \"gsi1sk\"` or `sk = [\"a\", \"b:N\"]"
    };
    let value = value(meta, "an attribute name or a list of them", form)?;
    if value.peek(syn::token::Bracket) {
        let content;
        let brackets = syn::bracketed!(content in value);
        let list = content.parse_terminated(|input| input.parse::<LitStr>(), syn::Token![,])?;
        Ok(AttributeList { attributes: list.into_iter().collect(), span: brackets.span.join() })
    } else {
        let literal: LitStr = value.parse()?;
        Ok(AttributeList { span: literal.span(), attributes: vec![literal] })
    }
}

/// `"name"` (a string attribute) or `"name:S"`, `"name:N"`, `"name:B"`.
fn key_attribute(literal: &LitStr, errors: &mut Errors) -> KeyAttr {
    let text = literal.value();
    let (name, kind) = match text.rsplit_once(':') {
        Some((name, "S")) => (name.to_owned(), ScalarKind::String),
        Some((name, "N")) => (name.to_owned(), ScalarKind::Number),
        Some((name, "B")) => (name.to_owned(), ScalarKind::Binary),
        Some((_, kind)) => {
            errors.push(
                literal.span(),
                format!("`:{kind}` is not a key attribute type: write `:S` (string, the default), `:N` (number) or `:B` (binary)"),
            );
            (text.clone(), ScalarKind::String)
        }
        None => (text.clone(), ScalarKind::String),
    };
    if name.is_empty() || name.len() > 255 {
        errors.push(literal.span(), "key attribute names are 1 to 255 bytes long");
    }
    KeyAttr { name, kind }
}

/// A local index: a name, one sort key attribute, a projection; its partition key is the
/// table's, filled in with the declaration.
fn local_index(
    attr: &Attribute,
    name: LitStr,
    sk: Option<AttributeList>,
    projection: Option<Projection>,
    errors: &mut Errors,
) -> Option<IndexAttr> {
    let Some(sk) = sk else {
        errors.push_spanned(
            attr,
            "a `#[lsi(...)]` needs `sk = \"...\"`: it shares the table's partition key (`#[lsi(ByDate(sk = \"date\"))]`)",
        );
        return None;
    };
    if sk.attributes.len() != 1 {
        errors.push(sk.span, "a local index has one sort key attribute");
    }
    let sk_literal = sk.attributes.first();
    let name = checked_name(&name, errors);
    let sk: Vec<KeyAttr> =
        sk.attributes.iter().take(1).map(|literal| key_attribute(literal, errors)).collect();
    if let Some(literal) = sk.first().filter(|key| key.kind != ScalarKind::String).and(sk_literal) {
        errors.push(
            literal.span(),
            "a local index's sort key is written from a key template, as a string: declare it `sk = \"name\"`",
        );
    }
    Some(IndexAttr {
        attr: attr.clone(),
        local: true,
        warm: (None, None),
        name,
        pk: Vec::new(),
        sk,
        projection: projection.unwrap_or(Projection::All),
    })
}
