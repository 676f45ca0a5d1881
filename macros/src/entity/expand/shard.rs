//! Code generated for a sharded index: the boundaries of range shards (read at compile time,
//! rebuilt when the file changes), the shard id of a value, the partition key with its shard,
//! the range-sharded sort key, and the layout that queries read.

use crate::entity::attr::{Bucket, Normalize, Shard, Strategy};
use crate::template::Template;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

/// The function returning mapping `position`'s run-time range boundaries.
pub fn range_fn(position: usize) -> Ident {
    format_ident!("__dynashard_range_{}", position)
}

/// The local holding the boundaries a query reads with, loaded once per query.
fn boundaries_local() -> Ident {
    format_ident!("__boundaries")
}

pub fn normalization(normalize: Normalize) -> TokenStream {
    let variant = match normalize {
        Normalize::NfkdLower => format_ident!("NfkdLower"),
        Normalize::Lower => format_ident!("Lower"),
        Normalize::None => format_ident!("None"),
    };
    quote!(__dynashard::Normalization::#variant)
}

/// Items placed next to the index statics: the boundaries accessor of a range shard.
pub fn statics(position: usize, shard: &Shard) -> TokenStream {
    let Strategy::Range { path, boundaries, .. } = &shard.strategy else { return quote!() };
    let function = range_fn(position);
    quote! {
        #[allow(dead_code)]
        fn #function() -> &'static __dynashard::RangeShards {
            const _: &[u8] = include_bytes!(#path);
            static SHARDS: ::std::sync::OnceLock<__dynashard::RangeShards> = ::std::sync::OnceLock::new();
            SHARDS.get_or_init(|| {
                __dynashard::RangeShards::new(__dynashard::Boundaries::from_checked(&[#(#boundaries),*]))
            })
        }
    }
}

/// Statements a query entry point of a range-sharded index runs first: the boundaries its
/// layout and its pruning both use.
pub fn query_prelude(position: usize, shard: &Shard) -> Option<TokenStream> {
    let Strategy::Range { .. } = &shard.strategy else { return None };
    let (function, local) = (range_fn(position), boundaries_local());
    Some(quote!(let #local = #function().current();))
}

fn bucket_variant(bucket: Bucket) -> TokenStream {
    let variant = match bucket {
        Bucket::Minute => format_ident!("Minute"),
        Bucket::Hour => format_ident!("Hour"),
        Bucket::Day => format_ident!("Day"),
    };
    quote!(__dynashard::TimeBucket::#variant)
}

/// The text a hash shard is computed from: the `values` (expressions of `RoutingText` types)
/// one after another; a single `String` value as it is.
pub fn routing_text(values: &[TokenStream]) -> TokenStream {
    quote! {{
        let mut __text = ::std::string::String::new();
        #(__dynashard::RoutingText::push_routing_text(&#values, &mut __text);)*
        __text
    }}
}

/// The partition key of the shard that `by_value` (an expression of type `String`) selects,
/// given the composed partition key expression `partition`; with a time bucket, `at_seconds` is
/// the time field's value in unix seconds.
pub fn partition(
    position: usize,
    shard: &Shard,
    partition: TokenStream,
    by_value: Option<TokenStream>,
    at_seconds: Option<TokenStream>,
    base_key: Option<TokenStream>,
) -> TokenStream {
    let id = match (&shard.strategy, by_value) {
        (Strategy::Hash { shards }, Some(value)) => quote!(__dynashard::hash_shard(&#value, #shards)),
        (Strategy::Random { shards }, _) => quote!(__dynashard::random_shard(#shards)),
        (Strategy::Range { normalize, overflow, .. }, Some(value)) => {
            let function = range_fn(position);
            let normalization = normalization(*normalize);
            let id = quote!(#function().load().shard(&#value, #normalization));
            if let (true, Some(base_key)) = (*overflow > 1, base_key) {
                return quote!({
                    let __base = #base_key;
                    __dynashard::overflow_partition(&#partition, #id, &__base.0, &__base.1, #overflow)
                });
            }
            id
        }
        (Strategy::Dynamic { max }, _) => {
            let index = &shard.index;
            quote!(__chooser.dynamic_shard(#index, &#partition, #max)?)
        }
        _ => quote!(0),
    };
    match (&shard.bucket, at_seconds) {
        (Some((bucket, _)), Some(seconds)) => {
            let bucket = bucket_variant(*bucket);
            quote!(__dynashard::bucket_partition(&#partition, #id, #bucket, #seconds))
        }
        _ => quote!(__dynashard::shard_partition(&#partition, #id)),
    }
}

/// The sort key of a range-sharded index: normalized value, original value, base-table key.
pub fn range_sort_key(shard: &Shard, by_value: TokenStream, base_key: TokenStream) -> Option<TokenStream> {
    let Strategy::Range { normalize, .. } = &shard.strategy else { return None };
    let normalization = normalization(*normalize);
    let (index, field) = (&shard.index, shard.single_by()?.to_string());
    Some(quote! {{
        __dynashard::check_range_value(&__DYNASHARD_TABLE, #index, #field, &#by_value)?;
        let __normalized = #normalization.apply(&#by_value);
        let __base = #base_key;
        __dynashard::range_sort_key(&__normalized, &#by_value, &[__base.0.as_str(), __base.1.as_str()])
    }})
}

/// The `Shards` a query of this index reads, from the composed partition key `partition`.
/// Time-bucketed layouts read the buckets from `from` to `to` (expressions in unix seconds):
/// bucket after bucket when the index is `sorted_by_time` or, with `one_shard`, only that shard
/// (an expression of type `u32`) is read; otherwise every partition of the window merged.
pub fn layout(
    shard: &Shard,
    partition: TokenStream,
    one_shard: Option<TokenStream>,
    at_type: Option<&syn::Type>,
    sorted_by_time: bool,
) -> TokenStream {
    let shards = shard.strategy.shards();
    if let (Some(one), None) = (&one_shard, &shard.bucket) {
        return quote! {
            __dynashard::Shards {
                partitions: ::std::vec![__dynashard::shard_partition(&#partition, #one)],
                mode: __dynashard::ShardMode::InOrder,
                layout: __dynashard::ShardLayout::Hash { shards: #shards },
                window: __dynashard::None,
                dynamic: __dynashard::None,
            }
        };
    }
    if let Some((bucket, _)) = &shard.bucket {
        let variant = bucket_variant(*bucket);
        let seconds = |value: TokenStream| match at_type {
            Some(ty) => {
                quote_spanned!(ty.span()=> <#ty as __dynashard::BucketTime>::unix_seconds(&#value))
            }
            None => quote!(__dynashard::BucketTime::unix_seconds(&#value)),
        };
        let (from_seconds, to_seconds) = (seconds(quote!(from)), seconds(quote!(to)));
        let random = matches!(shard.strategy, Strategy::Random { .. });
        let layout = quote! {
            __dynashard::ShardLayout::Bucketed { bucket: #variant, shards: #shards, random: #random }
        };
        let (shard_range, mode) = match one_shard {
            Some(one) => (quote!(#one..#one + 1), quote!(Buckets)),
            None if sorted_by_time => (quote!(0..#shards), quote!(Buckets)),
            None => (quote!(0..#shards), quote!(Merge)),
        };
        return quote! {
            __dynashard::Shards::bucketed(
                __dynashard::BucketWindow::new(
                    ::std::clone::Clone::clone(#partition),
                    #shard_range,
                    #variant,
                    #from_seconds,
                    #to_seconds,
                ),
                __dynashard::ShardMode::#mode,
                #layout,
            )
        };
    }
    let (mode, layout) = match &shard.strategy {
        Strategy::Dynamic { max } => {
            return quote! {
                __dynashard::Shards {
                    partitions: ::std::vec::Vec::new(),
                    mode: __dynashard::ShardMode::Merge,
                    layout: __dynashard::ShardLayout::Dynamic { readable: __dynashard::None },
                    window: __dynashard::None,
                    dynamic: __dynashard::Some(#max),
                }
            };
        }
        Strategy::Hash { shards } => {
            (quote!(Merge), quote!(__dynashard::ShardLayout::Hash { shards: #shards }))
        }
        Strategy::Random { shards } => {
            (quote!(Merge), quote!(__dynashard::ShardLayout::Random { shards: #shards }))
        }
        Strategy::Range { normalize, overflow, .. } if *overflow > 1 => {
            let local = boundaries_local();
            let layout = range_layout(*normalize, *overflow);
            return quote! {
                __dynashard::Shards {
                    partitions: (0..#local.shards())
                        .flat_map(|shard| (0..#overflow).map(move |sub| (shard, sub)))
                        .map(|(shard, sub)| __dynashard::sub_shard_partition(&#partition, shard, sub))
                        .collect(),
                    mode: __dynashard::ShardMode::Merge,
                    layout: #layout,
                    window: __dynashard::None,
                    dynamic: __dynashard::None,
                }
            };
        }
        Strategy::Range { normalize, overflow, .. } => (quote!(InOrder), range_layout(*normalize, *overflow)),
    };
    let shards = match &shard.strategy {
        Strategy::Range { .. } => {
            let local = boundaries_local();
            quote!(#local.shards())
        }
        _ => quote!(#shards),
    };
    quote! {
        __dynashard::Shards {
            partitions: (0..#shards).map(|shard| __dynashard::shard_partition(&#partition, shard)).collect(),
            mode: __dynashard::ShardMode::#mode,
            layout: #layout,
            window: __dynashard::None,
            dynamic: __dynashard::None,
        }
    }
}

/// The layout of range shards cut at the boundaries in scope, normalized by `normalize`.
fn range_layout(normalize: Normalize, overflow: u32) -> TokenStream {
    let (local, normalization) = (boundaries_local(), normalization(normalize));
    quote! {
        __dynashard::ShardLayout::Range {
            normalization: #normalization,
            boundaries: ::std::borrow::ToOwned::to_owned(#local.fingerprint()),
            overflow: #overflow,
        }
    }
}

/// The shard routing of a query on this index, for pruning shards by the `by` value.
pub fn routing(shard: &Shard, sort_template: Option<&Template>) -> Option<TokenStream> {
    match &shard.strategy {
        Strategy::Range { normalize, overflow, .. } => {
            let local = boundaries_local();
            let normalization = normalization(*normalize);
            Some(quote!(__dynashard::Routing::Range {
                boundaries: #local.clone(),
                normalization: #normalization,
                overflow: #overflow,
            }))
        }
        Strategy::Hash { shards } if shard.bucket.is_none() => {
            let by = shard.single_by()?.to_string();
            let placeholder = sort_template?.fields().position(|field| field == by)?;
            Some(quote!(__dynashard::Routing::Hash { shards: #shards, placeholder: #placeholder }))
        }
        _ => None,
    }
}
