//! `#[derive(Table)]`, in one direction: parse the attributes (`attr`), put the declaration
//! together (`ast`), check it (`check`), then expand it (`expand`), which checks nothing.

mod ast;
mod attr;
mod check;
mod expand;
mod index_attr;

use crate::errors::Errors;
use proc_macro2::TokenStream;

/// Derives `dynashard::Table`; on errors, reports them all and emits a fallback impl.
pub fn derive(input: syn::DeriveInput) -> TokenStream {
    let mut errors = Errors::default();
    let attrs = attr::Attrs::parse(&input, &mut errors);
    let table = ast::Table::new(&input, attrs);
    if let Some(table) = &table {
        check::check(table, &mut errors);
    }
    match (errors.finish(()), table) {
        (Ok(()), Some(table)) => expand::expand(&table),
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
