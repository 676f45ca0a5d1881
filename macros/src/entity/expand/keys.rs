//! Generated key templates (as statics) and the code that composes keys from them.

use crate::template::{Piece, Template};
use proc_macro2::{Ident, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::Type;

/// The value of one placeholder: the field's name, its key type, and the argument expression
/// (a `<T as KeyPart>::Arg`).
pub struct KeyArg<'a> {
    pub name: String,
    pub key_type: &'a Type,
    pub arg: TokenStream,
}

/// `static #ident: KeyTemplate = ...;` for `template`, stored in the attribute `attribute`.
pub fn template_static(
    ident: &Ident,
    template: &Template,
    attribute: TokenStream,
    role: &str,
) -> TokenStream {
    let source = &template.source;
    let role = quote::format_ident!("{}", role);
    let segments = template.pieces.iter().map(|piece| match piece {
        Piece::Literal(text) => quote!(__dynashard::Segment::Literal(#text)),
        Piece::Field(name) => quote!(__dynashard::Segment::Field(#name)),
    });
    quote! {
        static #ident: __dynashard::KeyTemplate = __dynashard::KeyTemplate {
            attribute: #attribute,
            source: #source,
            segments: &[#(#segments),*],
            role: __dynashard::KeyRole::#role,
        };
    }
}

/// An expression composing the key of `template` (held by the static `ident`) from `args`;
/// it uses `?`, so it must sit in a function returning `dynashard::Result`.
pub fn compose(ident: &Ident, template: &Template, args: &[KeyArg]) -> TokenStream {
    let writes = template.pieces.iter().map(|piece| match piece {
        Piece::Literal(text) => quote!(__writer.literal(#text);),
        Piece::Field(name) => match args.iter().find(|arg| arg.name == *name) {
            Some(KeyArg { key_type, arg, .. }) => {
                quote_spanned!(key_type.span()=> __writer.part::<#key_type>(#name, #arg)?;)
            }
            None => quote!(),
        },
    });
    quote! {{
        let mut __writer = #ident.writer();
        #(#writes)*
        __writer.finish()?
    }}
}

/// `<T as KeyPart>::as_arg(expr)`, spanned at the type.
pub fn as_arg(key_type: &Type, expr: TokenStream) -> TokenStream {
    quote_spanned!(key_type.span()=> <#key_type as __dynashard::KeyPart>::as_arg(#expr))
}

/// The query position type for what follows the sort key's leading literal: `Next<T, ...>`,
/// `End<T>` or `Done`, from the template's placeholders and their key types.
pub fn sort_walk(template: Option<&Template>, key_type: impl Fn(&str) -> Option<Type>) -> TokenStream {
    let Some(template) = template else { return quote!(__dynashard::Done) };
    let fields: Vec<(usize, &str)> = template
        .pieces
        .iter()
        .enumerate()
        .filter_map(|(position, piece)| match piece {
            Piece::Field(name) => Some((position, name.as_str())),
            Piece::Literal(_) => None,
        })
        .collect();
    let mut walk = quote!(__dynashard::Done);
    for (position, name) in fields.into_iter().rev() {
        let Some(ty) = key_type(name) else { continue };
        walk = if position + 1 == template.pieces.len() {
            quote!(__dynashard::End<#ty>)
        } else {
            quote!(__dynashard::Next<#ty, #walk>)
        };
    }
    walk
}
