//! `#[created_at]` and `#[updated_at]`: their attributes, and a one-field record per field that
//! carries the field's serde attributes, so the current time is written (and read back after a
//! save) exactly as the field stores it.

use crate::entity::ast::{Entity, Field, Timestamp};
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

/// The records (items of the expansion's block) and the `Entity` impl's constants and methods.
pub fn expand(model: &Entity) -> (TokenStream, TokenStream) {
    let stamped: Vec<(Timestamp, &Field)> = [Timestamp::Created, Timestamp::Updated]
        .into_iter()
        .filter_map(|kind| Some((kind, model.timestamp_field(kind)?)))
        .collect();
    if stamped.is_empty() {
        return (TokenStream::new(), TokenStream::new());
    }
    let mut records = TokenStream::new();
    let (mut writes, mut reads, mut constants) = (Vec::new(), Vec::new(), Vec::new());
    for (kind, field) in stamped {
        let record = match kind {
            Timestamp::Created => format_ident!("__DynashardCreatedAt"),
            Timestamp::Updated => format_ident!("__DynashardUpdatedAt"),
        };
        let (ident, ty, attribute) = (&field.ident, &field.ty, &field.attribute);
        records.extend(super::field_record::record(&record, field, true));
        let now = quote_spanned!(ty.span()=> <#ty as __dynashard::Timestamp>::from_time(now));
        writes.push(quote! {
            item.extend(__dynashard::stamp_attributes(&#record { value: #now })?);
        });
        reads.push(quote! {
            if let __dynashard::Some(stamp) = __dynashard::read_stamp::<#record>(item, #attribute)? {
                self.#ident = stamp.value;
            }
        });
        let constant = match kind {
            Timestamp::Created => format_ident!("CREATED_AT"),
            Timestamp::Updated => format_ident!("UPDATED_AT"),
        };
        constants.push(
            quote!(const #constant: __dynashard::Option<&'static str> = __dynashard::Some(#attribute);),
        );
    }
    let members = quote! {
        #(#constants)*

        fn timestamps_at(now: __dynashard::OffsetDateTime) -> __dynashard::Result<__dynashard::Item> {
            let mut item = __dynashard::Item::new();
            #(#writes)*
            __dynashard::Ok(item)
        }

        fn set_timestamps(&mut self, item: &__dynashard::Item) -> __dynashard::Result<()> {
            #(#reads)*
            __dynashard::Ok(())
        }
    };
    (records, members)
}
