//! Code generated for one table: the `Table` impl with its constant definition.

use super::ast::{Index, Table};
use super::attr::{KeyAttr, Projection, ScalarKind};
use proc_macro2::TokenStream;
use quote::quote;

/// Expands a checked table.
pub fn expand(model: &Table) -> TokenStream {
    let ident = &model.ident;
    let name = &model.name.value;
    let pk = &model.pk.value;
    let sk = match &model.sk {
        Some(sk) => {
            let sk = &sk.value;
            quote!(__dynashard::Some(#sk))
        }
        None => quote!(__dynashard::None),
    };
    let type_attribute = &model.type_attribute;
    let indexes = model.indexes.iter().map(|index| index_definition(index, type_attribute));
    let billing = match &model.capacity {
        Some(capacity) => {
            let (read, write) = (capacity.read, capacity.write);
            quote!(__dynashard::Billing::Provisioned { read: #read, write: #write })
        }
        None => quote!(__dynashard::Billing::PayPerRequest),
    };
    let stream = match &model.stream {
        Some(view) => {
            let variant = match view.as_str() {
                "NEW_IMAGE" => quote!(NewImage),
                "OLD_IMAGE" => quote!(OldImage),
                "KEYS_ONLY" => quote!(KeysOnly),
                _ => quote!(NewAndOldImages),
            };
            quote!(__dynashard::Some(__dynashard::StreamView::#variant))
        }
        None => quote!(__dynashard::None),
    };
    let deletion_protection = model.deletion_protection;
    let point_in_time_recovery = model.point_in_time_recovery;
    let warm_throughput = warm_throughput(model.warm_throughput.unwrap_or((None, None)));
    let (tag_keys, tag_values): (Vec<&String>, Vec<&String>) = model.tags.iter().map(|(k, v)| (k, v)).unzip();
    let ttl = match &model.ttl {
        Some(ttl) => {
            let ttl = &ttl.value;
            quote!(__dynashard::Some(#ttl))
        }
        None => quote!(__dynashard::None),
    };
    let shard_metadata = match &model.shard_metadata {
        Some(name) => {
            let name = &name.value;
            quote!(__dynashard::Some(#name))
        }
        None => quote!(__dynashard::None),
    };
    let constants = index_constants(model);
    model.door.enclose(quote! {
        #constants
        #[automatically_derived]
        impl __dynashard::Table for #ident {
            const DEFINITION: __dynashard::TableDefinition = __dynashard::TableDefinition {
                name: #name,
                partition_key: #pk,
                sort_key: #sk,
                type_attribute: #type_attribute,
                indexes: &[#(#indexes),*],
                billing: #billing,
                shard_metadata: #shard_metadata,
                ttl: #ttl,
                stream: #stream,
                deletion_protection: #deletion_protection,
                point_in_time_recovery: #point_in_time_recovery,
                warm_throughput: #warm_throughput,
                tags: &[#((#tag_keys, #tag_values)),*],
            };
        }
    })
}

/// An `Option<WarmThroughput>`: `None` when neither reads nor writes are declared.
fn warm_throughput((reads, writes): (Option<u64>, Option<u64>)) -> TokenStream {
    if reads.is_none() && writes.is_none() {
        return quote!(__dynashard::None);
    }
    let units = |units: Option<u64>| match units {
        Some(units) => quote!(__dynashard::Some(#units)),
        None => quote!(__dynashard::None),
    };
    let (reads, writes) = (units(reads), units(writes));
    quote!(__dynashard::Some(__dynashard::WarmThroughput { reads_per_second: #reads, writes_per_second: #writes }))
}

/// One index's `IndexDefinition`.
fn index_definition(index: &Index, type_attribute: &String) -> TokenStream {
    let name = &index.gsi.name.value;
    let attributes = |list: &[KeyAttr]| {
        let items = list.iter().map(|KeyAttr { name, kind }| {
            let kind = match kind {
                ScalarKind::String => quote!(String),
                ScalarKind::Number => quote!(Number),
                ScalarKind::Binary => quote!(Binary),
            };
            quote!(__dynashard::KeyAttribute { name: #name, kind: __dynashard::ScalarKind::#kind })
        });
        quote!(&[#(#items),*])
    };
    let (pk, sk) = (attributes(&index.gsi.pk), attributes(&index.gsi.sk));
    let projection = match &index.gsi.projection {
        Projection::All => quote!(__dynashard::IndexProjection::All),
        Projection::KeysOnly => quote!(__dynashard::IndexProjection::KeysOnly),
        // The entity-type attribute is always held, so items read from the index can be told
        // apart by type (views, and entities whose attributes the index holds).
        Projection::Include(names) => {
            let typed = (!names.contains(type_attribute)).then_some(type_attribute);
            quote!(__dynashard::IndexProjection::Include(&[#(#names,)* #typed]))
        }
    };
    let local = index.gsi.local;
    let warm_throughput = warm_throughput(index.gsi.warm);
    quote! {
        __dynashard::IndexDefinition {
            name: #name,
            local: #local,
            partition_key: #pk,
            sort_key: #sk,
            projection: #projection,
            warm_throughput: #warm_throughput,
        }
    }
}

/// The `Index` constants of the table's indexes, if it has any.
fn index_constants(model: &Table) -> Option<TokenStream> {
    let ident = &model.ident;
    let constants = model.indexes.iter().map(|index| {
        let (name, constant) = (&index.gsi.name.value, &index.constant);
        let doc = format!("The index `{name}`, for the operations that name one (resharding, boundaries).");
        quote! {
            #[doc = #doc]
            pub const #constant: __dynashard::Index<Self> = __dynashard::Index::new(#name);
        }
    });
    (!model.indexes.is_empty()).then(|| {
        quote! {
            #[automatically_derived]
            impl #ident {
                #(#constants)*
            }
        }
    })
}
