//! `#[gsi(...)]` and `#[sparse_gsi(...)]`: how an entity fills an index of its table, with key
//! templates or with a list of its own fields; `#[lsi(...)]` and `#[sparse_lsi(...)]`: how it
//! fills a local index, with a sort key template (the partition key is the entity's own).

use crate::attr::{set_once, skip_value, unknown_key, value};
use crate::errors::Errors;
use crate::template::{self, Template};
use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Attribute, Ident, LitStr, Path};

/// How an entity fills one global secondary index of its table.
pub struct IndexMapping {
    /// The attribute, where errors about the whole mapping are reported.
    pub attr: Attribute,
    /// The index name, as declared on the table.
    pub name: String,
    /// The index name in the attribute, where mismatches with the table are reported.
    pub name_span: Span,
    pub pk: Template,
    pub sk: Option<Template>,
    /// Declared with `#[sparse_gsi]` or `#[sparse_lsi]`: the item is in the index only when it
    /// applies.
    pub sparse: bool,
    /// Declared with `#[lsi]` or `#[sparse_lsi]`: a local index, whose partition key is the
    /// entity's (`pk` is the entity's partition key template, filled in with the declaration).
    pub local: bool,
    /// A predicate `fn(&Self) -> bool` that decides whether a sparse index applies.
    pub when: Option<Path>,
    /// The name of the generated query method, when not `query_<index>`.
    pub method: Option<Ident>,
    /// Declared `added`: the mapping is new to an entity whose items exist, and its reads wait
    /// for the migration that gives every existing item its keys.
    pub added: bool,
}

/// How an entity fills an index keyed on its own attributes (a multi-attribute key):
/// `#[gsi(ByStatus(pk = [customer], sk = [status, placed_at]))]`.
pub struct NativeMapping {
    /// The attribute, where errors about the whole mapping are reported.
    pub attr: Attribute,
    pub name: String,
    /// The index name in the attribute, where mismatches with the table are reported.
    pub name_span: Span,
    pub pk: Vec<Ident>,
    pub sk: Vec<Ident>,
    pub sparse: bool,
    /// The name of the generated query method, when not `query_<index>`.
    pub method: Option<Ident>,
}

/// An index mapping as written: with key templates, or with attribute lists.
pub enum Mapping {
    Composed(IndexMapping),
    Native(NativeMapping),
}

impl IndexMapping {
    /// The attribute it is written with: `gsi`, `sparse_gsi`, `lsi` or `sparse_lsi`.
    pub fn kind(&self) -> &'static str {
        kind_name(self.sparse, self.local)
    }

    /// The name of the generated query method.
    pub fn query_method(&self) -> Ident {
        self.method.clone().unwrap_or_else(|| query_fn_name(&self.name))
    }
}

impl NativeMapping {
    /// The name of the generated query method.
    pub fn query_method(&self) -> Ident {
        self.method.clone().unwrap_or_else(|| query_fn_name(&self.name))
    }
}

const GSI_KEYS: &[&str] = &["pk", "sk", "method", "added"];
const SPARSE_GSI_KEYS: &[&str] = &["pk", "sk", "when", "method", "added"];
const LSI_KEYS: &[&str] = &["sk", "method"];
const SPARSE_LSI_KEYS: &[&str] = &["sk", "when", "method"];

/// Parses every index mapping attribute, in order.
pub fn parse(attrs: &[Attribute], errors: &mut Errors) -> Vec<Mapping> {
    attrs
        .iter()
        .filter_map(|attr| {
            let (sparse, local) = match attr.path().get_ident()?.to_string().as_str() {
                "gsi" => (false, false),
                "sparse_gsi" => (true, false),
                "lsi" => (false, true),
                "sparse_lsi" => (true, true),
                _ => return None,
            };
            parse_one(attr, (sparse, local), errors)
        })
        .collect()
}

/// The attribute's name, as written.
fn kind_name(sparse: bool, local: bool) -> &'static str {
    match (sparse, local) {
        (false, false) => "gsi",
        (true, false) => "sparse_gsi",
        (false, true) => "lsi",
        (true, true) => "sparse_lsi",
    }
}

/// The keys the attribute takes.
fn keys_of(sparse: bool, local: bool) -> &'static [&'static str] {
    match (sparse, local) {
        (false, false) => GSI_KEYS,
        (true, false) => SPARSE_GSI_KEYS,
        (false, true) => LSI_KEYS,
        (true, true) => SPARSE_LSI_KEYS,
    }
}

impl Mapping {
    /// The mapping, declared `added` when `added`.
    fn added(self, added: bool) -> Self {
        match self {
            Mapping::Composed(mapping) => Mapping::Composed(IndexMapping { added, ..mapping }),
            native => native,
        }
    }

