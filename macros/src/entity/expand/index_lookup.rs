//! The constants of an entity's index mappings: each mapped index's definition, looked up in
//! the table's at compile time, its key templates and boundaries, and the checks that the table
//! declares the index with the key shape the mapping needs.

use super::keys::template_static;
use super::names::{definition, index_const, index_statics};
use super::shard;
use crate::const_check::{path_text, ConstCheck};
use crate::entity::ast::Entity;
use crate::entity::attr::IndexMapping;
use proc_macro2::{Ident, TokenStream};
use quote::quote;

/// The constants of mapping `position`: its index definition, key templates and boundaries, with
/// the compile-time checks of the index against the mapping.
pub fn statics(model: &Entity, position: usize, mapping: &IndexMapping) -> TokenStream {
    let boundaries = model.shard_of(&mapping.name).map(|shard| shard::statics(model, position, shard));
    let name = &mapping.name;
    let index = index_const(position);
    let (pk_ident, sk_ident) = index_statics(position);
    let definition = definition();
    let find = quote!(__dynashard::find_index(#definition.indexes, #name));
    // A stand-in shaped like the mapping, for an index the table does not declare: the check
    // below reports that once, and nothing else fails because of it.
    let stand_in_attribute =
        quote!(__dynashard::KeyAttribute { name: "", kind: __dynashard::ScalarKind::String });
    let stand_in_sort = mapping.sk.as_ref().map(|_| &stand_in_attribute);
    let pk_attribute = quote!(__dynashard::attribute_name(#index.partition_key, 0));
    let pk = template_static(&pk_ident, &mapping.pk, pk_attribute, "Partition");
    let sk = mapping.sk.as_ref().map(|sk| {
        let attribute = quote!(__dynashard::attribute_name(#index.sort_key, 0));
        template_static(&sk_ident, sk, attribute, "Sort")
    });
    let local = mapping.local;
    let checks = shape_checks(model, mapping, &index, find.clone());
    let checks = checks.iter().map(super::check);
    quote! {
        #[allow(dead_code)]
        const #index: &__dynashard::IndexDefinition = match #find {
            __dynashard::Some(index) => index,
            __dynashard::None => &__dynashard::IndexDefinition {
                name: #name,
                local: #local,
                partition_key: &[#stand_in_attribute],
                sort_key: &[#stand_in_sort],
                projection: __dynashard::IndexProjection::All,
                warm_throughput: __dynashard::None,
            },
        };
        #(#checks)*
        #pk
        #sk
        #boundaries
    }
}

/// Whether the index in constant `index` has one partition and at most one sort key attribute.
fn single_attribute_keys(index: &Ident) -> TokenStream {
    quote!((#index.partition_key.len() == 1 && #index.sort_key.len() <= 1))
}

/// Whether the index in constant `index`, with single-attribute keys, has string key attributes.
fn string_keys(index: &Ident) -> TokenStream {
    quote! {
        (__dynashard::same_kind(#index.partition_key[0].kind, __dynashard::ScalarKind::String)
            && (#index.sort_key.is_empty()
                || __dynashard::same_kind(#index.sort_key[0].kind, __dynashard::ScalarKind::String)))
    }
}

/// Whether key templates can fill the index in constant `index` (mapping `position`): a
/// declared index, or the stand-in of an undeclared one, with single string key attributes.
pub fn fillable_by_templates(position: usize) -> TokenStream {
    let index = index_const(position);
    let (single, strings) = (single_attribute_keys(&index), string_keys(&index));
    quote!((#single && #strings))
}

/// Checks that the table declares index `name`, which the entity maps (with `#[kind(...)]`);
/// `find` is the `Option<&IndexDefinition>` constant expression that looks it up.
pub fn index_declared_check(
    model: &Entity,
    name: &str,
    span: proc_macro2::Span,
    kind: &str,
    find: TokenStream,
) -> ConstCheck<'static> {
    let ident = &model.ident;
    let table = path_text(&model.table);
    ConstCheck {
        span,
        name: "IndexIsDeclared",
        holds: quote!(#find.is_some()),
        message: format!(
            "entity `{ident}` maps index `{name}`, but table `{table}` declares no index `{name}`"
        ),
        label: format!("not an index of table `{table}`"),
        note: Some(format!(
            "declare the index on the table, e.g. `#[gsi({name}(pk = \"...\", sk = \"...\"))]` on \
             `{table}`, or correct the name in `#[{kind}({name}(...))]`"
        )),
    }
}

/// The checks that the table declares mapping's index (`index`, found by `find`) with the key
/// shape the mapping needs. Each holds for the stand-in, so an undeclared index is reported once;
/// the checks after the shape check hold for any other shape, so a multi-attribute index is
/// reported once.
fn shape_checks(
    model: &Entity,
    mapping: &IndexMapping,
    index: &Ident,
    find: TokenStream,
) -> Vec<ConstCheck<'static>> {
    let (ident, name) = (&model.ident, &mapping.name);
    let table = path_text(&model.table);
    let kind = mapping.kind();
    let local = mapping.local;
    let single = single_attribute_keys(index);
    let (declared_as, mapped_as) =
        if local { ("global", "`#[lsi(...)]`") } else { ("local", "`#[gsi(...)]`") };
    let mut checks = vec![
        index_declared_check(model, &mapping.name, mapping.name_span, kind, find),
        ConstCheck {
            span: mapping.name_span,
            name: "IndexIsOfTheMappedKind",
            holds: quote!(#index.local == #local),
            message: format!(
                "index `{name}` of table `{table}` is a {declared_as} index, mapped with {mapped_as}"
            ),
            label: format!("declared {declared_as}"),
            note: Some(format!(
                "map a global index with `#[gsi({name}(pk = \"...\", sk = \"...\"))]` and a local one with \
                 `#[lsi({name}(sk = \"...\"))]`"
            )),
        },
        ConstCheck {
            span: mapping.name_span,
            name: "IndexHasSingleAttributeKeys",
            holds: single.clone(),
            message: format!(
                "index `{name}` of table `{table}` has a multi-attribute key, which key templates cannot fill"
            ),
            label: "mapped with key templates".to_owned(),
            note: Some(format!(
                "map it with field lists instead: `#[{kind}({name}(pk = [field, ...], sk = [field, ...]))]`"
            )),
        },
        ConstCheck {
            span: mapping.name_span,
            name: "IndexHasStringKeys",
            holds: {
                let strings = string_keys(index);
                quote!(!#single || #strings)
            },
            message: format!(
                "index `{name}` of table `{table}` declares a number or binary key attribute, but key \
                 templates write strings"
            ),
            label: "mapped with key templates".to_owned(),
            note: Some(format!(
                "declare the index's key attributes as strings (`\"attribute\"` or `\"attribute:S\"`), or \
                 map the index with field lists: `#[{kind}({name}(pk = [field], sk = [field]))]`"
            )),
        },
    ];
    // A mismatched sort key is reported at `sk` when the mapping gives one, else at the name.
    checks.push(match &mapping.sk {
        Some(sk) => ConstCheck {
            span: sk.span,
            name: "IndexHasSortKey",
            holds: quote!(!#single || !#index.sort_key.is_empty()),
            message: format!("index `{name}` of table `{table}` has no sort key, so the mapping cannot give `sk`"),
            label: "the index has no sort-key attribute to store this template in".to_owned(),
            note: Some(format!(
                "remove `sk = \"...\"` from `#[{kind}({name}(...))]`, or declare a sort key on the index: \
                 `#[gsi({name}(pk = \"...\", sk = \"...\"))]` on `{table}`"
            )),
        },
        None => ConstCheck {
            span: mapping.name_span,
            name: "IndexHasNoSortKey",
            holds: quote!(!#single || #index.sort_key.is_empty()),
            message: format!("index `{name}` of table `{table}` has a sort key, so the mapping needs `sk = \"...\"`"),
            label: "this index's items have a sort key".to_owned(),
            note: Some(format!(
                "add a sort-key template: `#[{kind}({name}(pk = \"...\", sk = \"...\"))]`; a constant such as \
                 `sk = \"{ident}\"` is fine when the partition key alone tells the items apart"
            )),
        },
    });
    checks
}
