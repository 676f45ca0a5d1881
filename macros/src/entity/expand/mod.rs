//! Code generated for one entity: key templates, the key builder, the `Entity` and `FromItem`
//! impls, the field handles, index keys and query entry points.

mod added;
mod field_record;
mod handles;
mod index;
mod index_lookup;
mod keys;
mod names;
mod native;
mod query;
mod shard;
mod stamps;
mod stored;
mod table;

use crate::const_check::{path_text, ConstCheck};
use crate::entity::ast::{Entity, Field};
use keys::{as_arg, compose, template_static, KeyArg};
use names::{definition, pk_static, sk_static};
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote, quote_spanned};
pub use stored::index_item;
use stored::{attributes, attributes_const, key_field_specs, required_attributes, set_attributes, ttl_items};
use syn::spanned::Spanned;
pub use table::check;
use table::table_definition;

/// Expands a checked entity.
///
/// Every use of a key field's type is spanned at that type, so a type that is not a `KeyPart`
/// gets one error there; the table's `Table` impl is required only by `type Table`, so a type
/// that is not a table gets one error at the `table = ...` path.
pub fn expand(model: &Entity) -> TokenStream {
    let ident = &model.ident;
    let table = &model.table;
    let type_name = &model.type_name;
    let definition = definition();
    let table_definition = table_definition(model);
    let templates = base_templates(model);
    let sort_key_check = sort_key_check(model);
    let reserved_attribute_checks = reserved_attribute_checks(model);
    let key_fn = key_fn(model);
    let compose_from_self = key_from_self(model);
    let version = version_items(model);
    let (fields_struct, fields_fn) = handles::field_handles(model);
    let indexes = index::expand(model);
    let queries = query::expand(model);
    let index_statics = &indexes.statics;
    let write_index_keys = &indexes.write_index_keys;
    let index_key_updates = &indexes.index_key_updates;
    let (table_spec, shard_specs) = shard::specs(model);
    let (added_checks, added) = added::expand(model);
    let attributes = attributes(model);
    let constants = entity_constants(model);
    let (ttl_const, ttl_check) = ttl_items(model);
    let (timestamp_records, timestamp_members) = stamps::expand(model);
    let body = quote! {
            #table_definition
            #ttl_check
            #timestamp_records
            #attributes
            #[allow(dead_code)]
            static __DYNASHARD_TABLE: __dynashard::TableDefinition = *#definition;

            #sort_key_check
            #templates
            #index_statics
            #table_spec
            #added_checks
            #reserved_attribute_checks

            #[automatically_derived]
            impl #ident {
                #key_fn

                /// A scan of every item of this entity type in its table, in no particular order;
                /// run it with `Db::stream`.
                #[allow(dead_code)]
                pub fn scan() -> __dynashard::Scan<Self> {
                    __dynashard::Scan::entity()
                }

                #fields_fn
                #queries
            }

            #[automatically_derived]
            impl __dynashard::Entity for #ident {
                type Table = #table;
                const TYPE_NAME: &'static str = #type_name;
                #constants
                #ttl_const
                #timestamp_members
                #version

                fn primary_key(&self) -> __dynashard::Result<__dynashard::PrimaryKey> {
                    __dynashard::Ok(#compose_from_self)
                }

                #write_index_keys
                #index_key_updates
                #shard_specs
                #added
            }

            #[automatically_derived]
            impl __dynashard::FromItem for #ident {
                const TYPE_NAMES: &'static [&'static str] = &[#type_name];
                fn from_item(
                    item: __dynashard::Item,
                    skip_other_types: bool,
                ) -> __dynashard::Result<__dynashard::Option<Self>> {
                    __dynashard::from_item_checked::<Self>(item, skip_other_types)
                }
            }
    };
    let body = model.door.enclose(body);
    quote! {
        #fields_struct
        #body
    }
}

