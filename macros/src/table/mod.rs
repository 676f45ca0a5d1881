//! `#[derive(Table)]`, in one direction: parse the attributes (`attr`), put the declaration
//! together (`ast`), check it (`check`), then expand it (`expand`), which checks nothing.

mod ast;
mod attr;
mod check;
mod expand;
mod index_attr;
mod values;

use crate::errors::Errors;
use proc_macro2::TokenStream;

/// Derives `dynashard::Table`; on errors, reports them all, and emits the table as declared
/// where its shape allows (so that entities of it are checked against what was declared, and a
/// bad attribute gets its own error and nothing else), else a fallback impl.
pub fn derive(input: syn::DeriveInput) -> TokenStream {
    let mut errors = Errors::default();
    let attrs = attr::Attrs::parse(&input, &mut errors);
    let table = ast::Table::new(&input, attrs);
    if let Some(table) = &table {
        check::check(table, &mut errors);
    }
    match (errors.finish(()), table) {
        (Ok(()), Some(table)) => expand::expand(&table),
        (Err(error), Some(table)) if input.generics.params.is_empty() && check::expandable(&table) => {
            let mut tokens = error.into_compile_error();
            tokens.extend(expand::expand(&table));
            tokens
        }
        (result, _) => {
            let mut tokens = result
                .err()
                .unwrap_or_else(|| syn::Error::new(input.ident.span(), "invalid table declaration"))
                .into_compile_error();
            tokens.extend(crate::fallback::table(&input));
            tokens
        }
    }
}
