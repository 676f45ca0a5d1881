//! `const ADDED`: the index mappings declared `added`, each with the attributes its keys are
//! composed from, and the checks that the table can record and catch up the migration that
//! fills them.

use super::names::definition;
use crate::const_check::{path_text, ConstCheck};
use crate::entity::ast::Entity;
use crate::entity::attr::IndexMapping;
use proc_macro2::TokenStream;
use quote::quote;

/// The `ADDED` constant of the `Entity` impl, and the checks placed beside it.
pub fn expand(model: &Entity) -> (TokenStream, TokenStream) {
    let added: Vec<&IndexMapping> = model.indexes.iter().filter(|mapping| mapping.added).collect();
    if added.is_empty() {
        return (quote!(), quote!());
    }
    let specs = added.iter().map(|mapping| {
        let index = &mapping.name;
        let reads = reads(model, mapping);
        let whole = mapping.when.is_some();
        quote!(__dynashard::AddedMapping { index: #index, reads: &[#(#reads),*], whole: #whole })
    });
    let constant = quote!(const ADDED: &'static [__dynashard::AddedMapping] = &[#(#specs),*];);
    let checks = added.iter().flat_map(|mapping| checks(model, mapping));
    let checks = checks.map(|check| super::check(&check));
    (quote!(#(#checks)*), constant)
}

/// The stored attributes an item's keys in `mapping` are composed from: its templates' fields
/// and the fields its shard is picked by (key fields are the item's own key, which never
/// changes).
fn reads(model: &Entity, mapping: &IndexMapping) -> Vec<String> {
    let mut fields: Vec<&syn::Ident> =
        model.index_fields(mapping).iter().map(|field| &field.field.ident).collect();
    if let Some(shard) = model.shard_of(&mapping.name) {
        fields.extend(shard.by.iter());
        fields.extend(shard.bucket.as_ref().map(|(_, at)| at));
    }
    let mut reads: Vec<String> = Vec::new();
    for ident in fields {
        let Some(field) = model.field(&ident.to_string()) else { continue };
        if !field.is_key && !reads.contains(&field.attribute) {
            reads.push(field.attribute.clone());
        }
    }
    reads
}

fn checks(model: &Entity, mapping: &IndexMapping) -> Vec<ConstCheck<'static>> {
    let definition = definition();
    let (table, index) = (path_text(&model.table), &mapping.name);
    vec![
        ConstCheck {
            span: mapping.name_span,
            name: "AddedIndexHasShardMetadata",
            holds: quote!(#definition.shard_metadata.is_some()),
            message: format!(
                "table `{table}` declares no shard metadata, where the migration that fills the added \
                 mapping of `{index}` is recorded"
            ),
            label: "declared `added` here".to_owned(),
            note: Some("declare one on the table: `#[table(shard_metadata = \"...\", ...)]`".to_owned()),
        },
        ConstCheck {
            span: mapping.name_span,
            name: "AddedIndexHasAStream",
            holds: quote!(#definition.stream.is_some()),
            message: format!(
                "table `{table}` declares no stream, from which the migration that fills the added \
                 mapping of `{index}` places what writers leave out"
            ),
            label: "declared `added` here".to_owned(),
            note: Some("turn one on: `#[table(stream = \"new_and_old_images\", ...)]`".to_owned()),
        },
    ]
}