    /// The index it maps.
    pub fn name(&self) -> &str {
        match self {
            Mapping::Composed(mapping) => &mapping.name,
            Mapping::Native(mapping) => &mapping.name,
        }
    }

    /// Its attribute.
    pub fn attr(&self) -> &Attribute {
        match self {
            Mapping::Composed(mapping) => &mapping.attr,
            Mapping::Native(mapping) => &mapping.attr,
        }
    }
}

/// Either a key template (`"album#{title}"`) or a list of fields (`[status, placed_at]`, with
/// the span of the brackets).
enum KeySpec {
    Template(LitStr),
    Fields(Vec<Ident>, Span),
}

fn key_spec(meta: &syn::meta::ParseNestedMeta) -> syn::Result<KeySpec> {
    let form = if meta.path.is_ident("pk") {
        "pk = \"album#{title}\"` or a field list `pk = [field, ...]"
    } else {
        "sk = \"{year}\"` or a field list `sk = [field, ...]"
    };
    let value = value(meta, "a key template", form)?;
    if value.peek(syn::token::Bracket) {
        let content;
        let brackets = syn::bracketed!(content in value);
        let list = content.parse_terminated(|input| input.parse::<Ident>(), syn::Token![,])?;
        Ok(KeySpec::Fields(list.into_iter().collect(), brackets.span.join()))
    } else {
        Ok(KeySpec::Template(value.parse()?))
    }
}

/// The keys one mapping attribute gave.
#[derive(Default)]
struct Given {
    pk: Option<KeySpec>,
    sk: Option<KeySpec>,
    when: Option<Path>,
    method: Option<Ident>,
    /// Where `added` was written, if it was.
    added: Option<Span>,
}

/// Reads one key of a mapping attribute into `given`.
fn read_key(
    meta: &syn::meta::ParseNestedMeta,
    given: &mut Given,
    (sparse, local): (bool, bool),
    errors: &mut Errors,
) -> syn::Result<()> {
    if meta.path.is_ident("pk") && local {
        errors.push_spanned(
            &meta.path,
            "a local index is keyed on the entity's own partition key: give only `sk = \"...\"`",
        );
        skip_value(meta)?;
    } else if meta.path.is_ident("pk") {
        set_once(errors, meta, &mut given.pk, key_spec(meta)?);
    } else if meta.path.is_ident("sk") {
        set_once(errors, meta, &mut given.sk, key_spec(meta)?);
    } else if meta.path.is_ident("method") {
        let text: LitStr = value(meta, "a method name", "method = \"query_by_title\"")?.parse()?;
        match syn::parse_str::<Ident>(&text.value()) {
            Ok(ident) => {
                set_once(errors, meta, &mut given.method, Ident::new(&ident.to_string(), text.span()))
            }
            Err(_) => errors.push(
                text.span(),
                format!("`{}` is not a method name; write e.g. `method = \"query_by_title\"`", text.value()),
            ),
        }
    } else if meta.path.is_ident("added") && local {
        errors.push_spanned(
            &meta.path,
            "a local index is created with its table and cannot be added to existing items; \
             map a global index with `#[gsi(...)]` instead",
        );
    } else if meta.path.is_ident("added") {
        if meta.input.peek(syn::Token![=]) || meta.input.peek(syn::token::Paren) {
            errors.push_spanned(&meta.path, "`added` takes no value: write `added` alone");
            skip_value(meta)?;
        } else if given.added.replace(meta.path.span()).is_some() {
            errors.push_spanned(&meta.path, "`added` is given twice");
        }
    } else if sparse && meta.path.is_ident("when") {
        let predicate = value(meta, "a predicate function", "when = path::to::predicate")?.parse()?;
        set_once(errors, meta, &mut given.when, predicate);
    } else if meta.path.is_ident("when") {
        errors.push_spanned(
            &meta.path,
            "`when` decides whether an item is in a sparse index; map the index with \
             `#[sparse_gsi(...)]` or `#[sparse_lsi(...)]` to use it",
        );
        skip_value(meta)?;
    } else {
        unknown_key(errors, meta, kind_name(sparse, local), keys_of(sparse, local))?;
    }
    Ok(())
}

/// The layout of a mapping attribute, as errors show it.
fn example(kind: &str, local: bool) -> String {
    match local {
        true => format!("#[{kind}(ByDate(sk = \"{{date}}\"))]"),
        false => format!("#[{kind}(ByTitle(pk = \"...\", sk = \"...\"))]"),
    }
}

