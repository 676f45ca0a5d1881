//! What a batch call left unprocessed, typed again: the puts as entities, the keys as keys, and
//! a batch write that resends them.

use crate::batch::Unprocessed;
use crate::db::Db;
use crate::entity::{Entity, Key};
use crate::error::{Error, Item, Result};
use crate::item::{from_item, table_of};
use crate::ops::BatchWrite;
use crate::table::TableDefinition;

impl Unprocessed {
    /// The unprocessed puts of a batch write, decoded as `E` (none for a batch get). An item of
    /// another entity type fails with [`Error::WrongEntityType`].
    ///
    /// ```no_run
    /// # async fn example<E: dynashard::Entity>(db: dynashard::Db, songs: Vec<E>) -> dynashard::Result<()> {
    /// if let Err(error) = db.batch_put(&songs).await {
    ///     let left: Vec<E> = error.unprocessed().map(|left| left.puts_as::<E>()).transpose()?.unwrap_or_default();
    ///     eprintln!("{} songs still to write", left.len());
    /// }
    /// # Ok(()) }
    /// ```
    pub fn puts_as<E: Entity>(&self) -> Result<Vec<E>> {
        match self {
            Unprocessed::Writes { puts, .. } => puts.iter().cloned().map(from_item::<E>).collect(),
            Unprocessed::Keys(_) => Ok(Vec::new()),
        }
    }

    /// The keys of the unprocessed deletes of a batch write, or of the unread keys of a batch
    /// get, as keys of `E` (a delete of another entity type, from a [`TableBatch`], left out).
    ///
    /// [`TableBatch`]: crate::ops::TableBatch
    pub fn keys_as<E: Entity>(&self) -> Vec<Key<E>> {
        match self {
            Unprocessed::Writes { deletes, .. } => deletes
                .iter()
                .filter(|key| type_of(key, table_of::<E>()).is_none_or(|found| found == E::TYPE_NAME))
                .filter_map(|key| crate::batch::key_of(table_of::<E>(), key))
                .map(Key::from_primary)
                .collect(),
            Unprocessed::Keys(keys) => keys.iter().cloned().map(Key::from_primary).collect(),
        }
    }
}

impl Unprocessed {
    /// The entity type of every write (`None`: a write that does not say), by the entity-type
    /// attribute of `table`.
    pub(crate) fn types_in<'s>(
        &'s self,
        table: &'s TableDefinition,
    ) -> impl Iterator<Item = Option<&'s str>> + 's {
        let (puts, deletes): (&[Item], &[Item]) = match self {
            Unprocessed::Writes { puts, deletes } => (puts, deletes),
            Unprocessed::Keys(_) => (&[], &[]),
        };
        puts.iter().chain(deletes).map(|item| type_of(item, table))
    }

    /// The leftover puts of entity type `E`, decoded (the others left out).
    pub(crate) fn puts_of<E: Entity>(&self) -> Result<Vec<E>> {
        let Unprocessed::Writes { puts, .. } = self else { return Ok(Vec::new()) };
        let mine = puts.iter().filter(|item| type_of(item, table_of::<E>()) == Some(E::TYPE_NAME));
        mine.cloned().map(from_item::<E>).collect()
    }

    /// The leftover deletes of entity type `E`, as its keys (the others left out).
    pub(crate) fn deletes_of<E: Entity>(&self) -> Vec<Key<E>> {
        let Unprocessed::Writes { deletes, .. } = self else { return Vec::new() };
        let mine = deletes.iter().filter(|key| type_of(key, table_of::<E>()) == Some(E::TYPE_NAME));
        mine.filter_map(|key| crate::batch::key_of(table_of::<E>(), key)).map(Key::from_primary).collect()
    }
}

/// The entity type an item (or a delete's key item) names, by `table`'s entity-type attribute.
fn type_of<'i>(item: &'i Item, table: &TableDefinition) -> Option<&'i str> {
    item.get(table.type_attribute).and_then(|value| value.as_s().ok()).map(String::as_str)
}

impl Db {
    /// A batch write of what a batch write of `E` left unprocessed: its puts (built again, so
    /// index keys and shards are those of a put made now) and its deletes; `.await` it to send,
    /// with any option of [`BatchWrite`]. The unread keys of a batch get are read again with
    /// `db.batch_get(unprocessed.keys_as::<E>())` instead ([`Error::InvalidQuery`] here).
    ///
    /// ```no_run
    /// # async fn example<E: dynashard::Entity>(db: dynashard::Db, songs: Vec<E>) -> dynashard::Result<()> {
    /// use dynashard::Error;
    /// match db.batch_put(&songs).await {
    ///     Err(Error::BatchIncomplete { unprocessed, .. }) => db.resend::<E>(&unprocessed)?.concurrency(2).await?,
    ///     other => other?,
    /// }
    /// # Ok(()) }
    /// ```
    pub fn resend<E: Entity>(&self, unprocessed: &Unprocessed) -> Result<BatchWrite<'_, E>> {
        if let Unprocessed::Keys(_) = unprocessed {
            let reason =
                "these are a batch get's unread keys: read them with batch_get(unprocessed.keys_as())";
            return Err(Error::InvalidQuery { reason: reason.into() });
        }
        let puts = unprocessed.puts_as::<E>()?;
        Ok(self.batch_write().owned(puts).delete_all(unprocessed.keys_as::<E>()))
    }
}
