//! The validated model of one `#[derive(Table)]`.

use crate::attr::{set_once, unknown_key, value};
use crate::door::{set_door, Door};
use crate::errors::Errors;
use proc_macro2::Span;
use syn::{Attribute, DeriveInput, Ident, LitInt, LitStr};

/// A global secondary index declaration.
pub struct IndexModel {
    pub name: String,
    /// The associated constant naming it (`BY_TITLE` for `ByTitle`).
    pub constant: Ident,
    /// Partition key attributes and their kinds (`String`, `Number`, `Binary`): one, or up to
    /// four for a multi-attribute key.
    pub pk: Vec<(String, &'static str)>,
    /// Sort key attributes and their kinds: none, one, or up to four.
    pub sk: Vec<(String, &'static str)>,
}

/// Capacity for a provisioned table.
pub struct Capacity {
    pub read: u64,
    pub write: u64,
}

/// A checked table declaration.
pub struct TableModel {
    pub ident: Ident,
    pub name: String,
    pub pk: String,
    pub sk: Option<String>,
    pub type_attribute: String,
    pub indexes: Vec<IndexModel>,
    pub capacity: Option<Capacity>,
    /// The shard metadata table every `Db` writing this table consults.
    pub shard_metadata: Option<String>,
    /// Where generated code finds the runtime.
    pub door: Door,
}

const TABLE_KEYS: &[&str] =
    &["name", "pk", "sk", "type_attribute", "read_capacity", "write_capacity", "shard_metadata", "crate"];
const GSI_KEYS: &[&str] = &["name", "pk", "sk"];

#[derive(Default)]
struct TableArgs {
    name: Option<LitStr>,
    pk: Option<LitStr>,
    sk: Option<LitStr>,
    type_attribute: Option<LitStr>,
    read: Option<LitInt>,
    write: Option<LitInt>,
    shard_metadata: Option<LitStr>,
    door: Option<Door>,
    /// The first `#[table(...)]` attribute, where a missing `pk` is reported.
    attr: Option<Attribute>,
    /// An attribute failed to parse; its error is reported, so missing keys are not.
    malformed: bool,
}

impl TableModel {
    /// Parses and checks the derive input, reporting every problem at once.
    pub fn from_input(input: &DeriveInput) -> syn::Result<Self> {
        let mut errors = Errors::default();
        if !input.generics.params.is_empty() {
            errors.push_spanned(&input.generics, "`Table` cannot be derived for generic types");
        }
        let mut args = TableArgs::default();
        let mut indexes = Vec::new();
        for attr in &input.attrs {
            if attr.path().is_ident("table") {
                if args.attr.is_none() {
                    args.attr = Some(attr.clone());
                }
                parse_table_attr(attr, &mut args, &mut errors);
            } else if attr.path().is_ident("gsi") {
                if let Some(index) = parse_gsi_attr(attr, &mut errors) {
                    if indexes.iter().any(|known: &IndexModel| known.name == index.name) {
                        errors.push_spanned(attr, format!("duplicate index name `{}`", index.name));
                    } else if let Some(known) = indexes.iter().find(|known| known.constant == index.constant)
                    {
                        errors.push_spanned(
                            attr,
                            format!(
                                "indexes `{}` and `{}` would both be named `{}::{}`; rename one",
                                known.name, index.name, input.ident, index.constant
                            ),
                        );
                    } else if index.constant == "DEFINITION" || index.constant == "DEFINITION_REF" {
                        errors.push_spanned(
                            attr,
                            format!(
                                "index `{}` would be named like `Table::{}`; rename it",
                                index.name, index.constant
                            ),
                        );
                    }
                    indexes.push(index);
                }
            }
        }
        if args.attr.is_none() {
            errors.push(input.ident.span(), "missing `#[table(pk = \"...\")]` attribute");
        }
        let name = match &args.name {
            Some(literal) => checked_name(literal, 3, &mut errors),
            None => input.ident.to_string(),
        };
        let pk = match &args.pk {
            Some(literal) => checked_attribute(literal, &mut errors),
            None => {
                // A missing or malformed attribute has its own error.
                if let Some(attr) = args.attr.as_ref().filter(|_| !args.malformed) {
                    errors.push_spanned(attr, "missing `pk = \"...\"` in `#[table(...)]`");
                }
                String::new()
            }
        };
        let sk = args.sk.as_ref().map(|literal| checked_attribute(literal, &mut errors));
        if sk.as_deref() == Some(pk.as_str()) {
            errors
                .push(args.sk.as_ref().map_or(Span::call_site(), LitStr::span), "`sk` must differ from `pk`");
        }
        let type_attribute = match &args.type_attribute {
            Some(literal) => checked_attribute(literal, &mut errors),
            None => "_type".to_owned(),
        };
        if type_attribute == pk || Some(&type_attribute) == sk.as_ref() {
            match &args.type_attribute {
                Some(literal) => {
                    errors.push(literal.span(), "`type_attribute` must differ from the key attributes")
                }
                None => {
                    let key = if type_attribute == pk { &args.pk } else { &args.sk };
                    errors.push(
                        key.as_ref().map_or(input.ident.span(), LitStr::span),
                        format!(
                            "`{type_attribute}` is the default `type_attribute`; name the key attribute \
                             differently or set `type_attribute = \"...\"`"
                        ),
                    );
                }
            }
        }
        let capacity = match (&args.read, &args.write) {
            (None, None) => None,
            (Some(read), Some(write)) => {
                Some(Capacity { read: positive(read, &mut errors), write: positive(write, &mut errors) })
            }
            // After a parse error the other key may just not have been read.
            (Some(_), None) | (None, Some(_)) if args.malformed => None,
            (Some(one), None) | (None, Some(one)) => {
                errors.push(
                    one.span(),
                    "give both `read_capacity` and `write_capacity` for a provisioned table",
                );
                None
            }
        };
        let shard_metadata =
            args.shard_metadata.as_ref().map(|literal| checked_name(literal, 3, &mut errors));
        if shard_metadata.as_ref() == Some(&name) {
            if let Some(literal) = &args.shard_metadata {
                errors.push(literal.span(), "the shard metadata table must be another table than this one");
            }
        }
        errors.finish(TableModel {
            ident: input.ident.clone(),
            name,
            pk,
            sk,
            type_attribute,
            indexes,
            capacity,
            shard_metadata,
            door: args.door.unwrap_or_default(),
        })
    }
}

fn parse_table_attr(attr: &syn::Attribute, args: &mut TableArgs, errors: &mut Errors) {
    let result = attr.parse_nested_meta(|meta| {
        if meta.path.is_ident("name") {
            let value = value(&meta, "a table name", "name = \"Music\"")?.parse()?;
            set_once(errors, &meta, &mut args.name, value);
        } else if meta.path.is_ident("pk") {
            let value = value(&meta, "an attribute name", "pk = \"pk\"")?.parse()?;
            set_once(errors, &meta, &mut args.pk, value);
        } else if meta.path.is_ident("sk") {
            let value = value(&meta, "an attribute name", "sk = \"sk\"")?.parse()?;
            set_once(errors, &meta, &mut args.sk, value);
        } else if meta.path.is_ident("type_attribute") {
            let value = value(&meta, "an attribute name", "type_attribute = \"_type\"")?.parse()?;
            set_once(errors, &meta, &mut args.type_attribute, value);
        } else if meta.path.is_ident("read_capacity") {
            let value = value(&meta, "a number of capacity units", "read_capacity = 5")?.parse()?;
            set_once(errors, &meta, &mut args.read, value);
        } else if meta.path.is_ident("write_capacity") {
            let value = value(&meta, "a number of capacity units", "write_capacity = 5")?.parse()?;
            set_once(errors, &meta, &mut args.write, value);
        } else if meta.path.is_ident("shard_metadata") {
            let value = value(&meta, "a table name", "shard_metadata = \"ShardMetadata\"")?.parse()?;
            set_once(errors, &meta, &mut args.shard_metadata, value);
        } else if meta.path.is_ident("crate") {
            set_door(errors, &meta, &mut args.door)?;
        } else {
            unknown_key(errors, &meta, "table", TABLE_KEYS)?;
        }
        Ok(())
    });
    if let Err(error) = result {
        errors.add(error);
        args.malformed = true;
    }
}

fn parse_gsi_attr(attr: &syn::Attribute, errors: &mut Errors) -> Option<IndexModel> {
    let mut name: Option<LitStr> = None;
    let (mut pk, mut sk): (Option<AttributeList>, Option<AttributeList>) = (None, None);
    let result = attr.parse_nested_meta(|meta| {
        if meta.path.is_ident("name") {
            let value = value(&meta, "an index name", "name = \"GSI1\"")?.parse()?;
            set_once(errors, &meta, &mut name, value);
        } else if meta.path.is_ident("pk") {
            let value = attribute_list(&meta)?;
            set_once(errors, &meta, &mut pk, value);
        } else if meta.path.is_ident("sk") {
            let value = attribute_list(&meta)?;
            set_once(errors, &meta, &mut sk, value);
        } else {
            unknown_key(errors, &meta, "gsi", GSI_KEYS)?;
        }
        Ok(())
    });
    if let Err(error) = result {
        errors.add(error);
        return None;
    }
    let (Some(name), Some(pk)) = (name, pk) else {
        errors.push_spanned(attr, "a `#[gsi(...)]` needs `name = \"...\"` and `pk = \"...\"`");
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
    let (pk, sk) = (pk.attributes, sk.map(|sk| sk.attributes).unwrap_or_default());
    let name = checked_name(&name, 3, errors);
    Some(IndexModel {
        constant: Ident::new(&crate::names::constant_case(&name), Span::call_site()),
        name,
        pk: pk.iter().map(|literal| key_attribute(literal, errors)).collect(),
        sk: sk.iter().map(|literal| key_attribute(literal, errors)).collect(),
    })
}

/// The key attributes of an index as written, with the span of the value.
struct AttributeList {
    attributes: Vec<LitStr>,
    span: Span,
}

/// `"name"` or `["a", "b:N", ...]`.
fn attribute_list(meta: &syn::meta::ParseNestedMeta) -> syn::Result<AttributeList> {
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
fn key_attribute(literal: &LitStr, errors: &mut Errors) -> (String, &'static str) {
    let text = literal.value();
    let (name, kind) = match text.rsplit_once(':') {
        Some((name, "S")) => (name.to_owned(), "String"),
        Some((name, "N")) => (name.to_owned(), "Number"),
        Some((name, "B")) => (name.to_owned(), "Binary"),
        Some((_, kind)) => {
            errors.push(
                literal.span(),
                format!("`:{kind}` is not a key attribute type: write `:S` (string, the default), `:N` (number) or `:B` (binary)"),
            );
            (text.clone(), "String")
        }
        None => (text.clone(), "String"),
    };
    if name.is_empty() || name.len() > 255 {
        errors.push(literal.span(), "key attribute names are 1 to 255 bytes long");
    }
    (name, kind)
}

/// Table and index names: 3 to 255 characters of `a-z A-Z 0-9 _ - .`.
fn checked_name(literal: &LitStr, min: usize, errors: &mut Errors) -> String {
    let name = literal.value();
    let valid_chars = name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if name.len() < min || name.len() > 255 || !valid_chars {
        errors.push(
            literal.span(),
            "table and index names are 3 to 255 characters of a-z, A-Z, 0-9, `_`, `-` and `.`",
        );
    }
    name
}

fn checked_attribute(literal: &LitStr, errors: &mut Errors) -> String {
    let name = literal.value();
    if name.is_empty() || name.len() > 255 {
        errors.push(literal.span(), "key attribute names are 1 to 255 bytes long");
    }
    name
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
