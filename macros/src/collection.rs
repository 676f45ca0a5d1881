//! `#[derive(Collection)]`: an enum of entities that share a partition key, read with one query
//! and dispatched on the entity-type attribute.

use crate::const_check::ConstCheck;
use crate::errors::Errors;
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, Ident, Type};

struct Member {
    variant: Ident,
    ty: Type,
}

/// Derives `dynashard::Collection` and `FromItem` for an enum of single-entity variants.
pub fn derive(input: DeriveInput) -> syn::Result<TokenStream> {
    let mut errors = Errors::default();
    if !input.generics.params.is_empty() {
        errors.push_spanned(&input.generics, "`Collection` cannot be derived for generic enums");
    }
    let Data::Enum(data) = &input.data else {
        return Err(syn::Error::new(input.ident.span(), "`Collection` can only be derived for enums"));
    };
    let mut members: Vec<Member> = Vec::new();
    for variant in &data.variants {
        match &variant.fields {
            Fields::Unnamed(fields) if fields.unnamed.len() == 1 => {
                let ty = fields.unnamed[0].ty.clone();
                let text = quote!(#ty).to_string();
                if members.iter().any(|member| {
                    let known = &member.ty;
                    quote!(#known).to_string() == text
                }) {
                    errors.push_spanned(&ty, "each entity type can appear only once in a collection");
                }
                members.push(Member { variant: variant.ident.clone(), ty });
            }
            _ => errors.push_spanned(
                variant,
                "each variant of a collection holds exactly one entity, like `Album(Album)`",
            ),
        }
    }
    if data.variants.is_empty() {
        errors.push(input.ident.span(), "a collection needs at least one entity variant");
    }
    errors.finish(())?;
    Ok(expand(&input.ident, &members))
}

fn expand(ident: &Ident, members: &[Member]) -> TokenStream {
    let first = &members[0].ty;
    let table = quote!(<#first as ::dynashard::Entity>::Table);
    // Naming `TYPE_NAME` first makes a type that is not an entity one error, the same one every
    // other use of it gives, rather than a second one about this bound.
    let same_table = members.iter().skip(1).map(|member| {
        let ty = &member.ty;
        quote_spanned! {ty.span()=>
            let _ = <#ty as ::dynashard::Entity>::TYPE_NAME;
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
                    !::dynashard::__private::const_str_eq(
                        <#a as ::dynashard::Entity>::TYPE_NAME,
                        <#b as ::dynashard::Entity>::TYPE_NAME,
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
            holds: quote!(<#ty as ::dynashard::Entity>::BASE_TABLE_SHARDS <= 1),
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
    let type_names: Vec<TokenStream> = members
        .iter()
        .map(|member| {
            let ty = &member.ty;
            quote!(<#ty as ::dynashard::Entity>::TYPE_NAME)
        })
        .collect();
    let arms = members.iter().map(|member| {
        let (variant, ty) = (&member.variant, &member.ty);
        quote! {
            if found == <#ty as ::dynashard::Entity>::TYPE_NAME {
                return ::dynashard::item::from_item::<#ty>(item).map(|entity| ::dynashard::__private::Some(#ident::#variant(entity)));
            }
        }
    });
    quote! {
        #[allow(non_local_definitions)]
        const _: () = {
            #[allow(dead_code)]
            fn __dynashard_members_share_one_table<
                A: ::dynashard::Entity,
                B: ::dynashard::Entity<Table = A::Table>,
            >() {
            }
            #[allow(dead_code)]
            fn __dynashard_collection_checks() {
                #(#same_table)*
            }
            #(#distinct_names)*
            #(#unsharded)*

            impl ::dynashard::Collection for #ident {
                type Table = #table;
                const TYPE_NAMES: &'static [&'static str] = &[#(#type_names),*];
            }

            impl ::dynashard::__private::FromItem for #ident {
                fn from_item(
                    item: ::dynashard::Item,
                    skip_other_types: bool,
                ) -> ::dynashard::Result<::dynashard::__private::Option<Self>> {
                    let attribute = <#table as ::dynashard::Table>::DEFINITION.type_attribute;
                    let found = match item.get(attribute) {
                        ::dynashard::__private::Some(::dynashard::__private::AttributeValue::S(name)) => {
                            ::dynashard::__private::Some(name.clone())
                        }
                        _ => ::dynashard::__private::None,
                    };
                    if let ::dynashard::__private::Some(found) = found.as_deref() {
                        #(#arms)*
                    }
                    if skip_other_types {
                        return ::dynashard::__private::Ok(::dynashard::__private::None);
                    }
                    ::dynashard::__private::Err(::dynashard::Error::UnknownEntityType {
                        expected: <Self as ::dynashard::Collection>::TYPE_NAMES,
                        found,
                    })
                }
            }
        };
    }
}
