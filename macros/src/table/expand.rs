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
        let pk = &index.pk;
        let sk = index.sk.iter();
        quote! {
            ::dynashard::IndexDefinition {
                name: #name,
                partition_key: &[::dynashard::KeyAttribute { name: #pk, kind: ::dynashard::ScalarKind::String }],
                sort_key: &[#(::dynashard::KeyAttribute { name: #sk, kind: ::dynashard::ScalarKind::String }),*],
            }
        }
    });
    let billing = match &model.capacity {
        Some(capacity) => {
            let (read, write) = (capacity.read, capacity.write);
            quote!(::dynashard::Billing::Provisioned { read: #read, write: #write })
        }
        None => quote!(::dynashard::Billing::PayPerRequest),
    };
    quote! {
        impl ::dynashard::Table for #ident {
            const DEFINITION: ::dynashard::TableDefinition = ::dynashard::TableDefinition {
                name: #name,
                partition_key: #pk,
                sort_key: #sk,
                type_attribute: #type_attribute,
                indexes: &[#(#indexes),*],
                billing: #billing,
            };
        }
    }
}
