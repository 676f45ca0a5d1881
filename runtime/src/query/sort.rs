//! Typed sort-key conditions, walked field by field along the sort-key template.
//!
//! A query's type records what is left of its sort-key template: [`Next<H, R>`] when the next
//! placeholder (of type `H`) is followed by more template, [`End<H>`] when it ends the template,
//! [`Done`] when nothing is left. Equality narrows to the rest; range conditions exist on a final
//! placeholder, where the encoded order is exactly the value order, and on a placeholder of a
//! [`PrefixFree`] type anywhere, whose encoding ends where it ends so that what follows it cannot
//! change the order.

use super::conditions::{Done, End, Narrow, Next, PrefixCondition, RangeCondition, Sealed};
use super::range::MAX_SUFFIX;
use super::{Query, SortRange};
use crate::key::{escape_into, KeyPart, PrefixFree, Segment};

impl<E, F> Query<E, F> {
    /// Appends `arg` as the next placeholder and the literal text after it.
    pub(crate) fn push_value<H: KeyPart + ?Sized>(&mut self, arg: H::Arg<'_>) -> Option<String> {
        let template = self.plan.sort_template?;
        let Some(Segment::Field(field)) = template.segments.get(self.plan.position) else {
            return None;
        };
        if H::is_empty(arg) {
            self.fail(crate::error::Error::InvalidKey {
                attribute: template.attribute,
                template: template.source,
                reason: crate::error::KeyError::EmptyValue { field },
            });
        }
        let mut encoded = String::new();
        H::encode(arg, &mut encoded);
        if encoded.contains(MAX_SUFFIX) {
            self.fail(crate::error::Error::InvalidKey {
                attribute: template.attribute,
                template: template.source,
                reason: crate::error::KeyError::ReservedCharacter { field },
            });
        }
        self.plan.position += 1;
        let mut next = self.plan.prefix.clone();
        next.push_str(&encoded);
        Some(next)
    }

    /// Moves past literal text, returning the new prefix and whether a placeholder follows.
    fn consume_literals(&mut self, mut prefix: String) -> (String, bool) {
        let Some(template) = self.plan.sort_template else { return (prefix, false) };
        while let Some(Segment::Literal(text)) = template.segments.get(self.plan.position) {
            prefix.push_str(text);
            self.plan.position += 1;
        }
        let more = matches!(template.segments.get(self.plan.position), Some(Segment::Field(_)));
        (prefix, more)
    }

    pub(crate) fn narrowed<G>(mut self, value: Option<String>) -> Query<E, G> {
        if let Some(value) = value {
            let (prefix, more) = self.consume_literals(value);
            self.plan.range = if more { SortRange::begins_with(&prefix) } else { SortRange::equals(&prefix) };
            self.plan.prefix = prefix;
        }
        self.retype()
    }

    pub(crate) fn ranged(mut self, range: impl FnOnce(&str) -> SortRange) -> Query<E, Done> {
        self.plan.range = range(&self.plan.prefix);
        self.retype()
    }

    /// Appends `value` as the next placeholder and ranges on it: `range(prefix, prefix + value)`.
    fn ranged_at<H: KeyPart>(
        mut self,
        value: H::Arg<'_>,
        range: impl FnOnce(&str, String) -> SortRange,
    ) -> Query<E, Done> {
        match self.push_value::<H>(value) {
            Some(bound) => self.ranged(|prefix| range(prefix, bound)),
            None => self.retype(),
        }
    }

    /// Ranges from `low` to `high` on the next placeholder: `range(prefix + low, prefix + high)`.
    fn ranged_between<H: KeyPart>(
        mut self,
        low: H::Arg<'_>,
        high: H::Arg<'_>,
        range: impl FnOnce(String, String) -> SortRange,
    ) -> Query<E, Done> {
        let position = self.plan.position;
        let low = self.push_value::<H>(low);
        self.plan.position = position;
        let high = self.push_value::<H>(high);
        match (low, high) {
            (Some(low), Some(high)) if low > high => {
                self.fail(super::range::reversed_between());
                self.retype()
            }
            (Some(low), Some(high)) => self.ranged(|_| range(low, high)),
            _ => self.retype(),
        }
    }
}

impl<H, R> Sealed for Next<H, R> {}
impl<H> Sealed for End<H> {}

