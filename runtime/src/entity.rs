//! The `Entity` trait that `#[derive(Entity)]` implements, typed keys and typed field handles.

use crate::error::{Item, Result};
use crate::index_keys::{FieldChanges, IndexKeyUpdate, IndexKeys};
use crate::shard::ShardSpec;
use crate::table::Table;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::fmt;
use std::marker::PhantomData;

/// A struct stored as items of one type in a single table.
///
/// Implemented by `#[derive(Entity)]`; see the crate documentation for the attributes.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a dynashard entity",
    label = "not an entity",
    note = "entities are structs with `#[derive(Entity)]` and `#[entity(table = ..., pk = \"...\")]`"
)]
pub trait Entity: Serialize + DeserializeOwned + Send + Sync + Sized + 'static {
    /// The table the entity lives in.
    type Table: Table;

    /// The types of its key fields, as a tuple in [`Entity::KEY_FIELDS`] order.
    type KeyFields;

    /// The value of the entity-type attribute on this entity's items.
    const TYPE_NAME: &'static str;

    /// How many shards the base table's partition key is spread over (`#[shard(hash = N, ..)]`
    /// without an index name); 1 when it is not sharded.
    const BASE_TABLE_SHARDS: u32 = 1;

    /// Whether an index of the entity has a dynamic shard count (`#[shard(INDEX(dynamic))]`).
    const DYNAMIC_SHARDS: bool = false;

    /// The attributes the entity's serde body writes, after serde renames (its key fields
    /// included); `None` when it flattens fields into the item, whose attributes are then not
    /// known. What an index must project for the entity to be read from it whole.
    const ATTRIBUTES: Option<&'static [&'static str]> = None;

    /// Where each key field is in the primary key, for reading it back (upserts).
    const KEY_FIELDS: &'static [crate::key_fields::KeyField] = &[];

    /// The fields a new item cannot do without: not key fields, not `Option`s, sets or
    /// `#[serde(default)]` fields. An upsert must set each.
    const REQUIRED: &'static [&'static str] = &[];

    /// The attribute of the `#[ttl]` field, stored as epoch seconds in the table's time-to-live
    /// attribute.
    const TTL: Option<&'static str> = None;

    /// The attribute of the `#[created_at]` field: the current time on the first write of the
    /// item, kept by later puts and upserts.
    const CREATED_AT: Option<&'static str> = None;

    /// The attribute of the `#[updated_at]` field: the current time on every write.
    const UPDATED_AT: Option<&'static str> = None;

    /// The set fields (`HashSet`, `BTreeSet`, or an `Option` of one), stored as DynamoDB sets.
    const SETS: &'static [crate::sets::SetAttribute] = &[];

    /// The attribute that holds the optimistic-locking version, for `#[version]` entities.
    const VERSION_ATTRIBUTE: Option<&'static str> = None;

    /// How each sharded mapping (and the base table) is sharded, as declared by `#[shard(...)]`:
    /// what writes, query plans and resharding route by.
    const SHARDS: &'static [ShardSpec] = &[];

    /// The index mappings declared `added` (`#[gsi(Index(..., added))]`): new to items that
    /// exist, which a migration gives their keys ([`Migration::add_mapping`]); their reads wait
    /// for its cut-over.
    ///
    /// [`Migration::add_mapping`]: crate::reshard::Migration::add_mapping
    const ADDED: &'static [crate::index_keys::AddedMapping] = &[];

    /// Composes this value's primary key.
    fn primary_key(&self) -> Result<PrimaryKey>;

    /// The current optimistic-locking version (`0` for a value never stored).
    fn version(&self) -> u64 {
        0
    }

    /// Sets the optimistic-locking version; dynashard calls it after a successful save.
    fn set_version(&mut self, _version: u64) {}

    /// The `#[created_at]` and `#[updated_at]` attributes holding the instant `now`, as their
    /// fields store it (empty without such fields).
    fn timestamps_at(_now: time::OffsetDateTime) -> Result<Item> {
        Ok(Item::new())
    }

    /// Sets the `#[created_at]` and `#[updated_at]` fields from their attributes in `item`,
    /// where it has them; dynashard calls it after a successful save.
    fn set_timestamps(&mut self, _item: &Item) -> Result<()> {
        Ok(())
    }

    /// Names the key values of every index this value belongs to (none for a sparse index that
    /// does not apply); `keys` routes the sharded ones and writes them into the item.
    #[doc(hidden)]
    fn write_index_keys(&self, _keys: &mut IndexKeys<'_>) -> Result<()> {
        Ok(())
    }

    /// The index key attribute changes an update implies: recomputed keys for indexes whose
    /// template fields it sets, removals for sparse indexes the item leaves.
    fn index_key_updates(_key: &Key<Self>, _changes: &FieldChanges) -> Result<Vec<IndexKeyUpdate>> {
        Ok(Vec::new())
    }
}

pub use crate::primary_key::PrimaryKey;

/// The primary key of one entity type, as built by the generated key builders
/// (e.g. `Song::key(artist, album, title)`).
pub struct Key<E> {
    primary: PrimaryKey,
    entity: PhantomData<fn() -> E>,
}

impl<E: Entity> Key<E> {
    /// Wraps an already composed key. Generated key builders call this.
    pub fn from_primary(primary: PrimaryKey) -> Self {
        Self { primary, entity: PhantomData }
    }

    /// The key of an entity value.
    pub fn of(entity: &E) -> Result<Self> {
        entity.primary_key().map(Self::from_primary)
    }

    /// The composed key values.
    pub fn primary(&self) -> &PrimaryKey {
        &self.primary
    }

    /// The partition key value.
    pub fn pk(&self) -> &str {
        &self.primary.pk
    }

    /// The sort key value, if the table has a sort key.
    pub fn sk(&self) -> Option<&str> {
        self.primary.sk.as_deref()
    }
}

impl<E> Clone for Key<E> {
    fn clone(&self) -> Self {
        Self { primary: self.primary.clone(), entity: PhantomData }
    }
}

impl<E> PartialEq for Key<E> {
    fn eq(&self, other: &Self) -> bool {
        self.primary == other.primary
    }
}

impl<E> Eq for Key<E> {}

impl<E> fmt::Debug for Key<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Key").field("pk", &self.primary.pk).field("sk", &self.primary.sk).finish()
    }
}

/// A typed handle on one non-key attribute of an entity, for updates and conditions.
///
/// Generated per entity: `Song::fields().length` is a `Field<Song, u32>`.
pub struct Field<E, T> {
    name: &'static str,
    types: PhantomData<fn() -> (E, T)>,
}

impl<E, T> Field<E, T> {
    /// A handle on the attribute `name`. Generated code calls this.
    pub const fn new(name: &'static str) -> Self {
        Self { name, types: PhantomData }
    }

    /// The attribute name (after serde renaming).
    pub const fn name(&self) -> &'static str {
        self.name
    }
}

impl<E, T> Clone for Field<E, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<E, T> Copy for Field<E, T> {}

impl<E, T> fmt::Debug for Field<E, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Field({})", self.name)
    }
}
