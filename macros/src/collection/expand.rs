//! The `Collection` and `FromItem` impls of a checked collection, with the compile-time checks
//! that its members are entities of one table with distinct entity-type names.

use super::ast::Member;
use crate::const_check::ConstCheck;
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::Ident;

/// The impls, inside the door's `const _` block.
pub fn expand(ident: &Ident, members: &[Member]) -> TokenStream {
    let first = &members[0].ty;
    let table = quote!(<#first as __dynashard::Entity>::Table);
    let checks = checks(ident, members);
    let type_names: Vec<TokenStream> = members
        .iter()
        .map(|member| {
            let ty = &member.ty;
            quote!(<#ty as __dynashard::Entity>::TYPE_NAME)
        })
        .collect();
    let arms = members.iter().map(|member| {
        let (variant, ty) = (&member.variant, &member.ty);
        quote! {
            if found == <#ty as __dynashard::Entity>::TYPE_NAME {
                return __dynashard::from_item::<#ty>(item).map(|entity| __dynashard::Some(#ident::#variant(entity)));
            }
        }
    });
    quote! {
            #checks

            #[automatically_derived]
            impl #ident {
                /// A scan of every item of the members' entity types in the table, each decoded as
                /// its variant, in no particular order; run it with `Db::stream`.
                #[allow(dead_code)]
                pub fn scan() -> __dynashard::Scan<Self> {
                    __dynashard::Scan::collection()
                }
            }

            #[automatically_derived]
            impl __dynashard::Collection for #ident {
                type Table = #table;
            }

            #[automatically_derived]
            impl __dynashard::FromItem for #ident {
                const TYPE_NAMES: &'static [&'static str] = &[#(#type_names),*];
                fn from_item(
                    item: __dynashard::Item,
                    skip_other_types: bool,
                ) -> __dynashard::Result<__dynashard::Option<Self>> {
                    let attribute = <#table as __dynashard::Table>::DEFINITION.type_attribute;
                    let found = match item.get(attribute) {
                        __dynashard::Some(__dynashard::AttributeValue::S(name)) => {
                            __dynashard::Some(name.clone())
                        }
                        _ => __dynashard::None,
                    };
                    if let __dynashard::Some(found) = found.as_deref() {
                        #(#arms)*
                    }
                    if skip_other_types {
                        return __dynashard::Ok(__dynashard::None);
                    }
                    __dynashard::Err(__dynashard::Error::UnknownEntityType {
                        expected: <Self as __dynashard::FromItem>::TYPE_NAMES,
                        found,
                    })
                }
            }
    }
}

/// The compile-time checks: the members are entities of one table, with distinct entity-type
/// names, none with a sharded base table.
fn checks(ident: &Ident, members: &[Member]) -> TokenStream {
    let first = &members[0].ty;
    // Naming `TYPE_NAME` first makes a type that is not an entity one error, the same one every
    // other use of it gives, rather than a second one about this bound.
    let same_table = members.iter().skip(1).map(|member| {
        let ty = &member.ty;
        quote_spanned! {ty.span()=>
            let _ = <#ty as __dynashard::Entity>::TYPE_NAME;
            __dynashard_members_share_one_table::<#first, #ty>();
        }
    });
    // Each pair with the same entity-type name is reported at the later variant.
    let distinct_names = members.iter().enumerate().flat_map(|(position, later)| {
        members[..position].iter().map(move |earlier| {
            let (a, b) = (&earlier.ty, &later.ty);
            ConstCheck {
                span: b.span(),
                name: "EntityTypeNamesDiffer",
                holds: quote! {
                    !__dynashard::const_str_eq(
                        <#a as __dynashard::Entity>::TYPE_NAME,
                        <#b as __dynashard::Entity>::TYPE_NAME,
                    )
                },
                message: format!(
                    "variants `{}` and `{}` of collection `{ident}` hold entities with the same entity-type name",
                    earlier.variant, later.variant
                ),
                label: format!("same entity-type name as variant `{}`", earlier.variant),
                note: Some(
                    "a collection tells its items apart by entity-type name; give one of the entities \
                     another name with `#[entity(..., name = \"...\")]`"
                        .to_owned(),
                ),
            }
            .expand()
        })
    });
    // A sharded base table spreads an entity's items over partitions a collection does not read.
    let unsharded = members.iter().map(|member| {
        let (variant, ty) = (&member.variant, &member.ty);
        ConstCheck {
            span: ty.span(),
            name: "BaseTableIsNotSharded",
            holds: quote!(<#ty as __dynashard::Entity>::BASE_TABLE_SHARDS <= 1),
            message: format!(
                "variant `{variant}` of collection `{ident}` holds an entity whose base table is sharded"
            ),
            label: "sharded with `#[shard(hash = .., by = ..)]`".to_owned(),
            note: Some(
                "the entity's items are spread over several partitions, and a collection reads one; \
                 remove the entity from the collection, or shard one of its indexes instead of its base table"
                    .to_owned(),
            ),
        }
        .expand()
    });
    quote! {
        #[allow(dead_code)]
        fn __dynashard_members_share_one_table<
            A: __dynashard::Entity,
            B: __dynashard::Entity<Table = A::Table>,
        >() {
        }
        #[allow(dead_code)]
        fn __dynashard_collection_checks() {
            #(#same_table)*
        }
        #(#distinct_names)*
        #(#unsharded)*
    }
}
