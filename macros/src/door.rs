//! The path generated code takes into the runtime: the crate (`::dynashard`, or the path a
//! `crate = "..."` attribute key names) and its versioned `__private_v1` module, aliased
//! `__dynashard` inside every expansion.

use crate::errors::Errors;
use proc_macro2::TokenStream;
use quote::quote;
use syn::meta::ParseNestedMeta;
use syn::{Attribute, LitStr, Path};

/// Where the runtime crate is, as the user's code names it.
#[derive(Clone)]
pub struct Door {
    krate: Path,
}

impl Default for Door {
    fn default() -> Self {
        Door { krate: syn::parse_quote!(::dynashard) }
    }
}

impl Door {
    /// Parses the value of a `crate = "path::to::dynashard"` key.
    pub fn parse(meta: &ParseNestedMeta) -> syn::Result<Self> {
        let literal: LitStr =
            crate::attr::value(meta, "the path to the dynashard crate", "crate = \"my::dynashard\"")?
                .parse()?;
        let krate = literal.parse::<Path>().map_err(|_| {
            syn::Error::new(
                literal.span(),
                format!("`{}` is not a path; write e.g. `crate = \"my::dynashard\"`", literal.value()),
            )
        })?;
        Ok(Door { krate })
    }

    /// The door named by a `crate = "..."` key of any `#[name(...)]` attribute, ignoring
    /// every other key and every error (reported by the derive itself): for fallback impls.
    pub fn lenient(attrs: &[Attribute], name: &str) -> Self {
        let mut door = Door::default();
        for attr in attrs.iter().filter(|attr| attr.path().is_ident(name)) {
            let _ = attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("crate") {
                    door = Door::parse(&meta)?;
                } else {
                    crate::attr::skip_value(&meta)?;
                }
                Ok(())
            });
        }
        door
    }

    /// The runtime's door module: `::dynashard::__private_v1`, for items outside the
    /// expansion's `const _` block.
    pub fn path(&self) -> TokenStream {
        let krate = &self.krate;
        quote!(#krate::__private_v1)
    }

    /// `tokens` in a `const _` block in which `__dynashard` names the door.
    pub fn enclose(&self, tokens: TokenStream) -> TokenStream {
        let path = self.path();
        quote! {
            #[allow(non_local_definitions)]
            const _: () = {
                #[allow(unused_imports)]
                use #path as __dynashard;
                #tokens
            };
        }
    }
}

/// Stores a `crate = "..."` key's door in `slot`, reporting a duplicate.
pub fn set_door(errors: &mut Errors, meta: &ParseNestedMeta, slot: &mut Option<Door>) -> syn::Result<()> {
    let door = Door::parse(meta)?;
    crate::attr::set_once(errors, meta, slot, door);
    Ok(())
}
