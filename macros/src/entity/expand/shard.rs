//! Code generated for a sharded mapping: its `ShardSpec` (strategy, count, boundaries,
//! normalization, bucket, `by` attributes, as data) and the calls that hand it the values the
//! runtime routes by. The runtime executes the spec; nothing here chooses a shard.

use crate::const_check::ConstCheck;
use crate::entity::ast::Entity;
use crate::entity::attr::{Bucket, Normalize, Shard, Strategy, BASE_TABLE};
use crate::template::Template;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

/// The constant holding the spec of the shard of `index` (the base table's: `BASE_TABLE`),
/// mapping `position` of the entity's index mappings.
pub fn spec_ident(shard: &Shard, position: usize) -> Ident {
    if shard.index == BASE_TABLE {
        format_ident!("__DYNASHARD_SHARD_TABLE")
    } else {
        format_ident!("__DYNASHARD_SHARD_{}", position)
    }
}

/// The local holding the boundaries a query reads with, loaded once per query.
fn boundaries_local() -> Ident {
    format_ident!("__boundaries")
}

fn normalization(normalize: Normalize) -> TokenStream {
    let variant = match normalize {
        Normalize::NfkdLower => format_ident!("NfkdLower"),
        Normalize::Lower => format_ident!("Lower"),
        Normalize::None => format_ident!("None"),
    };
    quote!(__dynashard::Normalization::#variant)
}

fn bucket_variant(bucket: Bucket) -> TokenStream {
    let variant = match bucket {
        Bucket::Minute => format_ident!("Minute"),
        Bucket::Hour => format_ident!("Hour"),
        Bucket::Day => format_ident!("Day"),
    };
    quote!(__dynashard::TimeBucket::#variant)
}

/// The spec constant of `shard` (and, for range shards, the function holding its replaceable
/// boundaries, read from the file at compile time and rebuilt when it changes).
pub fn statics(model: &Entity, position: usize, shard: &Shard) -> TokenStream {
    let ident = spec_ident(shard, position);
    let (boundaries_fn, layout) = match (&shard.strategy, &shard.bucket) {
        (Strategy::Hash { shards }, Some((bucket, _))) => {
            let bucket = bucket_variant(*bucket);
            (None, quote!(Bucketed { bucket: #bucket, shards: #shards, random: false }))
        }
        (Strategy::Random { shards }, Some((bucket, _))) => {
            let bucket = bucket_variant(*bucket);
            (None, quote!(Bucketed { bucket: #bucket, shards: #shards, random: true }))
        }
        (Strategy::Hash { shards }, _) => (None, quote!(Hash { shards: #shards })),
        (Strategy::Random { shards }, _) => (None, quote!(Random { shards: #shards })),
        (Strategy::Dynamic { max }, _) => (None, quote!(Dynamic { max: #max, readable: __dynashard::None })),
        (Strategy::Range { path, boundaries, normalize, overflow }, _) => {
            let function = format_ident!("__dynashard_range_{}", position);
            let normalization = normalization(*normalize);
            let function_item = quote! {
                fn #function() -> &'static __dynashard::RangeShards {
                    const _: &[u8] = include_bytes!(#path);
                    static SHARDS: ::std::sync::OnceLock<__dynashard::RangeShards> = ::std::sync::OnceLock::new();
                    SHARDS.get_or_init(|| {
                        __dynashard::RangeShards::new(__dynashard::Boundaries::from_checked(&[#(#boundaries),*]))
                    })
                }
            };
            let layout = quote! {
                Range {
                    boundaries: __dynashard::BoundarySource::Declared(#function),
                    normalization: #normalization,
                    overflow: #overflow,
                }
            };
            (Some(function_item), layout)
        }
    };
    let index = &shard.index;
    let by = shard.by.iter().filter_map(|by| model.field(&by.to_string())).map(|field| &field.attribute);
    let directory = shard.directory.is_some();
    let template = match model.indexes.iter().find(|mapping| mapping.name == shard.index) {
        Some(mapping) => &mapping.pk,
        None => &model.pk,
    };
    let partition = match constant(template) {
        Some(text) => quote!(__dynashard::Some(#text)),
        None => quote!(__dynashard::None),
    };
    let directory_check = shard.directory.map(|span| {
        let table = crate::const_check::path_text(&model.table);
        let definition = super::names::definition();
        super::table::check(&ConstCheck {
            span,
            name: "DirectoryTableHasSortKey",
            holds: quote!(#definition.sort_key.is_some()),
            message: format!("a bucket directory is kept in table `{table}`, which has no sort key"),
            label: "the directory's items need the table's sort key".to_owned(),
            note: Some(format!("declare a sort key on `{table}`, or remove `directory`")),
        })
    });
    quote! {
        #boundaries_fn
        const #ident: __dynashard::ShardSpec = __dynashard::ShardSpec {
            index: #index,
            layout: __dynashard::Layout::#layout,
            by: &[#(#by),*],
            directory: #directory,
            partition: #partition,
        };
        #directory_check
    }
}

/// The text of `template` when it names no field: every item's logical partition.
fn constant(template: &Template) -> Option<String> {
    template
        .pieces
        .iter()
        .map(|piece| match piece {
            crate::template::Piece::Literal(text) => Some(text.as_str()),
            crate::template::Piece::Field(_) => None,
        })
        .collect()
}

/// The base table's spec constant, and `Entity::SHARDS` listing every spec (none: nothing).
pub fn specs(model: &Entity) -> (TokenStream, TokenStream) {
    let table = model.table_shard().map(|shard| statics(model, 0, shard));
    let specs: Vec<Ident> = model
        .shards
        .iter()
        .filter_map(|shard| match model.indexes.iter().position(|mapping| mapping.name == shard.index) {
            Some(position) => Some(spec_ident(shard, position)),
            None => (shard.index == BASE_TABLE).then(|| spec_ident(shard, 0)),
        })
        .collect();
    if specs.is_empty() {
        return (quote!(#table), quote!());
    }
    (quote!(#table), quote!(const SHARDS: &'static [__dynashard::ShardSpec] = &[#(#specs),*];))
}

/// The text a shard is routed by: the `values` (expressions of `RoutingText` types) one after
/// another.
pub fn routing_text(values: &[TokenStream]) -> TokenStream {
    quote! {{
        let mut __text = ::std::string::String::new();
        #(__dynashard::RoutingText::push_routing_text(&#values, &mut __text);)*
        __text
    }}
}

/// The partition key a write uses, from the composed logical partition key `partition` and the
/// routing `text` (an expression of a type that derefs to `str`; none for random and dynamic
/// shards); `at_seconds` is the bucket time in unix seconds. The runtime's `IndexKeys` routes.
pub fn partition(
    spec: &Ident,
    partition: TokenStream,
    text: Option<TokenStream>,
    at_seconds: Option<TokenStream>,
) -> TokenStream {
    let text = text.unwrap_or_else(|| quote!(""));
    let at_seconds = match at_seconds {
        Some(seconds) => quote!(__dynashard::Some(#seconds)),
        None => quote!(__dynashard::None),
    };
    quote!(__keys.partition(&#spec, &#partition, &#text, #at_seconds)?)
}

/// The sort key a range-sharded index stores for `value` (normalized value, original value,
/// base-table key); `None` for other strategies.
pub fn range_sort_key(spec: &Ident, shard: &Shard, value: TokenStream) -> Option<TokenStream> {
    if !shard.strategy.sorts_by_value() {
        return None;
    }
    let field = shard.single_by()?.to_string();
    Some(quote!(__keys.range_sort_key(&#spec, #field, &#value)?))
}

/// Statements a query entry point of a sharded mapping runs first: the boundaries its layout
/// and its pruning both read (none unless range-sharded).
pub fn query_prelude(spec: &Ident) -> TokenStream {
    let local = boundaries_local();
    quote!(let #local = #spec.current_boundaries();)
}

/// The `Shards` a query reads, from `partition` (an expression of type `&String`): only
/// `one_shard` (an expression of type `u32`) when the arguments name it; time buckets over the
/// window `from`..=`to` (unix-seconds expressions), in time order when `sorted_by_time`.
pub fn layout(
    spec: &Ident,
    partition: TokenStream,
    one_shard: Option<TokenStream>,
    window: Option<(TokenStream, TokenStream)>,
    sorted_by_time: bool,
) -> TokenStream {
    let local = boundaries_local();
    let one_shard = match one_shard {
        Some(one) => quote!(__dynashard::Some(#one)),
        None => quote!(__dynashard::None),
    };
    let window = match window {
        Some((from, to)) => quote!(__dynashard::Some((#from, #to))),
        None => quote!(__dynashard::None),
    };
    quote!(#spec.shards(#partition, #local.as_ref(), #one_shard, #window, #sorted_by_time))
}

/// The shard pruning of a query on this mapping: the layout decides whether it prunes (range
/// shards always, hash shards without buckets when the `by` field is placeholder number
/// `placeholder` of the sort key).
pub fn routing(spec: &Ident, shard: &Shard, sort_template: Option<&Template>) -> TokenStream {
    let local = boundaries_local();
    let by = shard.single_by().map(ToString::to_string);
    let placeholder = by.and_then(|by| sort_template?.fields().position(|field| field == by));
    let placeholder = match placeholder {
        Some(placeholder) => quote!(__dynashard::Some(#placeholder)),
        None => quote!(__dynashard::None),
    };
    quote!(#spec.routing(#local.clone(), #placeholder))
}

/// The one shard of `text` (an expression of a type that derefs to `str`) in the spec's layout.
pub fn shard_of(spec: &Ident, text: TokenStream) -> TokenStream {
    quote!(#spec.shard_of(&#text))
}
