//! What an index holds of an entity: whether its projection covers a set of attributes, decided
//! at compile time, and the types through which a query on an index that lacks some of an
//! entity's attributes refuses to decode whole entities.
//!
//! A query entry point on such an index yields [`Projected<E, I>`] instead of `E`. `Projected`
//! is not something a query can decode, so reading it as is does not compile; the query reads
//! through [`.hydrate()`](crate::Query::hydrate) (the full items, by base key) or
//! [`.view::<V>()`](crate::Query::view) (a [`View`](crate::View) whose attributes the index
//! holds).
//!
//! ```compile_fail,E0277
//! # use dynashard::{Db, Entity, Table};
//! # use serde::{Deserialize, Serialize};
//! #[derive(Table)]
//! #[table(name = "Shop", pk = "pk", sk = "sk")]
//! #[gsi(byCustomer(pk = "gsi1pk", sk = "gsi1sk", projection = "keys_only"))]
//! struct Shop;
//!
//! #[derive(Entity, Serialize, Deserialize)]
//! #[entity(table = Shop, pk = "order#{id}", sk = "order")]
//! #[gsi(byCustomer(pk = "{customer}", sk = "{id}"))]
//! struct Order { id: String, customer: String, total: u64 }
//!
//! # async fn example(db: Db) -> dynashard::Result<()> {
//! // The index holds keys only: an `Order` cannot be read from it whole.
//! let page = db.page(&Order::query_by_customer("ada"), None).await?;
//! # Ok(()) }
//! ```

use crate::table::{IndexDefinition, IndexProjection, TableDefinition};
use std::marker::PhantomData;

/// The items of entity `E` read from index `I` (an [`IndexSlot`]) that does not hold all of
/// `E`'s attributes: a query yielding it reads with [`.hydrate()`](crate::Query::hydrate) or
/// [`.view::<V>()`](crate::Query::view). Never constructed.
#[derive(Debug)]
pub struct Projected<E, I> {
    _types: PhantomData<fn() -> (E, I)>,
    _never: std::convert::Infallible,
}

/// The index at position `N` in its table's [`TableDefinition::indexes`], as a type.
#[derive(Debug)]
pub struct IndexSlot<const N: usize>;

/// The most indexes a table can declare (20 global and 5 local secondary indexes).
pub const MAX_INDEXES: usize = 25;

/// A compile-time answer: whether an index holds every attribute a read needs.
#[derive(Debug)]
pub struct Verdict<const COVERS: bool>;

/// The item type a query of entity `E` on index `I` yields: `E` when the index holds all of its
/// attributes, else [`Projected<E, I>`].
pub trait Pick<E, I> {
    /// The item type.
    type Item;
}

impl<E, I> Pick<E, I> for Verdict<true> {
    type Item = E;
}

impl<E, I> Pick<E, I> for Verdict<false> {
    type Item = Projected<E, I>;
}

/// The item type a query of entity `E` on the index at slot `SLOT` yields, given whether the
/// index holds all of `E`'s attributes: what generated query entry points return.
pub type IndexItem<E, const COVERS: bool, const SLOT: usize> =
    <Verdict<COVERS> as Pick<E, IndexSlot<SLOT>>>::Item;

/// Holds when an index holds every attribute a read needs.
#[diagnostic::on_unimplemented(
    message = "the index this query reads does not hold every attribute of the view",
    label = "the view needs attributes the index's projection leaves out",
    note = "add the view's attributes to the index's `projection = [...]`, drop them from the view, or read \
            the full items with `.hydrate()`"
)]
pub trait Holds {}

impl Holds for Verdict<true> {}

/// Whether the index `I` holds every attribute of a view; implemented by `#[derive(View)]` for
/// every [`IndexSlot`].
pub trait CoveredBy<I> {
    /// [`Verdict<true>`] when it does.
    type Verdict;
}

/// The position of index `name` in `indexes`, or 0 when there is none (a mapping to an index
/// the table does not declare is reported by its own check).
pub const fn index_slot(indexes: &[IndexDefinition], name: &str) -> usize {
    let mut position = 0;
    while position < indexes.len() {
        if crate::index_keys::const_str_eq(indexes[position].name, name) {
            return position;
        }
        position += 1;
    }
    0
}

/// Whether index `index` of `table` holds every attribute in `attributes`, and the entity-type
/// attribute; `None` attributes (an entity that flattens fields into its item, whose attributes
/// are not known) are held only by an index that projects all of them.
pub const fn covers(table: &TableDefinition, index: &IndexDefinition, attributes: Option<&[&str]>) -> bool {
    let included = match index.projection {
        IndexProjection::All => return true,
        IndexProjection::KeysOnly => &[] as &[&str],
        IndexProjection::Include(included) => included,
    };
    let Some(attributes) = attributes else { return false };
    if !holds(table, index, included, table.type_attribute) {
        return false;
    }
    let mut position = 0;
    while position < attributes.len() {
        if !holds(table, index, included, attributes[position]) {
            return false;
        }
        position += 1;
    }
    true
}

