//! Code generated for an entity's query entry points: `query` on the base table and one
//! `query_<index>` per index mapping.

use super::keys::{compose, sort_walk, KeyArg};
use super::names::{index_const, index_statics};
use super::names::{pk_static, sk_static};
use super::shard;
use crate::entity::ast::Entity;
use crate::entity::attr::{IndexMapping, Shard};
use crate::template::Template;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

/// Expands the query entry points of `model`.
pub fn expand(model: &Entity) -> TokenStream {
    let base = base_query(model);
    let indexes =
        model.indexes.iter().enumerate().map(|(position, mapping)| index_queries(model, position, mapping));
    let native = super::native::queries(model);
    quote!(#base #(#indexes)* #native)
}

/// The time parts of a mapping's queries: bucketed reads take the time window in the `at` field's
/// type; when the index is sorted by that time first, the window also trims the first and last
/// buckets.
struct TimeParts {
    sorted_by_time: bool,
    /// The window's ends in unix seconds, for a bucketed mapping.
    seconds: Option<(TokenStream, TokenStream)>,
    /// The `from` and `to` parameters, for a bucketed mapping.
    params: Vec<TokenStream>,
    /// The sort-key condition of the window, when the index is sorted by the time first.
    window: Option<TokenStream>,
}

fn time_parts(model: &Entity, mapping: &IndexMapping, shard: Option<&Shard>) -> TimeParts {
    let bucketed = shard.is_some_and(|shard| shard.bucket.is_some());
    let at = shard.and_then(|shard| shard.bucket.as_ref()).map(|(_, at)| at.clone());
    let at_type = at.as_ref().and_then(|at| model.field(&at.to_string())).map(|field| field.ty.clone());
    let sorted_by_time = at.as_ref().is_some_and(|at| {
        mapping.sk.as_ref().and_then(|sk| sk.fields().next()).is_some_and(|first| *at == first)
    });
    let seconds = |value: TokenStream| match &at_type {
        Some(ty) => quote_spanned!(ty.span()=> <#ty as __dynashard::BucketTime>::unix_seconds(&#value)),
        None => quote!(__dynashard::BucketTime::unix_seconds(&#value)),
    };
    let params = match &at_type {
        Some(ty) if bucketed => vec![quote!(from: #ty), quote!(to: #ty)],
        _ => Vec::new(),
    };
    let window = match (&at_type, sorted_by_time) {
        (Some(ty), true) => Some(quote!(.time_window::<#ty>(
            <#ty as __dynashard::KeyPart>::as_arg(&from),
            <#ty as __dynashard::KeyPart>::as_arg(&to),
        ))),
        _ => None,
    };
    TimeParts {
        sorted_by_time,
        seconds: bucketed.then(|| (seconds(quote!(from)), seconds(quote!(to)))),
        params,
        window,
    }
}

/// The query entry points of mapping `position`: `query_<index>`, and for a bucketed hash
/// mapping by a text field, `query_<index>_for`.
fn index_queries(model: &Entity, position: usize, mapping: &IndexMapping) -> TokenStream {
    let fields = model.index_fields(mapping);
    // A local index's partition key fields are the entity's own key fields.
    let key_type = |name: &str| {
        let indexed =
            fields.iter().find(|field| field.field.ident == name).map(|field| field.key_type.clone());
        indexed.or_else(|| model.field(name).filter(|_| mapping.local).map(|field| field.ty.clone()))
    };
    let (pk_ident, sk_ident) = index_statics(position);
    let index = index_const(position);
    let shard = model.shard_of(&mapping.name);
    let spec = shard.map(|shard| shard::spec_ident(shard, position));
    let range_sharded = shard.is_some_and(|shard| shard.strategy.sorts_by_value());
    // A range-sharded index stores its own sort key (normalized value and tiebreak), not the
    // template, so the template cannot be used to build conditions on it.
    let sort_template = mapping.sk.as_ref().filter(|_| !range_sharded).map(|_| quote!(&#sk_ident));
    let time = time_parts(model, mapping, shard);
    let walk = match (range_sharded, &time.window) {
        (_, Some(_)) => quote!(__dynashard::Done),
        (true, None) => quote!(__dynashard::Normalized),
        (false, None) => sort_walk(mapping.sk.as_ref(), key_type),
    };
    // Hash shards routed by partition-key fields: the arguments already name the one shard.
    let one_shard = shard.zip(spec.as_ref()).and_then(|(shard, spec)| one_shard(spec, shard, &mapping.pk));
    let routing =
        shard.zip(spec.as_ref()).map(|(shard, spec)| shard::routing(spec, shard, mapping.sk.as_ref()));
    let layout = spec.as_ref().map(|spec| {
        shard::layout(spec, quote!(__partition), one_shard.clone(), time.seconds.clone(), time.sorted_by_time)
    });
    let window = &time.window;
    let post = match (routing, window) {
        (Some(routing), _) => Some(quote!(__query.routed(#routing) #window)),
        (None, Some(window)) => Some(quote!(__query #window)),
        (None, None) => None,
    };
    let doc = format!(
        "Items of index `{}` in one partition (pk `{}`{}), in sort-key order; narrow them with \
         the sort-key conditions of [`dynashard::Query`].",
        mapping.name,
        mapping.pk.source,
        mapping.sk.as_ref().map(|sk| format!(", sk `{}`", sk.source)).unwrap_or_default()
    );
    let query = entry_point(EntryPoint {
        model,
        name: mapping.query_method(),
        doc,
        pk: &mapping.pk,
        pk_static: pk_ident,
        index: Some(quote!(#index)),
        sort_attribute: mapping.sk.as_ref().map(|_| quote!(#sk_ident.attribute)),
        sort_template,
        walk: walk.clone(),
        param_type: &key_type,
        prelude: spec.as_ref().map(shard::query_prelude),
        layout,
        extra_params: time.params.clone(),
        post: marked(post, mapping.added),
    });
    let for_one = one_entity(model, shard)
        .zip(spec.as_ref())
        .map(|(by, spec)| for_one_query(model, (position, mapping), (spec, &by), &walk, &key_type, &time));
    quote!(#query #for_one)
}

/// The `by` field of a bucketed hash mapping routed by one text field: its items of one value
/// live in one shard, bucket after bucket.
fn one_entity(model: &Entity, shard: Option<&Shard>) -> Option<Ident> {
    let shard = shard.filter(|shard| shard.bucket.is_some())?;
    let is_text = |by: &&Ident| {
        model
            .field(&by.to_string())
            .is_some_and(|field| matches!(&field.ty, syn::Type::Path(path) if path.path.is_ident("String")))
    };
    shard.single_by().filter(is_text).filter(|_| shard.strategy.routes_by_equality()).cloned()
}

/// `query_<index>_for`: the items of one `by` value, from its one shard, bucket after bucket.
fn for_one_query(
    model: &Entity,
    (position, mapping): (usize, &IndexMapping),
    (spec, by): (&Ident, &Ident),
    walk: &TokenStream,
    key_type: &dyn Fn(&str) -> Option<syn::Type>,
    time: &TimeParts,
) -> TokenStream {
    let (pk_ident, sk_ident) = index_statics(position);
    let index = index_const(position);
    let attribute = model.field(&by.to_string()).map(|field| field.attribute.clone()).unwrap_or_default();
    let doc = format!(
        "Items of index `{}` for one `{by}` from `from` to `to` (unix seconds): only its shard, \
         bucket after bucket, in time order.",
        mapping.name
    );
    let window = &time.window;
    entry_point(EntryPoint {
        model,
        name: format_ident!("{}_for", mapping.query_method()),
        doc,
        pk: &mapping.pk,
        pk_static: pk_ident,
        index: Some(quote!(#index)),
        sort_attribute: mapping.sk.as_ref().map(|_| quote!(#sk_ident.attribute)),
        sort_template: mapping.sk.as_ref().map(|_| quote!(&#sk_ident)),
        walk: walk.clone(),
        param_type: key_type,
        prelude: Some(shard::query_prelude(spec)),
        layout: Some(shard::layout(
            spec,
            quote!(__partition),
            Some(shard::shard_of(spec, quote!(#by))),
            time.seconds.clone(),
            time.sorted_by_time,
        )),
        extra_params: std::iter::once(quote!(#by: &str)).chain(time.params.clone()).collect(),
        post: marked(
            Some(quote! {
                __query.filter(__dynashard::Condition::raw(
                    __dynashard::RawExpression::new("#dsby = :dsby")
                        .name("#dsby", #attribute)
                        .value(":dsby", __dynashard::AttributeValue::S(#by.to_owned())),
                )) #window
            }),
            mapping.added,
        ),
    })
}

/// The one hash shard a query reads when every `by` field is a partition-key argument.
fn one_shard(spec: &Ident, shard: &Shard, pk: &Template) -> Option<TokenStream> {
    if !shard.strategy.routes_by_equality() {
        return None;
    }
    let all_in_pk = shard.by.iter().all(|by| pk.fields().any(|field| *by == field));
    if shard.by.is_empty() || !all_in_pk || shard.bucket.is_some() {
        return None;
    }
    let text = shard::routing_text(&shard.by.iter().map(|by| quote!(#by)).collect::<Vec<_>>());
    Some(shard::shard_of(spec, text))
}

fn base_query(model: &Entity) -> TokenStream {
    let key_type = |name: &str| model.field(name).map(|field| field.ty.clone());
    let sk_ident = sk_static();
    let shard = model.table_shard();
    let sharding = match shard {
        Some(shard) => format!(", {} shards merged in sort-key order", shard.strategy.shards()),
        None => String::new(),
    };
    let doc = format!(
        "Items of one partition (pk `{}`{}{sharding}), in sort-key order; narrow them with the \
         sort-key conditions of [`dynashard::Query`].",
        model.pk.source,
        model.sk.as_ref().map(|sk| format!(", sk `{}`", sk.source)).unwrap_or_default()
    );
    let spec = shard.map(|shard| shard::spec_ident(shard, 0));
    let one_shard = shard.zip(spec.as_ref()).and_then(|(shard, spec)| one_shard(spec, shard, &model.pk));
    let layout = spec.as_ref().map(|spec| shard::layout(spec, quote!(__partition), one_shard, None, false));
    let post = shard
        .zip(spec.as_ref())
        .map(|(shard, spec)| shard::routing(spec, shard, model.sk.as_ref()))
        .map(|routing| quote!(__query.routed(#routing)));
    entry_point(EntryPoint {
        model,
        name: format_ident!("query"),
        doc,
        pk: &model.pk,
        pk_static: pk_static(),
        index: None,
        sort_attribute: model.sk.as_ref().map(|_| quote!(#sk_ident.attribute)),
        sort_template: model.sk.as_ref().map(|_| quote!(&#sk_ident)),
        walk: sort_walk(model.sk.as_ref(), key_type),
        param_type: &key_type,
        prelude: spec.as_ref().map(shard::query_prelude),
        layout,
        extra_params: Vec::new(),
        post,
    })
}

struct EntryPoint<'a> {
    model: &'a Entity,
    name: Ident,
    doc: String,
    pk: &'a Template,
    pk_static: Ident,
    index: Option<TokenStream>,
    sort_attribute: Option<TokenStream>,
    sort_template: Option<TokenStream>,
    walk: TokenStream,
    param_type: &'a dyn Fn(&str) -> Option<syn::Type>,
    /// Statements run first (the boundaries a range-sharded query reads with).
    prelude: Option<TokenStream>,
    /// The `Shards` expression of a sharded index, in terms of `__partition: &String`.
    layout: Option<TokenStream>,
    /// Parameters after the partition key fields (time ranges, the `by` value).
    extra_params: Vec<TokenStream>,
    /// Applied to the built query, named `__query`.
    post: Option<TokenStream>,
}

/// `post`, after marking the query as reading a mapping declared `added` when it does: its
/// reads wait for the migration that fills it.
fn marked(post: Option<TokenStream>, added: bool) -> Option<TokenStream> {
    match (added, post) {
        (false, post) => post,
        (true, None) => Some(quote!(__query.added_mapping())),
        (true, Some(post)) => Some(quote!({
            let __query = __query.added_mapping();
            #post
        })),
    }
}

fn entry_point(entry: EntryPoint) -> TokenStream {
    let EntryPoint {
        model,
        name,
        doc,
        pk,
        pk_static,
        index,
        sort_attribute,
        sort_template,
        walk,
        param_type,
        prelude,
        layout,
        extra_params,
        post,
    } = entry;
    let type_name = &model.type_name;
    let mut seen: Vec<&str> = Vec::new();
    let mut params = Vec::new();
    let mut types = Vec::new();
    for field_name in pk.fields() {
        if seen.contains(&field_name) {
            continue;
        }
        seen.push(field_name);
        let Some(key_type) = param_type(field_name) else { continue };
        let ident = format_ident!("{}", field_name, span = key_type.span());
        params.push(quote_spanned!(key_type.span()=> #ident: <#key_type as __dynashard::KeyPart>::Arg<'_>));
        types.push((field_name.to_owned(), key_type));
    }
    let args: Vec<KeyArg> = types
        .iter()
        .map(|(field_name, key_type)| {
            let ident = format_ident!("{}", field_name, span = key_type.span());
            KeyArg { name: field_name.clone(), key_type, arg: quote!(#ident) }
        })
        .collect();
    let partition = compose(&pk_static, pk, &args);
    let index_target =
        index.as_ref().map_or_else(|| quote!(__dynashard::None), |index| quote!(__dynashard::Some(#index)));
    let sort_attribute =
        sort_attribute.map_or_else(|| quote!(__dynashard::None), |a| quote!(__dynashard::Some(#a)));
    let sort_template =
        sort_template.map_or_else(|| quote!(__dynashard::None), |t| quote!(__dynashard::Some(#t)));
    let post = post.unwrap_or_else(|| quote!(__query));
    let item = index.as_ref().map_or_else(|| quote!(Self), super::index_item);
    let shards = match layout {
        Some(layout) => quote!(__partition.as_ref().ok().map(|__partition| #layout)),
        None => quote!(__dynashard::None::<__dynashard::Shards>),
    };
    quote_spanned! {pk.span=>
        #[doc = #doc]
        #[allow(dead_code, clippy::type_complexity)]
        pub fn #name(#(#params,)* #(#extra_params),*) -> __dynashard::Query<#item, #walk> {
            #prelude
            let __partition = (|| -> __dynashard::Result<__dynashard::String> {
                __dynashard::Ok(#partition)
            })();
            #[allow(unused_variables)]
            let __shards = #shards;
            let __query: __dynashard::Query<#item, #walk> = __dynashard::Query::new(
                __dynashard::QueryTarget {
                    table: &__DYNASHARD_TABLE,
                    index: #index_target,
                    type_name: #type_name,
                    partition_attribute: #pk_static.attribute,
                    sort_attribute: #sort_attribute,
                    sort_template: #sort_template,
                },
                __partition,
            );
            let __query = match __shards {
                __dynashard::Some(shards) => __query.sharded(shards),
                __dynashard::None => __query,
            };
            #post
        }
    }
}
