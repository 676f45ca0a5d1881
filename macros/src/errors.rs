//! Collects every user error of one derive so they are reported together.

use proc_macro2::TokenStream;
use std::fmt::Display;

/// An accumulator of `syn::Error`s.
#[derive(Default)]
pub struct Errors {
    combined: Option<syn::Error>,
}

impl Errors {
    /// Records an error at `span`.
    pub fn push(&mut self, span: proc_macro2::Span, message: impl Display) {
        self.add(syn::Error::new(span, message));
    }

    /// Records an error spanning the tokens of `tokens`.
    pub fn push_spanned(&mut self, tokens: impl quote::ToTokens, message: impl Display) {
        self.add(syn::Error::new_spanned(tokens, message));
    }

    /// Records an existing error.
    pub fn add(&mut self, error: syn::Error) {
        match &mut self.combined {
            Some(combined) => combined.combine(error),
            None => self.combined = Some(error),
        }
    }

    /// `Ok(value)` when nothing was recorded, else all errors at once.
    pub fn finish<T>(self, value: T) -> syn::Result<T> {
        match self.combined {
            Some(error) => Err(error),
            None => Ok(value),
        }
    }
}

/// Turns a derive result into tokens: the expansion, or `compile_error!`s for every error.
pub fn into_tokens(result: syn::Result<TokenStream>) -> TokenStream {
    result.unwrap_or_else(syn::Error::into_compile_error)
}