/// Whether index `index` of `table` holds the attribute `attribute`.
pub const fn index_holds(table: &TableDefinition, index: &IndexDefinition, attribute: &str) -> bool {
    let included = match index.projection {
        IndexProjection::All => return true,
        IndexProjection::KeysOnly => &[] as &[&str],
        IndexProjection::Include(included) => included,
    };
    holds(table, index, included, attribute)
}

/// [`covers`] for the index at `slot` of `table`; a slot past the table's indexes covers
/// nothing (no query reads it).
pub const fn slot_covers(table: &TableDefinition, slot: usize, attributes: Option<&[&str]>) -> bool {
    slot < table.indexes.len() && covers(table, &table.indexes[slot], attributes)
}

/// Whether an index holding the keys and `included` holds `attribute`.
const fn holds(table: &TableDefinition, index: &IndexDefinition, included: &[&str], attribute: &str) -> bool {
    use crate::index_keys::const_str_eq;
    if const_str_eq(table.partition_key, attribute) {
        return true;
    }
    if let Some(sort_key) = table.sort_key {
        if const_str_eq(sort_key, attribute) {
            return true;
        }
    }
    contains_key(index.partition_key, attribute)
        || contains_key(index.sort_key, attribute)
        || contains(included, attribute)
}

const fn contains_key(keys: &[crate::table::KeyAttribute], attribute: &str) -> bool {
    let mut position = 0;
    while position < keys.len() {
        if crate::index_keys::const_str_eq(keys[position].name, attribute) {
            return true;
        }
        position += 1;
    }
    false
}

/// Whether `names` contains `name`.
pub const fn contains(names: &[&str], name: &str) -> bool {
    let mut position = 0;
    while position < names.len() {
        if crate::index_keys::const_str_eq(names[position], name) {
            return true;
        }
        position += 1;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::{Billing, KeyAttribute, ScalarKind};

    const PK: &[KeyAttribute] = &[KeyAttribute { name: "gpk", kind: ScalarKind::String }];
    const SK: &[KeyAttribute] = &[KeyAttribute { name: "gsk", kind: ScalarKind::String }];

    const fn index(name: &'static str, projection: IndexProjection) -> IndexDefinition {
        IndexDefinition {
            name,
            local: false,
            partition_key: PK,
            sort_key: SK,
            projection,
            warm_throughput: None,
        }
    }

    const TABLE: TableDefinition = TableDefinition {
        name: "Shop",
        partition_key: "pk",
        sort_key: Some("sk"),
        type_attribute: "type",
        indexes: &[
            index("all", IndexProjection::All),
            index("keys", IndexProjection::KeysOnly),
            index("some", IndexProjection::Include(&["type", "total"])),
            index("untyped", IndexProjection::Include(&["total"])),
        ],
        billing: Billing::PayPerRequest,
        shard_metadata: None,
        ttl: None,
        stream: None,
        deletion_protection: false,
        point_in_time_recovery: false,
        warm_throughput: None,
        tags: &[],
    };

    #[test]
    fn an_index_covers_what_it_projects_and_the_keys() {
        let (all, keys, some, untyped) = (0, 1, 2, 3);
        assert!(slot_covers(&TABLE, all, None), "ALL holds even unknown attributes");
        assert!(slot_covers(&TABLE, all, Some(&["anything"])));
        assert!(!slot_covers(&TABLE, keys, Some(&[])), "KEYS_ONLY lacks the entity type");
        assert!(slot_covers(&TABLE, some, Some(&["total", "pk", "gsk"])), "keys are always held");
        assert!(!slot_covers(&TABLE, some, Some(&["total", "customer"])));
        assert!(!slot_covers(&TABLE, some, None), "unknown attributes need ALL");
        assert!(!slot_covers(&TABLE, untyped, Some(&["total"])), "the entity type must be held");
        assert!(!slot_covers(&TABLE, 9, Some(&[])), "a slot past the indexes holds nothing");
        assert_eq!(index_slot(TABLE.indexes, "some"), 2);
        let [_, keys_only, some, _] = TABLE.indexes else { unreachable!() };
        assert!(index_holds(&TABLE, keys_only, "gsk") && index_holds(&TABLE, keys_only, "sk"));
        assert!(!index_holds(&TABLE, keys_only, "type") && index_holds(&TABLE, some, "total"));
        assert_eq!(index_slot(TABLE.indexes, "missing"), 0);
    }
}