fn parse_one(attr: &Attribute, (sparse, local): (bool, bool), errors: &mut Errors) -> Option<Mapping> {
    let kind = kind_name(sparse, local);
    let mut given = Given::default();
    let ident = crate::attr::named(attr, &example(kind, local), errors, |meta, errors| {
        read_key(meta, &mut given, (sparse, local), errors)
    })?;
    let (name, name_span) = (ident.to_string(), ident.span());
    let (when, method) = (given.when, given.method);
    let added = given.added.is_some();
    if local {
        let Some(KeySpec::Template(sk)) = given.sk else {
            errors.push_spanned(
                attr,
                format!("a local index needs a sort key template: `#[{kind}({name}(sk = \"...\"))]`"),
            );
            return None;
        };
        // The partition key template is the entity's, filled in with the declaration.
        let pk = LitStr::new("", sk.span());
        return composed(attr, (name, name_span), (&pk, Some(&sk)), (sparse, true), (when, method), errors);
    }
    let Some(pk) = given.pk else {
        errors.push_spanned(attr, format!("missing `pk = \"...\"` in `#[{kind}({name}(...))]`"));
        return None;
    };
    match (pk, given.sk) {
        (KeySpec::Template(pk), None) => {
            composed(attr, (name, name_span), (&pk, None), (sparse, false), (when, method), errors)
                .map(|mapping| mapping.added(added))
        }
        (KeySpec::Template(pk), Some(KeySpec::Template(sk))) => {
            composed(attr, (name, name_span), (&pk, Some(&sk)), (sparse, false), (when, method), errors)
                .map(|mapping| mapping.added(added))
        }
        (KeySpec::Fields(_, _), _) if added => {
            let span = given.added.unwrap_or(name_span);
            errors.push(
                span,
                "DynamoDB fills a multi-attribute index from the items' own attributes when the index \
                 is created: there is nothing to add to existing items; remove `added`",
            );
            None
        }
        (KeySpec::Fields(pk, pk_span), sk) => {
            native(attr, (name, name_span), (pk, pk_span), sk, (sparse, when, method), errors)
        }
        (KeySpec::Template(_), Some(KeySpec::Fields(_, span))) => {
            errors.push(span, "a template `pk = \"...\"` takes a template for `sk` too");
            None
        }
    }
}

/// A mapping onto a multi-attribute key: the entity's own fields, one to four of each.
fn native(
    attr: &Attribute,
    (name, name_span): (String, Span),
    (pk, pk_span): (Vec<Ident>, Span),
    sk: Option<KeySpec>,
    (sparse, when, method): (bool, Option<Path>, Option<Ident>),
    errors: &mut Errors,
) -> Option<Mapping> {
    let (sk, sk_span) = match sk {
        None => (Vec::new(), None),
        Some(KeySpec::Fields(sk, span)) => (sk, Some(span)),
        Some(KeySpec::Template(sk)) => {
            errors.push(sk.span(), "a multi-attribute `pk = [...]` takes a field list for `sk` too");
            return None;
        }
    };
    if let Some(when) = &when {
        errors.push_spanned(
            when,
            "`when` needs key templates: a multi-attribute key is the entity's own fields",
        );
        return None;
    }
    let mut valid = true;
    if pk.is_empty() || pk.len() > 4 {
        errors.push(pk_span, "a multi-attribute key has one to four partition fields");
        valid = false;
    }
    if let Some(sk_span) = sk_span.filter(|_| sk.len() > 4) {
        errors.push(sk_span, "a multi-attribute key has up to four sort fields");
        valid = false;
    }
    valid.then(|| {
        Mapping::Native(NativeMapping { attr: attr.clone(), name, name_span, pk, sk, sparse, method })
    })
}

fn composed(
    attr: &Attribute,
    (name, name_span): (String, Span),
    (pk, sk): (&LitStr, Option<&LitStr>),
    (sparse, local): (bool, bool),
    (when, method): (Option<Path>, Option<Ident>),
    errors: &mut Errors,
) -> Option<Mapping> {
    let pk = match local {
        true => template::Template { source: String::new(), pieces: Vec::new(), span: pk.span() },
        false => template::parse(pk).map_err(|e| errors.add(e)).ok()?,
    };
    let sk = match sk {
        Some(sk) => Some(template::parse(sk).map_err(|e| errors.add(e)).ok()?),
        None => None,
    };
    Some(Mapping::Composed(IndexMapping {
        attr: attr.clone(),
        name,
        name_span,
        pk,
        sk,
        sparse,
        local,
        when,
        method,
        added: false,
    }))
}

/// The identifier of the `query_*` entry point for an index name (`GSI1` -> `query_gsi1`,
/// `OpenOrders` -> `query_open_orders`).
pub fn query_fn_name(index: &str) -> Ident {
    quote::format_ident!("query_{}", crate::names::snake_case(index))
}
