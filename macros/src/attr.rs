//! Shared helpers for parsing `key = value` attribute lists.

use crate::errors::Errors;
use syn::meta::ParseNestedMeta;
use syn::parse::ParseStream;

/// Consumes the value of an attribute key we do not know, so parsing can go on.
pub fn skip_value(meta: &ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        meta.value()?.parse::<syn::Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        let content;
        syn::parenthesized!(content in meta.input);
        content.parse::<proc_macro2::TokenStream>()?;
    }
    Ok(())
}

/// Stores `value` in `slot`, reporting a duplicate key at `meta`'s path.
pub fn set_once<T>(errors: &mut Errors, meta: &ParseNestedMeta, slot: &mut Option<T>, value: T) {
    if slot.is_some() {
        let name = meta.path.get_ident().map(ToString::to_string).unwrap_or_default();
        errors.push_spanned(&meta.path, format!("duplicate attribute key `{name}`"));
    } else {
        *slot = Some(value);
    }
}

/// Reports an unknown key, naming the accepted ones, and skips its value.
pub fn unknown_key(
    errors: &mut Errors,
    meta: &ParseNestedMeta,
    attribute: &str,
    known: &[&str],
) -> syn::Result<()> {
    let name = meta.path.get_ident().map(ToString::to_string).unwrap_or_else(|| "?".into());
    errors.push_spanned(
        &meta.path,
        format!("unknown `{attribute}` attribute key `{name}`; expected one of: {}", known.join(", ")),
    );
    skip_value(meta)
}

/// The value of a `key = value` entry. A key written without `= value` is reported at the key,
/// saying what it `needs` and showing the `form` it takes, e.g. ``"`hash` needs a shard count:
/// `hash = 8`"``.
pub fn value<'a>(meta: &ParseNestedMeta<'a>, needs: &str, form: &str) -> syn::Result<ParseStream<'a>> {
    if meta.input.peek(syn::Token![=]) {
        return meta.value();
    }
    Err(missing_value(&meta.path, needs, form))
}

/// The error for a key written without its value.
pub fn missing_value(key: &syn::Path, needs: &str, form: &str) -> syn::Error {
    let name = key.get_ident().map(ToString::to_string).unwrap_or_else(|| "?".into());
    syn::Error::new_spanned(key, format!("`{name}` needs {needs}: `{form}`"))
}

/// Reads `#[kind(Name(key = value, ...))]`: one name with its keys in parentheses, the layout of
/// every attribute that describes a named index (so two indexes declared alike repeat no
/// argument path). Each key inside is read by `read`; the name is returned. `example` shows the
/// layout in the error for anything else (such as `#[gsi(Name, pk = ...)]`).
pub fn named(
    attr: &syn::Attribute,
    example: &str,
    errors: &mut Errors,
    mut read: impl FnMut(&ParseNestedMeta, &mut Errors) -> syn::Result<()>,
) -> Option<syn::Ident> {
    let mut name: Option<syn::Ident> = None;
    let mut misplaced = false;
    let result = attr.parse_nested_meta(|meta| {
        let ident = meta.path.get_ident().filter(|_| meta.input.peek(syn::token::Paren));
        match ident {
            Some(ident) if name.is_none() => {
                name = Some(ident.clone());
                inside(&meta, |inner| read(inner, errors))
            }
            Some(_) => {
                errors.push_spanned(&meta.path, format!("one index per attribute: `{example}`"));
                skip_value(&meta)
            }
            None => {
                if !misplaced {
                    errors.push_spanned(
                        &meta.path,
                        format!("write the index name with its keys in parentheses: `{example}`"),
                    );
                }
                misplaced = true;
                skip_value(&meta)
            }
        }
    });
    if let Err(error) = result {
        errors.add(error);
        return None;
    }
    if name.is_none() && !misplaced {
        errors.push_spanned(attr, format!("name the index, with its keys in parentheses: `{example}`"));
    }
    name.filter(|_| !misplaced)
}

/// Reads the keys in `meta`'s parentheses with `read`; unlike syn's `parse_nested_meta`, empty
/// parentheses are no keys rather than an error.
pub fn inside(
    meta: &ParseNestedMeta,
    mut read: impl FnMut(&ParseNestedMeta) -> syn::Result<()>,
) -> syn::Result<()> {
    let content;
    syn::parenthesized!(content in meta.input);
    let keys: proc_macro2::TokenStream = content.parse()?;
    syn::parse::Parser::parse2(syn::meta::parser(|inner| read(&inner)), keys)
}
