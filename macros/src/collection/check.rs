//! The checks of a collection against itself: at least one member, each entity type once.

use super::ast::Collection;
use crate::errors::Errors;
use quote::quote;

/// Checks `collection`, recording every problem in `errors`.
pub fn check(collection: &Collection, errors: &mut Errors) {
    let members = &collection.members;
    for (position, member) in members.iter().enumerate() {
        let (ty, earlier) = (&member.ty, &members[..position]);
        let text = quote!(#ty).to_string();
        if earlier.iter().any(|known| {
            let known = &known.ty;
            quote!(#known).to_string() == text
        }) {
            errors.push_spanned(ty, "each entity type can appear only once in a collection");
        }
    }
    if members.is_empty() {
        errors.push(collection.ident.span(), "a collection needs at least one entity variant");
    }
}
