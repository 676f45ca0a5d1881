//! The sort-key condition methods of [`Query`], and the traits that say which apply where.
//!
//! A query's second type parameter records what is left of its sort key (see [`Next`],
//! [`End`], [`Native`] and [`Done`]). Each method needs a trait of that position: equality needs
//! a placeholder left ([`Narrow`]), ranges need the last placeholder of a template, an integer
//! placeholder anywhere, or any attribute of a multi-attribute key ([`RangeCondition`]), prefixes need a string
//! ([`PrefixCondition`]). Using one where it does not apply is a compile error that says so.
//!
//! [`Next`]: super::Next
//! [`End`]: super::End
//! [`Native`]: super::Native

use super::Query;
use std::marker::PhantomData;

/// The next sort-key placeholder has type `H` and more template follows it.
#[derive(Debug)]
pub struct Next<H, R>(PhantomData<fn() -> (H, R)>);
/// The next sort-key placeholder has type `H` and ends the template.
#[derive(Debug)]
pub struct End<H>(PhantomData<fn() -> H>);
/// Nothing is left of the sort-key template to condition on.
#[derive(Debug)]
pub struct Done;

mod sealed {
    pub trait Sealed {}
}
pub(crate) use sealed::Sealed;

/// A sort-key position that an equality condition can narrow.
#[diagnostic::on_unimplemented(
    message = "the sort key has no further placeholder to narrow with `.eq(..)`",
    label = "no placeholder of the sort-key template is left here",
    note = "each `.eq(..)` gives the next placeholder of the sort-key template a value; none is left \
            after the last one, or after a range condition or `begins_with`"
)]
pub trait Narrow: Sealed + Sized {
    /// The argument type (`&str` for a `String` field).
    type Arg<'a>: Copy
    where
        Self: 'a;
    /// What is left after this position.
    type Rest;
    /// See [`Query::eq`].
    fn eq<E>(query: Query<E, Self>, value: Self::Arg<'_>) -> Query<E, Self::Rest>;
}

/// A sort-key position that takes range conditions: the last placeholder of a key template, a
/// placeholder of a [`PrefixFree`](crate::key::PrefixFree) type (integers) anywhere in it, or any
/// attribute of a multi-attribute key.
#[diagnostic::on_unimplemented(
    message = "range conditions apply to the last placeholder of a sort-key template, or to an integer one",
    label = "narrow the placeholders before it with `.eq(..)` first",
    note = "a string followed by more of the template is not stored in an order that ranges can rely on"
)]
pub trait RangeCondition: Narrow {
    /// See [`Query::lt`].
    fn lt<E>(query: Query<E, Self>, value: Self::Arg<'_>) -> Query<E, Done>;
    /// See [`Query::le`].
    fn le<E>(query: Query<E, Self>, value: Self::Arg<'_>) -> Query<E, Done>;
    /// See [`Query::gt`].
    fn gt<E>(query: Query<E, Self>, value: Self::Arg<'_>) -> Query<E, Done>;
    /// See [`Query::ge`].
    fn ge<E>(query: Query<E, Self>, value: Self::Arg<'_>) -> Query<E, Done>;
    /// See [`Query::between`].
    fn between<E>(query: Query<E, Self>, low: Self::Arg<'_>, high: Self::Arg<'_>) -> Query<E, Done>;
}

/// A sort-key position holding a string, which takes a prefix condition.
#[diagnostic::on_unimplemented(
    message = "`begins_with` needs a string sort-key placeholder",
    label = "the next sort-key value here is not a string"
)]
pub trait PrefixCondition: Sealed + Sized {
    /// See [`Query::begins_with`].
    fn begins_with<E>(query: Query<E, Self>, prefix: &str) -> Query<E, Done>;
}

impl<E, F> Query<E, F> {
    /// Only items whose next sort-key value equals `value`; narrows to the rest of the key.
    // `R` names the rest rather than `<F as Narrow>::Rest`, so that on a position without a
    // placeholder (`Done`) rustc reports the unmet `Narrow` bound with its message.
    pub fn eq<R>(self, value: <F as Narrow>::Arg<'_>) -> Query<E, R>
    where
        F: Narrow<Rest = R>,
    {
        F::eq(self, value)
    }

    /// Only items whose next sort-key value is one of `values`: one equality each, read
    /// together as a [`merge`](Query::merge) in sort-key order. On the `by` field of a hash-sharded
    /// index, each value reads only the shard it routes to (three values over 21 shards: at
    /// most three requests a page). A value given twice is read once; no values at all is
    /// [`Error::InvalidQuery`](crate::Error::InvalidQuery) when the query runs.
    ///
    /// ```
    /// # use dynashard::{Entity, Table};
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Table)] #[table(name = "Music", pk = "pk", sk = "sk")] #[gsi(gsi1(pk = "gsi1pk", sk = "gsi1sk"))] struct Music;
    /// #[derive(Entity, Serialize, Deserialize)]
    /// #[entity(table = Music, pk = "{artist}", sk = "album#{title}")]
    /// #[gsi(gsi1(pk = "albums", sk = "{title}"))]
    /// #[shard(gsi1(hash = 21, by = title))]
    /// struct Album { artist: String, title: String }
    ///
    /// // Three titles, from the three shards they hash to.
    /// let three = Album::query_gsi1().is_in(["Leaving Home", "Tomorrow", "Mindfields"]);
    /// # drop(three);
    /// ```
    pub fn is_in<'a, R>(self, values: impl IntoIterator<Item = <F as Narrow>::Arg<'a>>) -> Query<E, Done>
    where
        F: Narrow<Rest = R> + 'a,
    {
        let queries: Vec<Query<E, R>> = values.into_iter().map(|value| self.clone().eq(value)).collect();
        if queries.is_empty() {
            let mut none = self.retype::<Done>();
            let reason = "an `is_in` of no values selects nothing; skip the read when there are none";
            none.fail(crate::error::Error::InvalidQuery { reason: reason.to_owned() });
            return none;
        }
        Query::merge(queries)
    }

    /// Only items whose next sort-key value is less than `value`.
    pub fn lt(self, value: <F as Narrow>::Arg<'_>) -> Query<E, Done>
    where
        F: RangeCondition,
    {
        F::lt(self, value)
    }

    /// Only items whose next sort-key value is at most `value`.
    pub fn le(self, value: <F as Narrow>::Arg<'_>) -> Query<E, Done>
    where
        F: RangeCondition,
    {
        F::le(self, value)
    }

    /// Only items whose next sort-key value is greater than `value`.
    pub fn gt(self, value: <F as Narrow>::Arg<'_>) -> Query<E, Done>
    where
        F: RangeCondition,
    {
        F::gt(self, value)
    }

    /// Only items whose next sort-key value is at least `value`.
    pub fn ge(self, value: <F as Narrow>::Arg<'_>) -> Query<E, Done>
    where
        F: RangeCondition,
    {
        F::ge(self, value)
    }

    /// Only items whose next sort-key value lies between `low` and `high`, both included
    /// (nothing when `low > high`).
    pub fn between(self, low: <F as Narrow>::Arg<'_>, high: <F as Narrow>::Arg<'_>) -> Query<E, Done>
    where
        F: RangeCondition,
    {
        F::between(self, low, high)
    }

    /// Only items whose next sort-key value starts with `prefix` (any length, even empty).
    pub fn begins_with(self, prefix: &str) -> Query<E, Done>
    where
        F: PrefixCondition,
    {
        F::begins_with(self, prefix)
    }
}
