//! The validated model of one `#[derive(Entity)]`.

use super::index_model::{self, IndexMappingModel, NativeMappingModel};
use super::shard_model::{self, ShardModel};
use crate::attr::{set_once, unknown_key, value};
use crate::door::{set_door, Door};
use crate::errors::Errors;
use crate::serde_attrs;
use crate::template::{self, Template};
use syn::{Attribute, Data, DeriveInput, Fields, Ident, LitStr, Path, Type, Visibility};

/// One struct field.
pub struct FieldModel {
    pub ident: Ident,
    pub ty: Type,
    /// The attribute name serde writes it under.
    pub attribute: String,
    /// Skipped or flattened by serde.
    pub no_attribute: bool,
    pub is_version: bool,
    pub is_key: bool,
}

/// A checked entity declaration.
pub struct EntityModel {
    pub ident: Ident,
    pub vis: Visibility,
    pub table: Path,
    pub pk: Template,
    pub sk: Option<Template>,
    pub type_name: String,
    pub fields: Vec<FieldModel>,
    pub indexes: Vec<IndexMappingModel>,
    pub native_indexes: Vec<NativeMappingModel>,
    pub shards: Vec<ShardModel>,
    /// Where generated code finds the runtime.
    pub door: Door,
}

const ENTITY_KEYS: &[&str] = &["table", "pk", "sk", "name", "crate"];

#[derive(Default)]
struct EntityArgs {
    table: Option<Path>,
    pk: Option<LitStr>,
    sk: Option<LitStr>,
    name: Option<LitStr>,
    door: Option<Door>,
    /// The first `#[entity(...)]` attribute, where missing keys are reported.
    attr: Option<Attribute>,
    /// An attribute failed to parse; its error is reported, so missing keys are not.
    malformed: bool,
}

impl EntityModel {
    /// Parses and checks the derive input, reporting every problem at once.
    pub fn from_input(input: &DeriveInput) -> syn::Result<Self> {
        let mut errors = Errors::default();
        if !input.generics.params.is_empty() {
            errors.push_spanned(&input.generics, "`Entity` cannot be derived for generic structs");
        }
        let args = parse_entity_args(input, &mut errors);
        let mut fields = parse_fields(input, &mut errors);
        let table = args.table.clone();
        // A missing or malformed attribute has its own error; missing keys would only repeat it.
        if let Some(attr) = args.attr.as_ref().filter(|_| !args.malformed) {
            if table.is_none() {
                errors.push_spanned(attr, "missing `table = ...` in `#[entity(...)]`");
            }
            if args.pk.is_none() {
                errors.push_spanned(attr, "missing `pk = \"...\"` in `#[entity(...)]`");
            }
        }
        let pk =
            args.pk.as_ref().and_then(|literal| template::parse(literal).map_err(|e| errors.add(e)).ok());
        let sk =
            args.sk.as_ref().and_then(|literal| template::parse(literal).map_err(|e| errors.add(e)).ok());
        // Without named fields (already reported), every placeholder would be reported as unknown.
        if let Some(fields) = &mut fields {
            for template in pk.iter().chain(&sk) {
                check_template_fields(template, fields, &mut errors);
            }
        }
        let (indexes, native_indexes) = index_model::parse(&input.attrs, fields.as_deref(), &mut errors);
        let shards = shard_model::parse(
            &input.attrs,
            &indexes,
            (pk.as_ref(), sk.as_ref()),
            fields.as_deref(),
            &mut errors,
        );
        let type_name = args.name.as_ref().map(LitStr::value).unwrap_or_else(|| input.ident.to_string());
        if let Some(name) = args.name.as_ref().filter(|name| name.value().is_empty()) {
            errors.push(name.span(), "the entity `name` cannot be empty");
        }
        let door = args.door.clone().unwrap_or_default();
        let model = match (table, pk, fields) {
            (Some(table), Some(pk), Some(fields)) => Some(EntityModel {
                ident: input.ident.clone(),
                vis: input.vis.clone(),
                table,
                pk,
                sk,
                type_name,
                fields,
                indexes,
                native_indexes,
                shards,
                door,
            }),
            _ => None,
        };
        match (errors.finish(()), model) {
            (Ok(()), Some(model)) => Ok(model),
            (Err(error), _) => Err(error),
            (Ok(()), None) => Err(syn::Error::new(input.ident.span(), "invalid entity declaration")),
        }
    }

