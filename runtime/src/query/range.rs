//! The sort-key part of a key condition, and its rendering.

use super::sort::MAX_SUFFIX;
use crate::expression::Placeholders;
use aws_sdk_dynamodb::types::AttributeValue;

/// A key condition on the sort key, plus a value to drop client-side when an exclusive bound had
/// to be sent as an inclusive `BETWEEN`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SortRange {
    condition: Option<KeyCondition>,
    exclude: Option<String>,
    empty: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum KeyCondition {
    Eq(String),
    BeginsWith(String),
    Between(String, String),
    Lt(String),
    Le(String),
    Gt(String),
    Ge(String),
}

impl SortRange {
    /// Every sort key.
    pub fn all() -> Self {
        SortRange { condition: None, exclude: None, empty: false }
    }

    fn with(condition: KeyCondition) -> Self {
        SortRange { condition: Some(condition), exclude: None, empty: false }
    }

    /// Sort keys starting with `prefix`.
    pub fn begins_with(prefix: &str) -> Self {
        if prefix.is_empty() {
            Self::all()
        } else {
            Self::with(KeyCondition::BeginsWith(prefix.to_owned()))
        }
    }

    /// Exactly `key`.
    pub fn equals(key: &str) -> Self {
        Self::with(KeyCondition::Eq(key.to_owned()))
    }

    /// Keys starting with `prefix` and below `bound` (`bound` itself when `inclusive`).
    pub fn below(prefix: &str, bound: String, inclusive: bool) -> Self {
        if prefix.is_empty() {
            return Self::with(if inclusive { KeyCondition::Le(bound) } else { KeyCondition::Lt(bound) });
        }
        let exclude = (!inclusive).then(|| bound.clone());
        SortRange { condition: Some(KeyCondition::Between(prefix.to_owned(), bound)), exclude, empty: false }
    }

    /// Keys starting with `prefix` and above `bound` (`bound` itself when `inclusive`).
    pub fn above(prefix: &str, bound: String, inclusive: bool) -> Self {
        if prefix.is_empty() {
            return Self::with(if inclusive { KeyCondition::Ge(bound) } else { KeyCondition::Gt(bound) });
        }
        let exclude = (!inclusive).then(|| bound.clone());
        let upper = format!("{prefix}{MAX_SUFFIX}");
        SortRange { condition: Some(KeyCondition::Between(bound, upper)), exclude, empty: false }
    }

    /// Keys from `low` to `high`, both included; nothing when `low > high`.
    pub fn between(low: String, high: String) -> Self {
        let empty = low > high;
        SortRange { condition: Some(KeyCondition::Between(low, high)), exclude: None, empty }
    }

    /// Whether no key can match.
    pub fn is_empty(&self) -> bool {
        self.empty
    }

    /// Whether some stored sort key may be dropped client-side.
    pub fn excludes_any(&self) -> bool {
        self.exclude.is_some()
    }

    /// Whether a stored sort key must be dropped client-side.
    pub fn excludes(&self, sort_key: Option<&str>) -> bool {
        matches!((&self.exclude, sort_key), (Some(excluded), Some(key)) if excluded == key)
    }

    /// The sort-key part of a key condition expression on `attribute`, if any.
    pub fn render(&self, attribute: &str, placeholders: &mut Placeholders) -> Option<String> {
        let condition = self.condition.as_ref()?;
        let name = placeholders.name(attribute);
        let mut value = |text: &String| placeholders.value(AttributeValue::S(text.clone()));
        Some(match condition {
            KeyCondition::Eq(key) => format!("{name} = {}", value(key)),
            KeyCondition::BeginsWith(prefix) => format!("begins_with({name}, {})", value(prefix)),
            KeyCondition::Between(low, high) => {
                let low = value(low);
                format!("{name} BETWEEN {low} AND {}", value(high))
            }
            KeyCondition::Lt(key) => format!("{name} < {}", value(key)),
            KeyCondition::Le(key) => format!("{name} <= {}", value(key)),
            KeyCondition::Gt(key) => format!("{name} > {}", value(key)),
            KeyCondition::Ge(key) => format!("{name} >= {}", value(key)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exclusive_bounds_with_a_prefix_become_between_plus_exclusion() {
        let range = SortRange::below("song#A#", "song#A#m".into(), false);
        let mut placeholders = Placeholders::default();
        assert_eq!(range.render("sk", &mut placeholders).unwrap(), "#ds0 BETWEEN :ds0 AND :ds1");
        assert!(range.excludes(Some("song#A#m")));
        assert!(!range.excludes(Some("song#A#l")));
    }

    #[test]
    fn without_a_prefix_bounds_are_native() {
        let mut placeholders = Placeholders::default();
        let range = SortRange::above("", "m".into(), false);
        assert_eq!(range.render("sk", &mut placeholders).unwrap(), "#ds0 > :ds0");
        assert!(!range.excludes(Some("m")));
        assert!(SortRange::begins_with("").render("sk", &mut placeholders).is_none());
    }

    #[test]
    fn inverted_between_is_empty() {
        assert!(SortRange::between("b".into(), "a".into()).is_empty());
        assert!(!SortRange::between("a".into(), "a".into()).is_empty());
    }
}
