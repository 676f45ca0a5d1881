//! Recognising field types by how they are written: which can be keys, which can route shards.
//! Types the derive cannot recognise are checked by trait bounds in the expansion.

use syn::Type;

/// Why 128-bit integers cannot be keys.
pub const WIDE_INTEGER: &str = "128-bit integers cannot be stored (serde_dynamo does not serialize them)";

/// Why 128-bit integers cannot be keys, with the types that can.
const WIDE_INTEGER_KEY: &str = "128-bit integers cannot be stored (serde_dynamo does not serialize \
    them); key fields must be `String`, `char`, an integer type up to 64 bits, or a type implementing \
    `dynashard::KeyPart`";

/// Types known not to work in keys, with the reason; other types are checked by the `KeyPart`
/// trait bound.
pub fn unkeyable_type(ty: &Type) -> Option<&'static str> {
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
pub fn is_wide_integer(ty: &Type) -> bool {
    let Type::Path(path) = ty else { return false };
    path.path.segments.last().is_some_and(|last| last.ident == "i128" || last.ident == "u128")
}

/// Whether `ty` is written as the plain name `name`.
pub fn is_type_named(ty: &Type, name: &str) -> bool {
    matches!(ty, Type::Path(path) if path.qself.is_none() && path.path.is_ident(name))
}

/// The `T` of an `Option<T>` type, recognised by its last path segment.
pub fn option_inner(ty: &Type) -> Option<&Type> {
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

/// Whether `ty` is a type hash shards can route by: `String`, `char` or an integer.
pub fn is_routable(ty: &Type) -> bool {
    const ROUTABLE: &[&str] = &[
        "String", "char", "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128",
        "isize",
    ];
    matches!(ty, Type::Path(path) if ROUTABLE.iter().any(|name| path.path.is_ident(name)))
}

/// Whether `ty` is `String`.
pub fn is_string(ty: &Type) -> bool {
    matches!(ty, Type::Path(path) if path.path.is_ident("String"))
}

/// Whether `ty` is a set (`HashSet<T>` or `BTreeSet<T>`, recognised by its last path segment),
/// and whether it is an `Option` of one.
pub fn set_type(ty: &Type) -> Option<bool> {
    let is_set = |ty: &Type| {
        let Type::Path(path) = ty else { return false };
        path.path.segments.last().is_some_and(|last| last.ident == "HashSet" || last.ident == "BTreeSet")
    };
    match option_inner(ty) {
        Some(inner) => is_set(inner).then_some(true),
        None => is_set(ty).then_some(false),
    }
}