    /// Key fields in the order the key builder takes them: first appearance in pk, then sk.
    pub fn key_fields(&self) -> Vec<&FieldModel> {
        let mut order: Vec<&str> = Vec::new();
        for name in self.pk.fields().chain(self.sk.iter().flat_map(Template::fields)) {
            if !order.contains(&name) {
                order.push(name);
            }
        }
        order.iter().filter_map(|name| self.field(name)).collect()
    }

    /// The field named `name`.
    pub fn field(&self, name: &str) -> Option<&FieldModel> {
        self.fields.iter().find(|field| field.ident == name)
    }

    /// The shard strategy of the base table's partition key, if it is sharded.
    pub fn table_shard(&self) -> Option<&ShardModel> {
        self.shard_of(shard_model::BASE_TABLE)
    }

    /// The shard strategy of index `name`, if it is sharded.
    pub fn shard_of(&self, name: &str) -> Option<&ShardModel> {
        self.shards.iter().find(|shard| shard.index == name)
    }

    /// The `#[version]` field, if any.
    pub fn version_field(&self) -> Option<&FieldModel> {
        self.fields.iter().find(|field| field.is_version)
    }
}

fn parse_entity_args(input: &DeriveInput, errors: &mut Errors) -> EntityArgs {
    let mut args = EntityArgs::default();
    for attr in input.attrs.iter().filter(|attr| attr.path().is_ident("entity")) {
        if args.attr.is_none() {
            args.attr = Some(attr.clone());
        }
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("table") {
                let value = value(&meta, "the table type", "table = MyTable")?;
                if value.peek(LitStr) {
                    let literal: LitStr = value.parse()?;
                    let message =
                        format!("`table` takes the table type, not a string: `table = {}`", literal.value());
                    return Err(syn::Error::new(literal.span(), message));
                }
                let path: Path = value.parse()?;
                set_once(errors, &meta, &mut args.table, path);
            } else if meta.path.is_ident("pk") {
                let value: LitStr = value(&meta, "a key template", "pk = \"{id}\"")?.parse()?;
                set_once(errors, &meta, &mut args.pk, value);
            } else if meta.path.is_ident("sk") {
                let value: LitStr = value(&meta, "a key template", "sk = \"item#{id}\"")?.parse()?;
                set_once(errors, &meta, &mut args.sk, value);
            } else if meta.path.is_ident("name") {
                let value: LitStr = value(&meta, "an entity-type name", "name = \"Album\"")?.parse()?;
                set_once(errors, &meta, &mut args.name, value);
            } else if meta.path.is_ident("crate") {
                set_door(errors, &meta, &mut args.door)?;
            } else {
                unknown_key(errors, &meta, "entity", ENTITY_KEYS)?;
            }
            Ok(())
        });
        if let Err(error) = result {
            errors.add(error);
            args.malformed = true;
        }
    }
    if args.attr.is_none() {
        errors.push(input.ident.span(), "missing `#[entity(table = ..., pk = \"...\")]` attribute");
    }
    args
}

/// The named fields, or `None` (reported) when the input is not a struct with named fields.
fn parse_fields(input: &DeriveInput, errors: &mut Errors) -> Option<Vec<FieldModel>> {
    let named = match &input.data {
        Data::Struct(data) => match &data.fields {
            Fields::Named(named) => named,
            _ => {
                errors.push(input.ident.span(), "`Entity` can only be derived for structs with named fields");
                return None;
            }
        },
        _ => {
            errors.push(input.ident.span(), "`Entity` can only be derived for structs with named fields");
            return None;
        }
    };
    let rename_all = serde_attrs::rename_all(&input.attrs);
    let mut fields = Vec::new();
    let mut version_seen = false;
    for field in &named.named {
        let Some(ident) = field.ident.clone() else { continue };
        let serde = serde_attrs::field(&field.attrs);
        let unraw = ident.to_string().trim_start_matches("r#").to_owned();
        let attribute = serde
            .rename
            .clone()
            .or_else(|| rename_all.as_deref().and_then(|rule| serde_attrs::apply_rename_all(rule, &unraw)))
            .unwrap_or(unraw);
        let version_attr = field.attrs.iter().find(|attr| attr.path().is_ident("version"));
        if let Some(attr) = version_attr {
            if version_seen {
                errors.push_spanned(attr, "only one field can be `#[version]`");
            }
            version_seen = true;
            if !is_type_named(&field.ty, "u64") {
                errors.push_spanned(&field.ty, "a `#[version]` field must be `u64`");
            }
            if serde.no_attribute {
                errors.push_spanned(attr, "a `#[version]` field cannot be skipped or flattened by serde");
            }
        }
        fields.push(FieldModel {
            ident,
            ty: field.ty.clone(),
            attribute,
            no_attribute: serde.no_attribute,
            is_version: version_attr.is_some(),
            is_key: false,
        });
    }
    Some(fields)
}

