//! Reading the serde attributes that change attribute names: `rename`, `rename_all`, `skip`,
//! `flatten`. Anything else is left to serde, which reports its own errors.

use syn::meta::ParseNestedMeta;
use syn::{Attribute, LitStr};

/// What serde does with one field.
#[derive(Debug, Default, Clone)]
pub struct SerdeField {
    pub rename: Option<String>,
    /// Skipped or flattened: the field has no attribute of its own.
    pub no_attribute: bool,
}

/// Reads `#[serde(rename_all = "...")]` from a container.
pub fn rename_all(attrs: &[Attribute]) -> Option<String> {
    let mut rule = None;
    for_each_serde_meta(attrs, |meta| {
        if meta.path.is_ident("rename_all") {
            if meta.input.peek(syn::Token![=]) {
                rule = Some(meta.value()?.parse::<LitStr>()?.value());
            } else {
                meta.parse_nested_meta(|inner| {
                    let value = inner.value()?.parse::<LitStr>()?.value();
                    if inner.path.is_ident("serialize") {
                        rule = Some(value);
                    }
                    Ok(())
                })?;
            }
            return Ok(());
        }
        skip_value(meta)
    });
    rule
}

/// Reads the serde attributes of a field.
pub fn field(attrs: &[Attribute]) -> SerdeField {
    let mut field = SerdeField::default();
    for_each_serde_meta(attrs, |meta| {
        if meta.path.is_ident("rename") {
            if meta.input.peek(syn::Token![=]) {
                field.rename = Some(meta.value()?.parse::<LitStr>()?.value());
            } else {
                meta.parse_nested_meta(|inner| {
                    let value = inner.value()?.parse::<LitStr>()?.value();
                    if inner.path.is_ident("serialize") {
                        field.rename = Some(value);
                    }
                    Ok(())
                })?;
            }
            return Ok(());
        }
        if ["skip", "skip_serializing", "flatten"].iter().any(|name| meta.path.is_ident(name)) {
            field.no_attribute = true;
        }
        skip_value(meta)
    });
    field
}

fn for_each_serde_meta(attrs: &[Attribute], mut visit: impl FnMut(ParseNestedMeta) -> syn::Result<()>) {
    for attr in attrs.iter().filter(|attr| attr.path().is_ident("serde")) {
        // Malformed serde attributes are serde's to report.
        let _ = attr.parse_nested_meta(&mut visit);
    }
}

fn skip_value(meta: ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        meta.value()?.parse::<syn::Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        let _ = meta.parse_nested_meta(skip_value);
    }
    Ok(())
}

/// Applies a serde `rename_all` rule to a field name.
pub fn apply_rename_all(rule: &str, field: &str) -> Option<String> {
    let words: Vec<&str> = field.split('_').filter(|w| !w.is_empty()).collect();
    let capitalize = |w: &str| {
        let mut chars = w.chars();
        chars.next().map(|c| c.to_uppercase().collect::<String>() + chars.as_str()).unwrap_or_default()
    };
    Some(match rule {
        "lowercase" => field.to_lowercase(),
        "UPPERCASE" => field.to_uppercase(),
        "PascalCase" => words.iter().map(|w| capitalize(w)).collect(),
        "camelCase" => {
            let pascal: String = words.iter().map(|w| capitalize(w)).collect();
            let mut chars = pascal.chars();
            chars.next().map(|c| c.to_lowercase().collect::<String>() + chars.as_str()).unwrap_or_default()
        }
        "snake_case" => field.to_owned(),
        "SCREAMING_SNAKE_CASE" => field.to_uppercase(),
        "kebab-case" => field.replace('_', "-"),
        "SCREAMING-KEBAB-CASE" => field.to_uppercase().replace('_', "-"),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::apply_rename_all;

    #[test]
    fn renames_like_serde() {
        assert_eq!(apply_rename_all("camelCase", "release_year").unwrap(), "releaseYear");
        assert_eq!(apply_rename_all("PascalCase", "release_year").unwrap(), "ReleaseYear");
        assert_eq!(apply_rename_all("kebab-case", "release_year").unwrap(), "release-year");
        assert_eq!(apply_rename_all("SCREAMING_SNAKE_CASE", "a_b").unwrap(), "A_B");
        assert!(apply_rename_all("nonsense", "a").is_none());
    }
}
