//! Code generated for one table: the `Table` impl with its constant definition.

use super::model::TableModel;
use proc_macro2::TokenStream;
use quote::quote;

/// Expands a checked table.
pub fn expand(model: &TableModel) -> TokenStream {
    let ident = &model.ident;
    let name = &model.name;
    let pk = &model.pk;
    let sk = match &model.sk {
        Some(sk) => quote!(::dynashard::__private::Some(#sk)),
        None => quote!(::dynashard::__private::None),
    };
    let type_attribute = &model.type_attribute;
    let indexes = model.indexes.iter().map(|index| {
        let name = &index.name;
        let attributes = |list: &[(String, &'static str)]| {
            let items = list.iter().map(|(name, kind)| {
                let kind = quote::format_ident!("{}", kind);
                quote!(::dynashard::KeyAttribute { name: #name, kind: ::dynashard::ScalarKind::#kind })
            });
            quote!(&[#(#items),*])
        };
        let (pk, sk) = (attributes(&index.pk), attributes(&index.sk));
        quote! {
            ::dynashard::IndexDefinition { name: #name, partition_key: #pk, sort_key: #sk }
        }
    });
    let billing = match &model.capacity {
        Some(capacity) => {
            let (read, write) = (capacity.read, capacity.write);
            quote!(::dynashard::Billing::Provisioned { read: #read, write: #write })
        }
        None => quote!(::dynashard::Billing::PayPerRequest),
    };
    let shard_metadata = match &model.shard_metadata {
        Some(name) => quote!(::dynashard::__private::Some(#name)),
        None => quote!(::dynashard::__private::None),
    };
    let constants = model.indexes.iter().map(|index| {
        let (name, constant) = (&index.name, &index.constant);
        let doc = format!("The index `{name}`, for the operations that name one (resharding, boundaries).");
        quote! {
            #[doc = #doc]
            pub const #constant: ::dynashard::Index<Self> = ::dynashard::Index::new(#name);
        }
    });
    let constants = (!model.indexes.is_empty()).then(|| {
        quote! {
            #[automatically_derived]
            impl #ident {
                #(#constants)*
            }
        }
    });
    quote! {
        #constants
        #[automatically_derived]
        impl ::dynashard::Table for #ident {
            const DEFINITION: ::dynashard::TableDefinition = ::dynashard::TableDefinition {
                name: #name,
                partition_key: #pk,
                sort_key: #sk,
                type_attribute: #type_attribute,
                indexes: &[#(#indexes),*],
                billing: #billing,
                shard_metadata: #shard_metadata,
            };
        }
    }
}