fn check_template_fields(template: &Template, fields: &mut [FieldModel], errors: &mut Errors) {
    for name in template.fields() {
        let Some(field) = fields.iter_mut().find(|field| field.ident == name) else {
            let known: Vec<String> = fields.iter().map(|f| format!("`{}`", f.ident)).collect();
            errors.push(
                template.span,
                format!(
                    "unknown field `{name}` in key template `{}`; fields: {}",
                    template.source,
                    known.join(", ")
                ),
            );
            continue;
        };
        field.is_key = true;
        if field.no_attribute {
            errors.push(template.span, format!("key field `{name}` is skipped or flattened by serde"));
        }
        if field.is_version {
            errors.push(template.span, format!("the `#[version]` field `{name}` cannot be part of a key"));
        }
        if let Some(reason) = unkeyable_type(&field.ty) {
            errors.push_spanned(&field.ty, format!("field `{name}` cannot be part of a key: {reason}"));
        }
    }
}

/// Why 128-bit integers cannot be keys.
pub(crate) const WIDE_INTEGER: &str =
    "128-bit integers cannot be stored (serde_dynamo does not serialize them)";

/// Why 128-bit integers cannot be keys, with the types that can.
const WIDE_INTEGER_KEY: &str = "128-bit integers cannot be stored (serde_dynamo does not serialize \
    them); key fields must be `String`, `char`, an integer type up to 64 bits, or a type implementing \
    `dynashard::KeyPart`";

/// Types known not to work in keys, with the reason; other types are checked by the `KeyPart`
/// trait bound.
pub(crate) fn unkeyable_type(ty: &Type) -> Option<&'static str> {
    const REASONS: &[(&str, &str)] = &[
        ("f32", "floating-point numbers have no exact, ordered key form"),
        ("f64", "floating-point numbers have no exact, ordered key form"),
        ("bool", "a key needs more than two values; use an integer or a string"),
        ("i128", WIDE_INTEGER_KEY),
        ("u128", WIDE_INTEGER_KEY),
        ("Option", "key values must always be present"),
        ("Vec", "collections cannot be key values"),
        ("HashMap", "collections cannot be key values"),
        ("BTreeMap", "collections cannot be key values"),
        ("HashSet", "collections cannot be key values"),
        ("BTreeSet", "collections cannot be key values"),
    ];
    match ty {
        Type::Path(path) => {
            let last = path.path.segments.last()?.ident.to_string();
            REASONS.iter().find(|(name, _)| *name == last).map(|(_, reason)| *reason)
        }
        Type::Tuple(_) | Type::Array(_) | Type::Slice(_) => Some("compound values cannot be key values"),
        Type::Reference(_) => Some("entities own their data; use an owned type such as `String`"),
        _ => None,
    }
}

/// Whether `ty` is a 128-bit integer type, which no key can hold.
pub(crate) fn is_wide_integer(ty: &Type) -> bool {
    let Type::Path(path) = ty else { return false };
    path.path.segments.last().is_some_and(|last| last.ident == "i128" || last.ident == "u128")
}

fn is_type_named(ty: &Type, name: &str) -> bool {
    matches!(ty, Type::Path(path) if path.qself.is_none() && path.path.is_ident(name))
}

/// The `T` of an `Option<T>` type, recognised by its last path segment.
pub(crate) fn option_inner(ty: &Type) -> Option<&Type> {
    let Type::Path(path) = ty else { return None };
    let segment = path.path.segments.last()?;
    if segment.ident != "Option" {
        return None;
    }
    let syn::PathArguments::AngleBracketed(arguments) = &segment.arguments else { return None };
    match arguments.args.first()? {
        syn::GenericArgument::Type(inner) if arguments.args.len() == 1 => Some(inner),
        _ => None,
    }
}
