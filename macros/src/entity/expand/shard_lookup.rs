//! The `Entity` functions that find an entity's shard layouts at run time: `range_shards`
//! (the replaceable boundaries of each range-sharded mapping) and `shard_mappings` (how each
//! hash- or range-sharded mapping routes, for resharding).

use super::shard;
use crate::entity::ast::Entity;
use crate::entity::attr::{Strategy, BASE_TABLE};
use proc_macro2::TokenStream;
use quote::quote;

/// Both functions, for the `Entity` impl (nothing for an entity without such mappings).
pub fn expand(model: &Entity) -> TokenStream {
    let range_arms = model.indexes.iter().enumerate().filter_map(|(position, mapping)| {
        let shard = model.shard_of(&mapping.name)?;
        shard::query_prelude(position, shard)?;
        let (name, function) = (&mapping.name, shard::range_fn(position));
        Some(quote!(#name => __dynashard::Some(#function()),))
    });
    let range_arms: Vec<TokenStream> = range_arms.collect();
    let range_shards = if range_arms.is_empty() {
        quote!()
    } else {
        quote! {
            fn range_shards(__index: &str) -> __dynashard::Option<&'static __dynashard::RangeShards> {
                match __index {
                    #(#range_arms)*
                    _ => __dynashard::None,
                }
            }
        }
    };
    let shard_mappings = shard_mappings(model);
    quote!(#range_shards #shard_mappings)
}

/// `Entity::shard_mappings`: how each hash- or range-sharded mapping routes, for resharding.
fn shard_mappings(model: &Entity) -> TokenStream {
    let mappings: Vec<TokenStream> = model
        .shards
        .iter()
        .filter(|shard| shard.index != BASE_TABLE && shard.bucket.is_none())
        .filter_map(|shard| {
            let normalization = match &shard.strategy {
                Strategy::Hash { .. } => quote!(__dynashard::None),
                Strategy::Range { normalize, overflow: 1, .. } => {
                    let normalization = shard::normalization(*normalize);
                    quote!(__dynashard::Some(#normalization))
                }
                _ => return None,
            };
            let attributes =
                shard.by.iter().filter_map(|by| model.field(&by.to_string())).map(|field| &field.attribute);
            let index = &shard.index;
            Some(quote! {
                __dynashard::ShardMapping {
                    index: #index,
                    by: &[#(#attributes),*],
                    normalization: #normalization,
                }
            })
        })
        .collect();
    if mappings.is_empty() {
        return quote!();
    }
    quote! {
        fn shard_mappings() -> &'static [__dynashard::ShardMapping] {
            &[#(#mappings),*]
        }
    }
}
