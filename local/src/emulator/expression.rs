//! Just enough of DynamoDB's expression grammar to know what a request addresses (sans-IO): the
//! partition key a key condition names, the attributes an update sets to a value or removes,
//! and the placeholders an expression uses.

use std::collections::{BTreeSet, HashMap};

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token<'e> {
    /// An attribute name: bare, or a `#name` placeholder.
    Name(&'e str),
    /// A `:value` placeholder.
    Value(&'e str),
    /// `=`; other comparison operators are `Other`.
    Equals,
    /// `,`
    Comma,
    /// `.` or `[`: what follows or precedes is part of a nested path.
    Path,
    Open,
    Close,
    Other,
}

fn tokens(expression: &str) -> Vec<Token<'_>> {
    let bytes = expression.as_bytes();
    let word = |byte: u8| byte.is_ascii_alphanumeric() || byte == b'_' || byte >= 0x80;
    let mut tokens = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let byte = bytes[at];
        let start = at;
        at += 1;
        match byte {
            b'#' | b':' => {
                while at < bytes.len() && word(bytes[at]) {
                    at += 1;
                }
                let text = &expression[start..at];
                tokens.push(if byte == b'#' { Token::Name(text) } else { Token::Value(text) });
            }
            b'=' => tokens.push(Token::Equals),
            b',' => tokens.push(Token::Comma),
            b'.' | b'[' => tokens.push(Token::Path),
            b'(' => tokens.push(Token::Open),
            b')' => tokens.push(Token::Close),
            b'<' | b'>' => {
                if at < bytes.len() && (bytes[at] == b'=' || bytes[at] == b'>') {
                    at += 1;
                }
                tokens.push(Token::Other);
            }
            _ if word(byte) => {
                while at < bytes.len() && word(bytes[at]) {
                    at += 1;
                }
                tokens.push(Token::Name(&expression[start..at]));
            }
            _ if byte.is_ascii_whitespace() => {}
            _ => tokens.push(Token::Other),
        }
    }
    tokens
}

/// An expression's names resolved through `ExpressionAttributeNames`.
pub(crate) fn resolve<'a>(name: &'a str, names: &'a HashMap<String, String>) -> &'a str {
    match name.strip_prefix('#') {
        Some(_) => names.get(name).map_or(name, String::as_str),
        None => name,
    }
}

/// The top-level `name = :value` comparisons of an expression (either way round), with names
/// resolved: what a key condition fixes.
pub(crate) fn equalities<'e>(
    expression: &'e str,
    names: &'e HashMap<String, String>,
) -> Vec<(&'e str, &'e str)> {
    let tokens = tokens(expression);
    let mut found = Vec::new();
    for at in 1..tokens.len().saturating_sub(1) {
        if tokens[at] != Token::Equals {
            continue;
        }
        let before = at.checked_sub(2).map(|index| &tokens[index]);
        let after = tokens.get(at + 2);
        let top_level = !matches!(before, Some(Token::Path)) && !matches!(after, Some(Token::Path));
        match (&tokens[at - 1], &tokens[at + 1]) {
            (Token::Name(name), Token::Value(value)) | (Token::Value(value), Token::Name(name))
                if top_level =>
            {
                found.push((resolve(name, names), *value));
            }
            _ => {}
        }
    }
    found
}

/// What an update expression does to top-level attributes, as far as it is known before it runs.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct UpdateEffects<'e> {
    /// `SET name = :value`: the attribute gets the value.
    pub assigned: Vec<(&'e str, &'e str)>,
    /// `REMOVE name`.
    pub removed: Vec<&'e str>,
}