/// The statics holding the base table's key templates.
fn base_templates(model: &Entity) -> TokenStream {
    let definition = definition();
    let pk = template_static(&pk_static(), &model.pk, quote!(#definition.partition_key), "Partition");
    let sk = model.sk.as_ref().map(|sk| {
        let attribute = quote! {
            match #definition.sort_key {
                __dynashard::Some(name) => name,
                __dynashard::None => "",
            }
        };
        template_static(&sk_static(), sk, attribute, "Sort")
    });
    quote!(#pk #sk)
}

/// The `PrimaryKey` expression composed from `args`.
fn primary_key(model: &Entity, args: &[KeyArg]) -> TokenStream {
    let mut pk = compose(&pk_static(), &model.pk, args);
    if let Some(shard) = model.table_shard() {
        let by: Vec<TokenStream> = shard
            .by
            .iter()
            .filter_map(|by| args.iter().find(|arg| *by == arg.name))
            .map(|arg| arg.arg.clone())
            .collect();
        let text = shard::routing_text(&by);
        let spec = shard::spec_ident(shard, 0);
        pk = quote!(#spec.key_partition(&#pk, &#text)?);
    }
    let sk = match &model.sk {
        Some(sk) => {
            let sk = compose(&sk_static(), sk, args);
            quote!(__dynashard::Some(#sk))
        }
        None => quote!(__dynashard::None),
    };
    quote!(__dynashard::PrimaryKey { pk: #pk, sk: #sk })
}

/// The key builder's parameter for `field`, spanned at the field's type.
pub fn param_ident(field: &Field) -> Ident {
    format_ident!("{}", field.ident, span = field.ty.span())
}

/// `name: <T as KeyPart>::Arg<'_>`.
pub fn param(field: &Field) -> TokenStream {
    let name = param_ident(field);
    let ty = &field.ty;
    quote_spanned!(ty.span()=> #name: <#ty as __dynashard::KeyPart>::Arg<'_>)
}

/// Checks at compile time that the entity declares `sk` exactly when its table has a sort key,
/// reported at the `sk` template, or at the table path.
fn sort_key_check(model: &Entity) -> TokenStream {
    let ident = &model.ident;
    let table = path_text(&model.table);
    let definition = definition();
    let check = match &model.sk {
        Some(sk) => ConstCheck {
            span: sk.span,
            name: "TableHasSortKey",
            holds: quote!(#definition.sort_key.is_some()),
            message: format!("entity `{ident}` declares `sk`, but table `{table}` has no sort key"),
            label: "the table has no sort-key attribute to store this template in".to_owned(),
            note: Some(format!(
                "remove `sk = \"...\"` from `#[entity(...)]`, or declare a sort key on the table: \
                 `#[table(..., sk = \"sk\")]` on `{table}`"
            )),
        },
        None => ConstCheck {
            span: model.table.span(),
            name: "TableHasNoSortKey",
            holds: quote!(#definition.sort_key.is_none()),
            message: format!("table `{table}` has a sort key, so entity `{ident}` needs `sk = \"...\"`"),
            label: "this table's items have a sort key".to_owned(),
            note: Some(format!(
                "add a sort-key template to `#[entity(...)]`: a constant such as `sk = \"{ident}\"` when \
                 there is one `{ident}` per partition key, or a template such as `sk = \"{ident}#{{field}}\"`"
            )),
        },
    };
    self::check(&check)
}

/// Checks at compile time that no field is stored under an attribute that dynashard writes
/// itself: the table's key attributes, its entity-type attribute, and the key attributes of the
/// indexes the entity maps with key templates. Fields skipped or flattened by serde are not
/// seen here; flattened ones are checked when an item is written.
fn reserved_attribute_checks(model: &Entity) -> TokenStream {
    let table = path_text(&model.table);
    let definition = definition();
    let mut checks = Vec::new();
    for field in model.fields.iter().filter(|field| !field.no_attribute) {
        let (name, attribute) = (&field.ident, &field.attribute);
        let stored = format!("field `{name}` is stored as attribute `{attribute}`");
        let rename = "give the field another attribute name with `#[serde(rename = \"...\")]`, or rename it";
        checks.push(ConstCheck {
            span: name.span(),
            name: "NotATableKeyAttribute",
            holds: quote! {
                !__dynashard::const_str_eq(#definition.partition_key, #attribute)
                    && !match #definition.sort_key {
                        __dynashard::Some(sort_key) => {
                            __dynashard::const_str_eq(sort_key, #attribute)
                        }
                        __dynashard::None => false,
                    }
            },
            message: format!("{stored}, which is a key attribute of table `{table}`"),
            label: format!("stored as `{attribute}`"),
            note: Some(format!(
                "dynashard writes the table's key attributes itself, from the `pk` and `sk` templates \
                 of `#[entity(...)]`; {rename}"
            )),
        });
        checks.push(ConstCheck {
            span: name.span(),
            name: "NotTheTypeAttribute",
            holds: quote!(!__dynashard::const_str_eq(#definition.type_attribute, #attribute)),
            message: format!("{stored}, which is the entity-type attribute of table `{table}`"),
            label: format!("stored as `{attribute}`"),
            note: Some(format!(
                "dynashard writes each item's entity type (`{}`) in this attribute; {rename}, or set \
                 another `type_attribute = \"...\"` on the table",
                model.type_name
            )),
        });
        for (position, mapping) in model.indexes.iter().enumerate() {
            let index = names::index_const(position);
            let fillable = index_lookup::fillable_by_templates(position);
            let index_name = &mapping.name;
            let kind = if mapping.sparse { "sparse_gsi" } else { "gsi" };
            // An index that key templates cannot fill has its own error.
            checks.push(ConstCheck {
                span: name.span(),
                name: "NotAnIndexKeyAttribute",
                holds: quote! {
                    !#fillable
                        || (!__dynashard_names(#index.partition_key, #attribute)
                            && !__dynashard_names(#index.sort_key, #attribute))
                },
                message: format!("{stored}, which is a key attribute of index `{index_name}`"),
                label: format!("stored as `{attribute}`"),
                note: Some(format!(
                    "dynashard writes index `{index_name}`'s key attributes itself, from the templates \
                     of `#[{kind}({index_name}(...))]`; {rename}"
                )),
            });
        }
    }
    let names = (!model.indexes.is_empty()).then(|| {
        quote! {
            #[allow(dead_code)]
            const fn __dynashard_names(attributes: &[__dynashard::KeyAttribute], name: &str) -> bool {
                let mut position = 0;
                while position < attributes.len() {
                    if __dynashard::const_str_eq(attributes[position].name, name) {
                        return true;
                    }
                    position += 1;
                }
                false
            }
        }
    });
    let checks = checks.iter().map(check);
    quote!(#names #(#checks)*)
}

fn version_items(model: &Entity) -> TokenStream {
    match model.version_field() {
        Some(field) => {
            let ident = &field.ident;
            let attribute = &field.attribute;
            quote! {
                const VERSION_ATTRIBUTE: ::core::option::Option<&'static str> =
                    __dynashard::Some(#attribute);
                fn version(&self) -> u64 {
                    self.#ident
                }
                fn set_version(&mut self, version: u64) {
                    self.#ident = version;
                }
            }
        }
        None => quote!(),
    }
}

/// `Self::key(...)`: the primary key of the entity from its key fields.
fn key_fn(model: &Entity) -> TokenStream {
    let key_fields = model.key_fields();
    let params = key_fields.iter().map(|field| param(field));
    let param_args: Vec<KeyArg> = key_fields
        .iter()
        .map(|field| {
            let name = param_ident(field);
            KeyArg { name: field.ident.to_string(), key_type: &field.ty, arg: quote!(#name) }
        })
        .collect();
    let compose_from_params = primary_key(model, &param_args);
    let key_doc = format!(
        "The primary key of a [`{}`] from its key fields (pk `{}`{}).",
        model.ident,
        model.pk.source,
        model.sk.as_ref().map(|sk| format!(", sk `{}`", sk.source)).unwrap_or_default()
    );
    quote! {
        #[doc = #key_doc]
        #[allow(dead_code)]
        pub fn key(#(#params),*) -> __dynashard::Result<__dynashard::Key<Self>> {
            __dynashard::Ok(__dynashard::Key::from_primary(#compose_from_params))
        }
    }
}

/// The `Entity` impl's constants that describe the entity's attributes and shards.
fn entity_constants(model: &Entity) -> TokenStream {
    let key_fields = model.key_fields();
    let dynamic_shards = model.shards.iter().any(|shard| shard.strategy.is_dynamic()).then(|| {
        quote!(
            const DYNAMIC_SHARDS: bool = true;
        )
    });
    let base_table_shards = model.table_shard().map(|shard| {
        let shards = shard.strategy.shards();
        quote!(const BASE_TABLE_SHARDS: u32 = #shards;)
    });

    let attributes_const = attributes_const();
    let sets = set_attributes(model);
    let key_field_types = key_fields.iter().map(|field| &field.ty);
    let key_field_specs = key_field_specs(model);
    let required = required_attributes(model);
    quote! {
        const ATTRIBUTES: __dynashard::Option<&'static [&'static str]> = #attributes_const;
        const SETS: &'static [__dynashard::SetAttribute] = &[#(#sets),*];
        type KeyFields = (#(#key_field_types,)*);
        const KEY_FIELDS: &'static [__dynashard::KeyField] = &[#(#key_field_specs),*];
        const REQUIRED: &'static [&'static str] = &[#(#required),*];
        #base_table_shards
        #dynamic_shards
    }
}

/// The primary key composed from `self`'s key fields.
fn key_from_self(model: &Entity) -> TokenStream {
    let key_fields = model.key_fields();
    let self_args: Vec<KeyArg> = key_fields
        .iter()
        .map(|field| {
            let name = &field.ident;
            KeyArg {
                name: name.to_string(),
                key_type: &field.ty,
                arg: as_arg(&field.ty, quote!(&self.#name)),
            }
        })
        .collect();
    primary_key(model, &self_args)
}
