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
    /// Flattened: its fields are attributes of the item, under names not known here.
    pub flatten: bool,
    /// `#[serde(default)]` (or `default = "..."`): a missing attribute reads as the default.
    pub default: bool,
    /// `#[serde(with = "...")]` or `serialize_with`: stored as that module writes it.
    pub with: bool,
}

/// One named field of a struct, with the attribute name serde stores it under.
pub struct NamedField<'a> {
    pub field: &'a syn::Field,
    pub ident: syn::Ident,
    /// The attribute name serde writes it under.
    pub attribute: String,
    pub serde: SerdeField,
}

/// A named field as serde stores it: what the `View` and `Nested` derives read of their fields.
pub struct StoredField {
    pub ident: syn::Ident,
    pub ty: syn::Type,
    /// The attribute (or map key) serde stores it under.
    pub attribute: String,
    /// Skipped by serde: stored under no name.
    pub no_attribute: bool,
    /// Flattened by serde (refused by both derives' checks).
    pub flatten: bool,
}

/// The named fields of a struct as serde stores them, or `None` (reported as a misuse of
/// `derive`) when the input is not a struct with named fields.
pub fn stored_fields(
    input: &syn::DeriveInput,
    derive: &str,
    errors: &mut crate::errors::Errors,
) -> Option<Vec<StoredField>> {
    let fields = named_fields(input, derive, errors)?.into_iter().map(|named| StoredField {
        ty: named.field.ty.clone(),
        ident: named.ident,
        attribute: named.attribute,
        no_attribute: named.serde.no_attribute,
        flatten: named.serde.flatten,
    });
    Some(fields.collect())
}

/// The named fields of a struct with their serde attribute names, or `None` (reported as a
/// misuse of `derive`) when the input is not a struct with named fields.
pub fn named_fields<'a>(
    input: &'a syn::DeriveInput,
    derive: &str,
    errors: &mut crate::errors::Errors,
) -> Option<Vec<NamedField<'a>>> {
    let message = format!("`{derive}` can only be derived for structs with named fields");
    let syn::Data::Struct(data) = &input.data else {
        errors.push(input.ident.span(), message);
        return None;
    };
    let syn::Fields::Named(named) = &data.fields else {
        errors.push(input.ident.span(), message);
        return None;
    };
    let rename_all = rename_all(&input.attrs);
    let container_default = container_default(&input.attrs);
    let fields = named.named.iter().filter_map(|field| {
        let ident = field.ident.clone()?;
        let mut serde = self::field(&field.attrs);
        serde.default |= container_default;
        let unraw = ident.to_string().trim_start_matches("r#").to_owned();
        let attribute = serde
            .rename
            .clone()
            .or_else(|| rename_all.as_deref().and_then(|rule| apply_rename_all(rule, &unraw)))
            .unwrap_or(unraw);
        Some(NamedField { field, ident, attribute, serde })
    });
    Some(fields.collect())
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

/// Whether the container says `#[serde(default)]`: every missing field reads as its default.
fn container_default(attrs: &[Attribute]) -> bool {
    let mut default = false;
    for_each_serde_meta(attrs, |meta| {
        if meta.path.is_ident("default") {
            default = true;
        }
        skip_value(meta)
    });
    default
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
        if meta.path.is_ident("flatten") {
            field.flatten = true;
        }
        if meta.path.is_ident("default") {
            field.default = true;
        }
        if meta.path.is_ident("with") || meta.path.is_ident("serialize_with") {
            field.with = true;
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