/// The assignments of a placeholder to a top-level attribute and the removals of top-level
/// attributes in an update expression. Anything else (functions, arithmetic, nested paths,
/// `ADD`, `DELETE`) is left out: its effect is known only after the update.
pub(crate) fn update_effects<'e>(
    expression: &'e str,
    names: &'e HashMap<String, String>,
) -> UpdateEffects<'e> {
    let tokens = tokens(expression);
    let mut effects = UpdateEffects::default();
    let mut clause = Clause::Other;
    let mut action: Vec<&Token<'e>> = Vec::new();
    let mut depth = 0usize;
    let mut finish = |clause: Clause, action: &mut Vec<&Token<'e>>| {
        match (clause, action.as_slice()) {
            (Clause::Set, [Token::Name(name), Token::Equals, Token::Value(value)]) => {
                effects.assigned.push((resolve(name, names), value));
            }
            (Clause::Remove, [Token::Name(name)]) => effects.removed.push(resolve(name, names)),
            _ => {}
        }
        action.clear();
    };
    for token in &tokens {
        match token {
            Token::Name(word) if depth == 0 && Clause::of(word).is_some() => {
                finish(clause, &mut action);
                clause = Clause::of(word).unwrap_or(Clause::Other);
            }
            Token::Comma if depth == 0 => finish(clause, &mut action),
            Token::Open => {
                depth += 1;
                action.push(token);
            }
            Token::Close => {
                depth = depth.saturating_sub(1);
                action.push(token);
            }
            _ => action.push(token),
        }
    }
    finish(clause, &mut action);
    effects
}

/// The clause of an update expression an action is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Clause {
    Set,
    Remove,
    /// `ADD`, `DELETE`: effects known only afterwards.
    Other,
}

impl Clause {
    fn of(word: &str) -> Option<Self> {
        match word.to_ascii_uppercase().as_str() {
            "SET" => Some(Clause::Set),
            "REMOVE" => Some(Clause::Remove),
            "ADD" | "DELETE" => Some(Clause::Other),
            _ => None,
        }
    }
}

/// The `#name` and `:value` placeholders used by `expressions`.
pub(crate) fn placeholders<'e>(expressions: impl IntoIterator<Item = &'e str>) -> BTreeSet<&'e str> {
    expressions
        .into_iter()
        .flat_map(tokens)
        .filter_map(|token| match token {
            Token::Name(name) if name.starts_with('#') => Some(name),
            Token::Value(value) => Some(value),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> HashMap<String, String> {
        HashMap::from([("#pk".to_owned(), "gsi_pk".to_owned()), ("#sk".to_owned(), "gsi_sk".to_owned())])
    }

    #[test]
    fn key_conditions_give_their_equalities() {
        let names = names();
        assert_eq!(equalities("#pk = :pk AND begins_with(#sk, :prefix)", &names), [("gsi_pk", ":pk")]);
        assert_eq!(equalities("(#pk=:p) and #sk BETWEEN :a AND :b", &names), [("gsi_pk", ":p")]);
        assert_eq!(equalities(":p = pk AND sk >= :s", &names), [("pk", ":p")]);
        assert_eq!(equalities("#pk = :p AND #sk <= :s", &names), [("gsi_pk", ":p")]);
        assert!(equalities("a.b = :v AND c[0] = :w", &names).is_empty(), "nested paths are not keys");
    }

    #[test]
    fn updates_give_direct_assignments_and_removals() {
        let names = names();
        let effects = update_effects(
            "SET #pk = :p, counter = counter + :one, other = if_not_exists(other, :z), a.b = :x REMOVE #sk, gone ADD n :one",
            &names,
        );
        assert_eq!(effects.assigned, [("gsi_pk", ":p")]);
        assert_eq!(effects.removed, ["gsi_sk", "gone"]);
        let lower = update_effects("remove x set y = :y", &names);
        assert_eq!((lower.assigned, lower.removed), (vec![("y", ":y")], vec!["x"]));
    }

    #[test]
    fn placeholders_are_collected() {
        let used: Vec<&str> =
            placeholders(["#pk = :p AND #sk > :s", "attribute_exists(#other)"]).into_iter().collect();
        assert_eq!(used, ["#other", "#pk", "#sk", ":p", ":s"]);
    }
}
