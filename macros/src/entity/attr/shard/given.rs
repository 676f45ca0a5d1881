//! The keys of one `#[shard(...)]` as written, each read once, before they are checked against
//! each other.

use crate::attr::{set_once, unknown_key, value};
use crate::errors::Errors;
use syn::meta::ParseNestedMeta;
use syn::parse::Parse;
use syn::spanned::Spanned;
use syn::{Attribute, Ident, LitInt, LitStr};

/// Every key `#[shard(...)]` takes.
const SHARD_KEYS: &[&str] = &[
    "hash",
    "random",
    "range",
    "dynamic",
    "max",
    "by",
    "normalize",
    "bucket",
    "at",
    "overflow",
    "directory",
];

/// The keys one `#[shard(...)]` gave.
#[derive(Default)]
pub struct Given {
    pub index: Option<Ident>,
    pub hash: Option<LitInt>,
    pub random: Option<LitInt>,
    pub range: Option<LitStr>,
    pub by: Option<Vec<Ident>>,
    pub normalize: Option<LitStr>,
    pub bucket: Option<LitStr>,
    pub at: Option<Ident>,
    pub overflow: Option<LitInt>,
    pub dynamic: bool,
    pub max: Option<LitInt>,
    pub directory: Option<proc_macro2::Span>,
}

/// The layout of an index's `#[shard(...)]`, as errors show it.
const INDEX_FORM: &str = "#[shard(ByTitle(hash = 8, by = title))]";

impl Given {
    /// The keys of `attr`, written `#[shard(key = value, ...)]` for the table's own key or
    /// `#[shard(Index(key = value, ...))]` for an index; `None` (with the error) when one cannot
    /// be read.
    pub fn read(attr: &Attribute, errors: &mut Errors) -> Option<Given> {
        let mut given = Given::default();
        let mut first = true;
        let result = attr.parse_nested_meta(|meta| {
            let named = meta.path.get_ident().filter(|_| meta.input.peek(syn::token::Paren));
            let was_first = std::mem::replace(&mut first, false);
            match named {
                Some(index) if was_first => {
                    given.index = Some(index.clone());
                    crate::attr::inside(&meta, |inner| given.entry(inner, errors))
                }
                Some(_) => Err(syn::Error::new_spanned(
                    &meta.path,
                    format!("one index per attribute, its keys inside its parentheses: `{INDEX_FORM}`"),
                )),
                None if given.index.is_some() => Err(syn::Error::new_spanned(
                    &meta.path,
                    format!("the index's keys go inside its parentheses: `{INDEX_FORM}`"),
                )),
                None => given.entry(&meta, errors),
            }
        });
        match result {
            Ok(()) => Some(given),
            Err(error) => {
                errors.add(error);
                None
            }
        }
    }

    /// One key, a flag (`dynamic`, `directory`) or one with a value.
    fn entry(&mut self, meta: &ParseNestedMeta, errors: &mut Errors) -> syn::Result<()> {
        let is_bare = !meta.input.peek(syn::Token![=]) && !meta.input.peek(syn::token::Paren);
        let flag = meta.path.is_ident("dynamic") || meta.path.is_ident("directory");
        let key = SHARD_KEYS.iter().any(|key| meta.path.is_ident(key));
        if is_bare && flag {
            self.flag(meta);
            Ok(())
        } else if is_bare && !key && self.index.is_none() {
            // A word that is no key: an index named the way `#[shard(...)]` no longer reads.
            Err(syn::Error::new_spanned(
                &meta.path,
                format!("write the index name with its keys in parentheses: `{INDEX_FORM}`"),
            ))
        } else {
            self.key(meta, errors)
        }
    }

    /// `dynamic` or `directory`, written as they are, without a value.
    fn flag(&mut self, meta: &ParseNestedMeta) {
        if meta.path.is_ident("dynamic") {
            self.dynamic = true;
        } else {
            self.directory = Some(meta.path.span());
        }
    }

    /// A key that takes a value (`dynamic` and `directory` here have one they must not have).
    fn key(&mut self, meta: &ParseNestedMeta, errors: &mut Errors) -> syn::Result<()> {
        let path = &meta.path;
        if path.is_ident("dynamic") {
            return Err(syn::Error::new_spanned(
                path,
                "`dynamic` takes no value: `#[shard(Index(dynamic))]`, or `#[shard(Index(dynamic, max = N))]`",
            ));
        }
        if path.is_ident("directory") {
            return Err(syn::Error::new_spanned(
                path,
                "`directory` takes no value: `#[shard(Index(hash = 4, by = field, bucket = \"hour\", at = field, directory))]`",
            ));
        }
        if path.is_ident("max") {
            set_once(errors, meta, &mut self.max, value(meta, "the most shards", "max = 64")?.parse()?);
        } else if path.is_ident("hash") {
            set_once(errors, meta, &mut self.hash, value(meta, "a shard count", "hash = 8")?.parse()?);
        } else if path.is_ident("random") {
            set_once(errors, meta, &mut self.random, value(meta, "a shard count", "random = 8")?.parse()?);
        } else if path.is_ident("range") {
            let file = value(meta, "a boundaries file", "range = \"path/to/boundaries.json\"")?.parse()?;
            set_once(errors, meta, &mut self.range, file);
        } else if path.is_ident("by") {
            let fields = by_fields(meta)?;
            set_once(errors, meta, &mut self.by, fields);
        } else if path.is_ident("normalize") {
            let name = value(meta, "a normalization", "normalize = \"nfkd-lower\"")?.parse()?;
            set_once(errors, meta, &mut self.normalize, name);
        } else if path.is_ident("bucket") {
            set_once(
                errors,
                meta,
                &mut self.bucket,
                value(meta, "a time bucket", "bucket = \"hour\"")?.parse()?,
            );
        } else if path.is_ident("overflow") {
            let count = value(meta, "a number of sub-shards", "overflow = 4")?.parse()?;
            set_once(errors, meta, &mut self.overflow, count);
        } else if path.is_ident("at") {
            let field = value(meta, "the time field whose value picks the bucket", "at = field")?.parse()?;
            set_once(errors, meta, &mut self.at, field);
        } else {
            unknown_key(errors, meta, "shard", SHARD_KEYS)?;
        }
        Ok(())
    }

    /// The strategies given, as the error that finds more than one names them.
    pub fn strategies(&self) -> Vec<String> {
        [
            ("hash", self.hash.is_some()),
            ("random", self.random.is_some()),
            ("range", self.range.is_some()),
            ("dynamic", self.dynamic),
        ]
        .iter()
        .filter(|(_, given)| *given)
        .map(|(name, _)| format!("`{name}`"))
        .collect()
    }
}

/// `by = field` or `by = (a, b)`.
fn by_fields(meta: &ParseNestedMeta) -> syn::Result<Vec<Ident>> {
    let input = value(meta, "the field whose value picks the shard", "by = field` or `by = (a, b)")?;
    if input.peek(syn::token::Paren) {
        let content;
        syn::parenthesized!(content in input);
        let fields = content.parse_terminated(Ident::parse, syn::Token![,])?;
        Ok(fields.into_iter().collect())
    } else {
        Ok(vec![input.parse()?])
    }
}
