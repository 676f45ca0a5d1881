//! Parsing and checking an entity's index mappings: `#[gsi(...)]` and `#[sparse_gsi(...)]`.

use super::model::{is_wide_integer, option_inner, unkeyable_type, FieldModel, WIDE_INTEGER};
use crate::attr::{set_once, skip_value, unknown_key, value};
use crate::errors::Errors;
use crate::template::{self, Template};
use proc_macro2::Span;
use syn::{Attribute, Ident, LitStr, Path, Type};

/// How an entity fills one global secondary index of its table.
pub struct IndexMappingModel {
    /// The index name, as declared on the table.
    pub name: String,
    /// The index name in the attribute, where mismatches with the table are reported.
    pub name_span: Span,
    pub pk: Template,
    pub sk: Option<Template>,
    /// Declared with `#[sparse_gsi]`: the item is in the index only when it applies.
    pub sparse: bool,
    /// A predicate `fn(&Self) -> bool` that decides whether a sparse index applies.
    pub when: Option<Path>,
    /// The name of the generated query method, when not `query_<index>`.
    pub method: Option<Ident>,
}

/// How an entity fills an index keyed on its own attributes (a multi-attribute key):
/// `#[gsi(ByStatus, pk = [customer], sk = [status, placed_at])]`.
pub struct NativeMappingModel {
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
    Composed(IndexMappingModel),
    Native(NativeMappingModel),
}

/// A template field of an index mapping, with the type its key part has.
pub struct IndexField<'a> {
    pub field: &'a FieldModel,
    /// The field's type, or the `T` of an `Option<T>` field in a sparse index.
    pub key_type: &'a Type,
    pub optional: bool,
}

impl IndexMappingModel {
    /// The name of the generated query method.
    pub fn query_method(&self) -> Ident {
        self.method.clone().unwrap_or_else(|| query_fn_name(&self.name))
    }

    /// The distinct template fields, pk first, in order of appearance.
    pub fn fields<'a>(&self, fields: &'a [FieldModel]) -> Vec<IndexField<'a>> {
        let mut seen: Vec<&str> = Vec::new();
        for name in self.pk.fields().chain(self.sk.iter().flat_map(Template::fields)) {
            if !seen.contains(&name) {
                seen.push(name);
            }
        }
        seen.iter()
            .filter_map(|name| fields.iter().find(|field| field.ident == name))
            .map(|field| match option_inner(&field.ty) {
                Some(inner) => IndexField { field, key_type: inner, optional: true },
                None => IndexField { field, key_type: &field.ty, optional: false },
            })
            .collect()
    }
}

impl NativeMappingModel {
    /// The name of the generated query method.
    pub fn query_method(&self) -> Ident {
        self.method.clone().unwrap_or_else(|| query_fn_name(&self.name))
    }
}

const GSI_KEYS: &[&str] = &["pk", "sk", "method"];
const SPARSE_GSI_KEYS: &[&str] = &["pk", "sk", "when", "method"];

/// Parses every index mapping attribute; `fields` is `None` when the struct has no named fields.
pub fn parse(
    attrs: &[Attribute],
    fields: Option<&[FieldModel]>,
    errors: &mut Errors,
) -> (Vec<IndexMappingModel>, Vec<NativeMappingModel>) {
    let mut composed: Vec<IndexMappingModel> = Vec::new();
    let mut native: Vec<NativeMappingModel> = Vec::new();
    for attr in attrs {
        let sparse = attr.path().is_ident("sparse_gsi");
        if !sparse && !attr.path().is_ident("gsi") {
            continue;
        }
        let Some(mapping) = parse_one(attr, sparse, errors) else { continue };
        let name = match &mapping {
            Mapping::Composed(mapping) => mapping.name.clone(),
            Mapping::Native(mapping) => mapping.name.clone(),
        };
        if composed.iter().any(|known| known.name == name) || native.iter().any(|known| known.name == name) {
            errors.push_spanned(attr, format!("index `{name}` is mapped twice"));
            continue;
        }
        match mapping {
            Mapping::Composed(mapping) => {
                if let Some(fields) = fields {
                    for template in std::iter::once(&mapping.pk).chain(&mapping.sk) {
                        check_fields(&mapping, template, fields, errors);
                    }
                }
                composed.push(mapping);
            }
            Mapping::Native(mapping) => {
                if let Some(fields) = fields {
                    check_native_fields(&mapping, fields, errors);
                }
                native.push(mapping);
            }
        }
    }
    check_methods(&composed, &native, errors);
    (composed, native)
}

