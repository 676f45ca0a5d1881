//! Parsing key templates such as `song#{album}#{title}`.

use proc_macro2::Span;

/// One piece of a parsed template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// Literal text.
    Literal(String),
    /// A `{field}` placeholder.
    Field(String),
}

/// A key template with the span of the string literal it came from.
#[derive(Debug, Clone)]
pub struct Template {
    pub source: String,
    pub pieces: Vec<Piece>,
    pub span: Span,
}

impl Template {
    /// The placeholder names, in order.
    pub fn fields(&self) -> impl Iterator<Item = &str> {
        self.pieces.iter().filter_map(|piece| match piece {
            Piece::Field(name) => Some(name.as_str()),
            Piece::Literal(_) => None,
        })
    }
}

/// Parses `literal` into a template; errors point at the literal.
pub fn parse(literal: &syn::LitStr) -> syn::Result<Template> {
    let source = literal.value();
    let span = literal.span();
    let pieces = split(&source).map_err(|message| syn::Error::new(span, message))?;
    Ok(Template { source, pieces, span })
}

/// Splits template text into pieces, checking its shape.
pub fn split(source: &str) -> Result<Vec<Piece>, String> {
    if source.is_empty() {
        return Err("a key template cannot be empty".into());
    }
    let mut pieces = Vec::new();
    let mut literal = String::new();
    let mut chars = source.chars();
    while let Some(c) = chars.next() {
        match c {
            '{' => {
                let mut name = String::new();
                let mut closed = false;
                for c in chars.by_ref() {
                    if c == '}' {
                        closed = true;
                        break;
                    }
                    if c == '{' {
                        return Err(format!("`{{` inside a placeholder in key template `{source}`"));
                    }
                    name.push(c);
                }
                if !closed {
                    return Err(format!("unclosed `{{` in key template `{source}`"));
                }
                let name = name.trim().to_owned();
                if name.is_empty() {
                    return Err(format!("empty placeholder `{{}}` in key template `{source}`"));
                }
                if !literal.is_empty() {
                    pieces.push(Piece::Literal(std::mem::take(&mut literal)));
                }
                pieces.push(Piece::Field(name));
            }
            '}' => return Err(format!("unmatched `}}` in key template `{source}`")),
            other => literal.push(other),
        }
    }
    if !literal.is_empty() {
        pieces.push(Piece::Literal(literal));
    }
    check_separators(source, &pieces)?;
    Ok(pieces)
}

/// Every placeholder must be followed by `#` or end the template: that is what makes the
/// escaped values unambiguous and prefix-safe.
fn check_separators(source: &str, pieces: &[Piece]) -> Result<(), String> {
    for (index, piece) in pieces.iter().enumerate() {
        if let Piece::Field(name) = piece {
            match pieces.get(index + 1) {
                None => {}
                Some(Piece::Literal(next)) if next.starts_with('#') => {}
                Some(_) => {
                    return Err(format!(
                        "placeholder `{{{name}}}` in key template `{source}` must be followed by \
                         `#` or end the template"
                    ))
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_literals_and_fields() {
        assert_eq!(
            split("song#{album}#{title}").unwrap(),
            vec![
                Piece::Literal("song#".into()),
                Piece::Field("album".into()),
                Piece::Literal("#".into()),
                Piece::Field("title".into()),
            ]
        );
        assert_eq!(split("artist").unwrap(), vec![Piece::Literal("artist".into())]);
    }

    #[test]
    fn rejects_malformed_templates() {
        assert!(split("").is_err());
        assert!(split("a#{b").is_err());
        assert!(split("a#{}").is_err());
        assert!(split("a}").is_err());
        assert!(split("{a}{b}").is_err());
        assert!(split("{a}-{b}").is_err());
    }
}