impl<H: KeyPart, R> Narrow for Next<H, R> {
    type Arg<'a>
        = H::Arg<'a>
    where
        Self: 'a;
    type Rest = R;

    fn eq<E>(mut query: Query<E, Self>, value: H::Arg<'_>) -> Query<E, R> {
        query.route_equality(H::routing_text(value));
        let next = query.push_value::<H>(value);
        query.narrowed(next)
    }
}

impl<H: KeyPart> Narrow for End<H> {
    type Arg<'a>
        = H::Arg<'a>
    where
        Self: 'a;
    type Rest = Done;

    fn eq<E>(mut query: Query<E, Self>, value: H::Arg<'_>) -> Query<E, Done> {
        query.route_equality(H::routing_text(value));
        let next = query.push_value::<H>(value);
        query.narrowed(next)
    }
}

impl<H: KeyPart> RangeCondition for End<H> {
    fn lt<E>(query: Query<E, Self>, value: H::Arg<'_>) -> Query<E, Done> {
        query.ranged_at::<H>(value, |prefix, bound| SortRange::below(prefix, bound, false))
    }

    fn le<E>(query: Query<E, Self>, value: H::Arg<'_>) -> Query<E, Done> {
        query.ranged_at::<H>(value, |prefix, bound| SortRange::below(prefix, bound, true))
    }

    fn gt<E>(query: Query<E, Self>, value: H::Arg<'_>) -> Query<E, Done> {
        query.ranged_at::<H>(value, |prefix, bound| SortRange::above(prefix, bound, false))
    }

    fn ge<E>(query: Query<E, Self>, value: H::Arg<'_>) -> Query<E, Done> {
        query.ranged_at::<H>(value, |prefix, bound| SortRange::above(prefix, bound, true))
    }

    fn between<E>(query: Query<E, Self>, low: H::Arg<'_>, high: H::Arg<'_>) -> Query<E, Done> {
        query.ranged_between::<H>(low, high, SortRange::between)
    }
}

/// Ranges on a prefix-free placeholder followed by more template: every key whose value is `v`
/// starts with `prefix + encode(v)`, so `v`'s keys lie from that text to it followed by
/// the greatest character, and other values' keys lie wholly before or after. No key of the
/// template equals `prefix + encode(v)` itself (more of it follows), so every bound can be
/// inclusive and nothing is dropped client-side.
impl<H: PrefixFree, R> RangeCondition for Next<H, R> {
    fn lt<E>(query: Query<E, Self>, value: H::Arg<'_>) -> Query<E, Done> {
        query.ranged_at::<H>(value, |prefix, start| SortRange::below(prefix, start, true))
    }

    fn le<E>(query: Query<E, Self>, value: H::Arg<'_>) -> Query<E, Done> {
        query.ranged_at::<H>(value, |prefix, start| SortRange::below(prefix, start + MAX_SUFFIX, true))
    }

    fn gt<E>(query: Query<E, Self>, value: H::Arg<'_>) -> Query<E, Done> {
        query.ranged_at::<H>(value, |prefix, start| SortRange::above(prefix, start + MAX_SUFFIX, true))
    }

    fn ge<E>(query: Query<E, Self>, value: H::Arg<'_>) -> Query<E, Done> {
        query.ranged_at::<H>(value, |prefix, start| SortRange::above(prefix, start, true))
    }

    fn between<E>(query: Query<E, Self>, low: H::Arg<'_>, high: H::Arg<'_>) -> Query<E, Done> {
        query.ranged_between::<H>(low, high, |low, high| SortRange::between(low, high + MAX_SUFFIX))
    }
}

impl<R> PrefixCondition for Next<String, R> {
    fn begins_with<E>(query: Query<E, Self>, prefix: &str) -> Query<E, Done> {
        query.begins_with_text(prefix)
    }
}

impl PrefixCondition for End<String> {
    fn begins_with<E>(query: Query<E, Self>, prefix: &str) -> Query<E, Done> {
        query.begins_with_text(prefix)
    }
}

impl<E, F> Query<E, F> {
    pub(crate) fn begins_with_text(mut self, text: &str) -> Query<E, Done> {
        let mut prefix = self.plan.prefix.clone();
        escape_into(text, &mut prefix);
        self.plan.range = SortRange::begins_with(&prefix);
        self.retype()
    }
}
