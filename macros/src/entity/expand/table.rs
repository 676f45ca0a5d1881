//! How an entity's generated code reads its table: the definition constant, whether the
//! `table = ...` type is a table at all, and the compile-time checks against it.

use super::names::definition;
use crate::const_check::ConstCheck;
use crate::entity::ast::Entity;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

/// The constants holding the table's definition, which everything generated from the table's
/// declaration reads, and whether the `table = ...` type is a table at all. They read the table
/// through `TableProbe`, which stands in a fallback for a type that is not a table, so that
/// `type Table` is the one place requiring the `Table` impl: such a type is one error, there, and
/// the checks against the table (see [`check`]) hold rather than report a table they cannot see.
pub(super) fn table_definition(model: &Entity) -> TokenStream {
    let table = &model.table;
    let (definition, declared) = (definition(), table_declared());
    quote! {
        #[allow(unused_imports)]
        use __dynashard::NotATable as _;
        #[allow(dead_code)]
        const #definition: &__dynashard::TableDefinition = __dynashard::TableProbe::<#table>::DEFINITION;
        #[allow(dead_code)]
        const #declared: bool = __dynashard::TableProbe::<#table>::DECLARED;
    }
}

/// The constant saying whether the `table = ...` type is a table.
fn table_declared() -> Ident {
    format_ident!("__DYNASHARD_TABLE_DECLARED")
}

/// The items of a compile-time check against the table, holding when the `table = ...` type is
/// not a table (which `type Table` reports).
pub fn check(check: &ConstCheck) -> TokenStream {
    let declared = table_declared();
    check.expand_where(&quote!(#declared))
}