/// Two mappings cannot generate the same query method, nor one named like the base query.
fn check_methods(composed: &[IndexMappingModel], native: &[NativeMappingModel], errors: &mut Errors) {
    let span = |method: &Option<Ident>, name_span: Span| method.as_ref().map_or(name_span, Ident::span);
    let methods = composed
        .iter()
        .map(|mapping| (mapping.query_method(), &mapping.name, span(&mapping.method, mapping.name_span)))
        .chain(native.iter().map(|mapping| {
            (mapping.query_method(), &mapping.name, span(&mapping.method, mapping.name_span))
        }));
    let mut seen: Vec<(Ident, &String)> = Vec::new();
    for (method, index, span) in methods {
        if method == "query" {
            errors.push(span, "`query` is the base table's query method; name this one otherwise");
        } else if let Some((_, other)) = seen.iter().find(|(known, _)| *known == method) {
            errors.push(
                span,
                format!("the mappings of `{other}` and `{index}` both generate `{method}`; rename one with `method = \"...\"`"),
            );
        }
        seen.push((method, index));
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

fn check_native_fields(mapping: &NativeMappingModel, fields: &[FieldModel], errors: &mut Errors) {
    for ident in mapping.pk.iter().chain(&mapping.sk) {
        let Some(field) = fields.iter().find(|field| &field.ident == ident) else {
            errors.push(
                ident.span(),
                format!("unknown field `{ident}` in the key of index `{}`", mapping.name),
            );
            continue;
        };
        if field.no_attribute {
            errors.push(ident.span(), format!("index field `{ident}` is skipped or flattened by serde"));
        }
        if field.is_version {
            errors.push(
                ident.span(),
                format!("the `#[version]` field `{ident}` cannot be part of an index key"),
            );
        }
        if option_inner(&field.ty).is_some() && !mapping.sparse {
            errors.push_spanned(
                &field.ty,
                format!(
                    "field `{ident}` is optional; map index `{}` with `#[sparse_gsi(...)]` so items \
                     without it stay out of the index",
                    mapping.name
                ),
            );
        }
        let key_type = option_inner(&field.ty).unwrap_or(&field.ty);
        if is_wide_integer(key_type) {
            errors.push_spanned(
                key_type,
                format!(
                    "field `{ident}` cannot be part of an index key: {WIDE_INTEGER}; multi-attribute key \
                     fields must be `String` or an integer type up to 64 bits"
                ),
            );
        }
    }
}

fn parse_one(attr: &Attribute, sparse: bool, errors: &mut Errors) -> Option<Mapping> {
    let kind = if sparse { "sparse_gsi" } else { "gsi" };
    let mut name: Option<(String, Span)> = None;
    let (mut pk, mut sk): (Option<KeySpec>, Option<KeySpec>) = (None, None);
    let mut when: Option<Path> = None;
    let mut method: Option<Ident> = None;
    let mut malformed = false;
    let result = attr.parse_nested_meta(|meta| {
        let is_bare = !meta.input.peek(syn::Token![=]) && !meta.input.peek(syn::token::Paren);
        // `pk` and `sk` are too short to be index names: written bare, they miss their value.
        let is_key = meta.path.is_ident("pk") || meta.path.is_ident("sk");
        if is_bare && !is_key && name.is_none() && pk.is_none() && sk.is_none() {
            if let Some(ident) = meta.path.get_ident() {
                name = Some((ident.to_string(), ident.span()));
                return Ok(());
            }
        }
        if meta.path.is_ident("pk") {
            let value = key_spec(&meta)?;
            set_once(errors, &meta, &mut pk, value);
        } else if meta.path.is_ident("sk") {
            let value = key_spec(&meta)?;
            set_once(errors, &meta, &mut sk, value);
        } else if meta.path.is_ident("method") {
            let text: LitStr = value(&meta, "a method name", "method = \"query_by_title\"")?.parse()?;
            match syn::parse_str::<Ident>(&text.value()) {
                Ok(ident) => {
                    set_once(errors, &meta, &mut method, Ident::new(&ident.to_string(), text.span()))
                }
                Err(_) => errors.push(
                    text.span(),
                    format!(
                        "`{}` is not a method name; write e.g. `method = \"query_by_title\"`",
                        text.value()
                    ),
                ),
            }
        } else if sparse && meta.path.is_ident("when") {
            let value = value(&meta, "a predicate function", "when = path::to::predicate")?.parse()?;
            set_once(errors, &meta, &mut when, value);
        } else if meta.path.is_ident("when") {
            errors.push_spanned(
                &meta.path,
                "`when` decides whether an item is in a sparse index; map the index with \
                 `#[sparse_gsi(...)]` to use it",
            );
            skip_value(&meta)?;
        } else {
            unknown_key(errors, &meta, kind, if sparse { SPARSE_GSI_KEYS } else { GSI_KEYS })?;
        }
        Ok(())
    });
    if let Err(error) = result {
        errors.add(error);
        malformed = true;
    }
    if malformed {
        return None;
    }
    let Some((name, name_span)) = name else {
        errors.push_spanned(
            attr,
            format!("`#[{kind}(...)]` starts with the index name, e.g. `#[{kind}(GSI1, pk = \"...\")]`"),
        );
        return None;
    };
    let Some(pk) = pk else {
        errors.push_spanned(attr, format!("missing `pk = \"...\"` in `#[{kind}({name}, ...)]`"));
        return None;
    };
    match (pk, sk) {
        (KeySpec::Template(pk), None) => {
            composed((name, name_span), (&pk, None), sparse, (when, method), errors)
        }
        (KeySpec::Template(pk), Some(KeySpec::Template(sk))) => {
            composed((name, name_span), (&pk, Some(&sk)), sparse, (when, method), errors)
        }
        (KeySpec::Fields(pk, pk_span), sk) => {
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
            valid.then_some(Mapping::Native(NativeMappingModel { name, name_span, pk, sk, sparse, method }))
        }
        (KeySpec::Template(_), Some(KeySpec::Fields(_, span))) => {
            errors.push(span, "a template `pk = \"...\"` takes a template for `sk` too");
            None
        }
    }
}

fn composed(
    (name, name_span): (String, Span),
    (pk, sk): (&LitStr, Option<&LitStr>),
    sparse: bool,
    (when, method): (Option<Path>, Option<Ident>),
    errors: &mut Errors,
) -> Option<Mapping> {
    let pk = template::parse(pk).map_err(|e| errors.add(e)).ok()?;
    let sk = match sk {
        Some(sk) => Some(template::parse(sk).map_err(|e| errors.add(e)).ok()?),
        None => None,
    };
    Some(Mapping::Composed(IndexMappingModel { name, name_span, pk, sk, sparse, when, method }))
}

fn check_fields(
    mapping: &IndexMappingModel,
    template: &Template,
    fields: &[FieldModel],
    errors: &mut Errors,
) {
    for name in template.fields() {
        let Some(field) = fields.iter().find(|field| field.ident == name) else {
            let known: Vec<String> = fields.iter().map(|f| format!("`{}`", f.ident)).collect();
            errors.push(
                template.span,
                format!(
                    "unknown field `{name}` in key template `{}`; fields: {}",
                    template.source,
                    known.join(", ")
                ),
            );
            continue;
        };
        if field.no_attribute {
            errors.push(template.span, format!("index field `{name}` is skipped or flattened by serde"));
        }
        if field.is_version {
            errors.push(
                template.span,
                format!("the `#[version]` field `{name}` cannot be part of an index key"),
            );
        }
        let key_type = match option_inner(&field.ty) {
            Some(inner) if mapping.sparse => inner,
            Some(_) => {
                errors.push_spanned(
                    &field.ty,
                    format!(
                        "field `{name}` is optional; map index `{}` with `#[sparse_gsi(...)]` so items \
                         without it stay out of the index",
                        mapping.name
                    ),
                );
                continue;
            }
            None => &field.ty,
        };
        if let Some(reason) = unkeyable_type(key_type) {
            errors.push_spanned(key_type, format!("field `{name}` cannot be part of an index key: {reason}"));
        }
    }
}

/// The identifier of the `query_*` entry point for an index name (`GSI1` -> `query_gsi1`,
/// `OpenOrders` -> `query_open_orders`).
pub fn query_fn_name(index: &str) -> Ident {
    quote::format_ident!("query_{}", crate::names::snake_case(index))
}
