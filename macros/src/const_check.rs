//! Compile-time checks of constant conditions that read as ordinary errors.
//!
//! Some properties are only known once the table's `DEFINITION` constant is evaluated (the
//! entity derive cannot see the table's declaration). A check turns such a condition into a
//! trait bound: the condition is the length of an array type, `[(); 1]` when it holds and
//! `[(); 0]` when it does not, and only `[(); 1]` implements a local trait whose
//! `#[diagnostic::on_unimplemented]` says what is wrong and how to fix it. rustc then reports
//! an ordinary error at the user's tokens, never a panic during constant evaluation, and nothing
//! of the check is left in the compiled program.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};

/// One check: `holds` must evaluate to `true` in a constant context.
#[derive(Clone)]
pub struct ConstCheck<'a> {
    /// Where the error is reported.
    pub span: Span,
    /// Names the check in rustc's `help:` line, e.g. `IndexIsDeclared`.
    pub name: &'a str,
    /// A `bool` constant expression; it may use the items of the enclosing expansion.
    pub holds: TokenStream,
    /// The error message.
    pub message: String,
    /// The label under the reported tokens.
    pub label: String,
    /// How to fix it.
    pub note: Option<String>,
}

impl ConstCheck<'_> {
    /// The items that perform the check where `guard` (a `bool` constant expression) is true; it
    /// holds where `guard` is false.
    pub fn expand_where(&self, guard: &TokenStream) -> TokenStream {
        let holds = &self.holds;
        ConstCheck { holds: quote!(!(#guard) || (#holds)), ..self.clone() }.expand()
    }

    /// The items that perform the check.
    pub fn expand(&self) -> TokenStream {
        let trait_ident = format_ident!("{}", self.name, span = self.span);
        let holds = &self.holds;
        let message = escape(&self.message);
        let label = escape(&self.label);
        let attribute = match &self.note {
            Some(note) => {
                let note = escape(note);
                quote_spanned!(self.span=> #[diagnostic::on_unimplemented(message = #message, label = #label, note = #note)])
            }
            None => {
                quote_spanned!(self.span=> #[diagnostic::on_unimplemented(message = #message, label = #label)])
            }
        };
        quote_spanned! {self.span=>
            const _: () = {
                #attribute
                trait #trait_ident {
                    const HOLDS: ();
                }
                #[diagnostic::do_not_recommend]
                impl #trait_ident for [(); 1] {
                    const HOLDS: () = ();
                }
                <[(); (#holds) as usize] as #trait_ident>::HOLDS
            };
        }
    }
}

/// Escapes braces, which `on_unimplemented` reads as format parameters.
fn escape(text: &str) -> String {
    text.replace('{', "{{").replace('}', "}}")
}

/// A path as the user wrote it, for messages: `Music`, `crate::tables::Music`.
pub fn path_text(path: &syn::Path) -> String {
    let segments: Vec<String> = path.segments.iter().map(|segment| segment.ident.to_string()).collect();
    let leading = if path.leading_colon.is_some() { "::" } else { "" };
    format!("{leading}{}", segments.join("::"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_braces() {
        assert_eq!(escape("sk = \"{title}\""), "sk = \"{{title}}\"");
    }

    #[test]
    fn prints_paths_as_written() {
        let path: syn::Path = syn::parse_quote!(crate::tables::Music);
        assert_eq!(path_text(&path), "crate::tables::Music");
        let path: syn::Path = syn::parse_quote!(::app::Music);
        assert_eq!(path_text(&path), "::app::Music");
    }
}
