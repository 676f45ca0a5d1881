//! The names of what generated code declares: the statics of key templates and the constant
//! of the table's definition.

use proc_macro2::Ident;
use quote::format_ident;

/// The constant holding the table's definition (a `&'static TableDefinition`).
pub fn definition() -> Ident {
    format_ident!("__DYNASHARD_DEFINITION")
}

/// The static holding the partition key template.
pub fn pk_static() -> Ident {
    format_ident!("__DYNASHARD_PK")
}

/// The static holding the sort key template.
pub fn sk_static() -> Ident {
    format_ident!("__DYNASHARD_SK")
}

/// The constant holding mapping `position`'s index definition.
pub fn index_const(position: usize) -> Ident {
    format_ident!("__DYNASHARD_GSI_{}", position)
}

/// The statics holding mapping `position`'s key templates.
pub fn index_statics(position: usize) -> (Ident, Ident) {
    (format_ident!("__DYNASHARD_GSI_{}_PK", position), format_ident!("__DYNASHARD_GSI_{}_SK", position))
}
