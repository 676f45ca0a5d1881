//! The checks of a nested struct declaration.

use super::ast::Nested;
use crate::errors::Errors;

/// Checks `nested`, recording every problem in `errors`.
pub fn check(nested: &Nested, errors: &mut Errors) {
    if !nested.generics.params.is_empty() {
        errors.push_spanned(&nested.generics, "`Nested` cannot be derived for generic structs");
    }
    for field in nested.fields.iter().filter(|field| field.flatten) {
        errors.push(
            field.ident.span(),
            "a nested struct cannot flatten fields: conditions name each stored field by its key",
        );
    }
}
