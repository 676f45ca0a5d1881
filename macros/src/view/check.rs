//! The checks of a view declaration against itself; what needs the entity and the table is
//! checked at compile time by the expansion.

use super::ast::View;
use crate::errors::Errors;

/// Checks `view`, recording every problem in `errors`.
pub fn check(view: &View, errors: &mut Errors) {
    if !view.generics.params.is_empty() {
        errors.push_spanned(&view.generics, "`View` cannot be derived for generic structs");
    }
    if view.entity.is_none() {
        errors.push(view.ident.span(), "a view names the entity it reads: `#[view(entity = Order)]`");
    }
    for field in view.fields.iter().filter(|field| field.flatten) {
        errors.push(
            field.ident.span(),
            "a view cannot flatten fields: list the entity's fields it reads one by one",
        );
    }
    if !view.fields.iter().any(|field| !field.no_attribute) {
        errors.push(view.ident.span(), "a view reads at least one of the entity's fields");
    }
}
