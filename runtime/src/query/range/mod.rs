//! The sort-key part of a key condition, and its rendering.

use crate::expression::Placeholders;
use aws_sdk_dynamodb::types::AttributeValue;

/// Greater than every character of a stored key value (key values may not contain it), so
/// `prefix + MAX_SUFFIX` bounds every key that starts with `prefix`.
pub const MAX_SUFFIX: &str = "\u{10FFFF}";

/// A key condition on the sort key, plus a value to drop client-side when an exclusive bound had
/// to be sent as an inclusive `BETWEEN`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct SortRange {
    condition: Option<KeyCondition>,
    exclude: Option<String>,
    empty: bool,
}

/// One end of a range: a key, and whether it is included.
type Bound = (String, bool);

#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
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

    /// The part of this range at `key` (a key inside it) and after, in the direction of a read:
    /// above `key` ascending, below it descending, `key` itself included.
    pub(crate) fn resumed_at(&self, key: &str, descending: bool) -> Self {
        let (lower, upper) = self.bounds();
        let key = key.to_owned();
        let (condition, open_end) = match (descending, lower, upper) {
            (false, _, None) => (KeyCondition::Ge(key), None),
            (false, _, Some((high, inclusive))) => {
                let open = (!inclusive).then(|| high.clone());
                (KeyCondition::Between(key, high), open)
            }
            (true, None, _) => (KeyCondition::Le(key), None),
            (true, Some((low, inclusive)), _) => {
                let open = (!inclusive).then(|| low.clone());
                (KeyCondition::Between(low, key), open)
            }
        };
        let within = |value: &String| match &condition {
            KeyCondition::Between(low, high) => low <= value && value <= high,
            KeyCondition::Ge(low) => value >= low,
            KeyCondition::Le(high) => value <= high,
            _ => false,
        };
        let exclude = open_end.or_else(|| self.exclude.clone().filter(within));
        SortRange { condition: Some(condition), exclude, empty: false }
    }

    /// The part of this range at `key` and after, in the direction of a read, whether or not
    /// `key` lies inside it; `None` when nothing of it lies there. For the lanes of a merge,
    /// each with a range of its own, resumed at another lane's page end.
    pub(crate) fn part_from(&self, key: &str, descending: bool) -> Option<Self> {
        self.cut_at(key, descending)
    }

    /// The part of this range up to `key` (included), in the direction of a read: below it
    /// ascending, above it descending; `None` when nothing of it lies there. For a request that
    /// need not read past the last item a page can hold.
    pub(crate) fn part_until(&self, key: &str, descending: bool) -> Option<Self> {
        self.cut_at(key, !descending)
    }

    /// This range with its upper bound (`upper`) or its lower one moved to `key`, included,
    /// unless the bound lies short of it already.
    fn cut_at(&self, key: &str, upper_side: bool) -> Option<Self> {
        if self.empty {
            return None;
        }
        let (mut lower, mut upper) = self.bounds();
        let at = Some((key.to_owned(), true));
        // A bound short of `key` (or at it, excluded) stays.
        let short = |bound: &Option<Bound>, beyond: fn(&str, &str) -> bool| {
            bound.as_ref().is_some_and(|(edge, inclusive)| beyond(edge, key) || (edge == key && !inclusive))
        };
        if upper_side {
            if !short(&upper, |edge, key| edge < key) {
                upper = at;
            }
        } else if !short(&lower, |edge, key| edge > key) {
            lower = at;
        }
        let exclusive =
            |bound: &Option<Bound>| bound.as_ref().filter(|(_, inclusive)| !inclusive).map(|b| b.0.clone());
        let exclude = exclusive(&lower).or_else(|| exclusive(&upper));
        let condition = match (lower, upper) {
            (Some((low, _)), Some((high, _))) if low > high => return None,
            (Some((low, _)), Some((high, _))) => KeyCondition::Between(low, high),
            (Some((low, _)), None) => KeyCondition::Ge(low),
            (None, Some((high, _))) => KeyCondition::Le(high),
            (None, None) => return Some(SortRange::all()),
        };
        let mut range = SortRange { condition: Some(condition), exclude, empty: false };
        if range.exclude.is_none() {
            // An exclusion of this range's own, when it is still inside the part.
            range.exclude = self.exclude.clone().filter(|excluded| range.contains(excluded));
        }
        // A range of one excluded key holds nothing.
        let only = match &range.condition {
            Some(KeyCondition::Between(low, high)) if low == high => range.excludes(Some(low)),
            _ => false,
        };
        (!only).then_some(range)
    }

    /// Whether this range and `other` may hold a key in common (by their bounds; a prefix is
    /// taken as the span of its keys).
    pub(crate) fn may_overlap(&self, other: &SortRange) -> bool {
        if self.empty || other.empty {
            return false;
        }
        let ((low_a, high_a), (low_b, high_b)) = (self.bounds(), other.bounds());
        let below = |low: &Option<Bound>, high: &Option<Bound>| match (low, high) {
            (Some((low, low_in)), Some((high, high_in))) => {
                low < high || (low == high && *low_in && *high_in)
            }
            _ => true,
        };
        below(&low_a, &high_b) && below(&low_b, &high_a)
    }

    /// Whether no two of `ranges` may hold a key in common: ordered by where they start, each
    /// must end before the next starts.
    pub(crate) fn disjoint<'a>(ranges: impl IntoIterator<Item = &'a SortRange>) -> bool {
        let mut ranges: Vec<&SortRange> = ranges.into_iter().filter(|range| !range.is_empty()).collect();
        ranges.sort_by(|a, b| a.start_cmp(b));
        ranges.windows(2).all(|pair| !pair[0].may_overlap(pair[1]))
    }

    /// The order of two ranges by where they start: no lower bound first, and of two starting
    /// at one key, the one that includes it.
    pub(crate) fn start_cmp(&self, other: &SortRange) -> std::cmp::Ordering {
        let start = |range: &SortRange| range.bounds().0.map(|(key, included)| (key, !included));
        start(self).cmp(&start(other))
    }

    /// The lowest and highest keys of the range, each with whether it is included.
    fn bounds(&self) -> (Option<Bound>, Option<Bound>) {
        let Some(condition) = &self.condition else { return (None, None) };
        let included = |key: &String| Some((key.clone(), true));
        match condition {
            KeyCondition::Eq(key) => (included(key), included(key)),
            KeyCondition::BeginsWith(prefix) => {
                (included(prefix), Some((format!("{prefix}{MAX_SUFFIX}"), true)))
            }
            KeyCondition::Between(low, high) => (included(low), included(high)),
            KeyCondition::Lt(key) => (None, Some((key.clone(), false))),
            KeyCondition::Le(key) => (None, included(key)),
            KeyCondition::Gt(key) => (Some((key.clone(), false)), None),
            KeyCondition::Ge(key) => (included(key), None),
        }
    }

    /// Whether `key` is one the range selects (bounds, prefix and exclusion).
    pub(crate) fn contains(&self, key: &str) -> bool {
        let (lower, upper) = self.bounds();
        let above = lower
            .is_none_or(|(low, inclusive)| if inclusive { key >= low.as_str() } else { key > low.as_str() });
        let below = upper.is_none_or(
            |(high, inclusive)| if inclusive { key <= high.as_str() } else { key < high.as_str() },
        );
        let prefixed = match &self.condition {
            Some(KeyCondition::BeginsWith(prefix)) => key.starts_with(prefix.as_str()),
            _ => true,
        };
        !self.empty && above && below && prefixed && !self.excludes(Some(key))
    }

    /// Whether no key can match.
    pub fn is_empty(&self) -> bool {
        self.empty
    }

    /// Whether some stored sort key may be dropped client-side.
    pub fn excludes_any(&self) -> bool {
        self.exclude.is_some()
    }

    /// The stored sort key dropped client-side, if any.
    pub(crate) fn excluded(&self) -> Option<&str> {
        self.exclude.as_deref()
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

/// The error of a `between` whose low bound sorts after its high bound, in a key condition as in
/// a filter or a time window: one typed answer, rather than an empty read or DynamoDB's refusal.
pub(crate) fn reversed_between() -> crate::error::Error {
    let reason = "a `between` whose low bound sorts after its high bound: the range ends before it starts";
    crate::error::Error::InvalidQuery { reason: reason.to_owned() }
}

#[cfg(test)]
mod tests;
