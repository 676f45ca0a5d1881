//! What `#[derive(Entity)]`, `#[derive(Table)]` and `#[derive(Collection)]` accept: each module
//! declares a valid design and checks what the derives generated from it. The errors each
//! invalid declaration gets are `tests/ui.rs`'s cases.

// The cases write what users write: unused fields, handles cloned, literals borrowed.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::clone_on_copy,
    clippy::needless_borrows_for_generic_args,
    dead_code
)]

mod builders_are_debug;
mod cli_boundaries;
mod collection;
mod crate_path;
mod custom_key_part;
mod field_values;
mod index_mappings;
mod integer_keys;
mod music_templates;
mod native_index;
mod nested_and_views;
mod provisioned;
mod pub_in_module;
mod query_methods;
mod reserved_names;
mod serde_renames;
mod sharded_indexes;
mod sort_conditions;
mod timestamps;
mod version;
