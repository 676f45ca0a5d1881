//! An entity's item as a write builds it: the body, key and type attributes serialized once,
//! `#[updated_at]` set to the current time; the index keys, which depend on dynamic shard counts
//! and reshardings, written per attempt.

use super::layouts::Layouts;
use crate::db::Db;
use crate::dynamic::{DynamicTarget, Recorded};
use crate::entity::Entity;
use crate::error::{Item, Result};
use crate::index_keys::IndexKeys;
use crate::item::{body, check_complete, table_of};
use aws_sdk_dynamodb::types::AttributeValue;

/// An entity's item, its body built.
pub(crate) struct Draft<'e, E> {
    entity: &'e E,
    body: Item,
    /// The current time as the `#[created_at]` field stores it, for a put that creates.
    created_now: Option<AttributeValue>,
}

/// A complete item and the dynamic-sharded partitions it is written to.
#[derive(Debug)]
pub(crate) struct Built {
    pub item: Item,
    pub targets: Vec<DynamicTarget>,
    /// The `#[created_at]` attribute's value for an item the write creates: the time the item's
    /// `#[updated_at]` holds. Puts keep the value an existing item has; batch writes, which
    /// replace items whole, write the entity's own value (in `item`).
    pub created_now: Option<AttributeValue>,
}

impl<'e, E: Entity> Draft<'e, E> {
    /// Serializes `entity`'s body, key and type attributes, with the current time in its
    /// `#[updated_at]` attribute.
    pub fn new(entity: &'e E) -> Result<Self> {
        let mut body = body(entity)?;
        let mut created_now = None;
        if E::CREATED_AT.is_some() || E::UPDATED_AT.is_some() {
            let mut now = E::timestamps_at(time::OffsetDateTime::now_utc())?;
            created_now = E::CREATED_AT.and_then(|attribute| now.remove(attribute));
            if let Some((attribute, value)) = E::UPDATED_AT.and_then(|attribute| now.remove_entry(attribute))
            {
                body.insert(attribute, value);
            }
        }
        Ok(Draft { entity, body, created_now })
    }

    /// The complete item for `layouts`, reading first the dynamic counts the cache lacks. The
    /// body is kept, for another attempt.
    pub async fn build(&self, layouts: &Layouts<'_, E>) -> Result<Built> {
        let (item, recorded) = complete(self.entity, self.body.clone(), layouts)?;
        if recorded.missing.is_empty() {
            return Ok(Built { item, targets: recorded.targets, created_now: self.created_now.clone() });
        }
        layouts.resolve_counts(&recorded.missing).await?;
        let (item, recorded) = complete(self.entity, self.body.clone(), layouts)?;
        built(item, recorded, self.created_now.clone())
    }

    /// The complete item for `layouts` as cached, without reading anything: a dynamic count the
    /// cache lacks is [`Error::DynamicShardsUnresolved`](crate::Error::DynamicShardsUnresolved).
    pub fn into_built(self, layouts: &Layouts<'_, E>) -> Result<Built> {
        let Draft { entity, body, created_now } = self;
        let (item, recorded) = complete(entity, body, layouts)?;
        built(item, recorded, created_now)
    }
}

/// `item`, unless a count it needs is still missing.
fn built(item: Item, recorded: Recorded, created_now: Option<AttributeValue>) -> Result<Built> {
    match recorded.missing.first() {
        None => Ok(Built { item, targets: recorded.targets, created_now }),
        Some(target) => Err(target.unresolved()),
    }
}

/// `entity`'s `body` with the index keys for the cached counts, the dual writes, and checked.
fn complete<E: Entity>(entity: &E, mut item: Item, layouts: &Layouts<'_, E>) -> Result<(Item, Recorded)> {
    let chooser = layouts.chooser();
    entity.write_index_keys(&mut IndexKeys::of_item(&mut item, table_of::<E>(), &chooser))?;
    layouts.mirror(&mut item)?;
    check_complete::<E>(&item)?;
    Ok((item, chooser.into_recorded()))
}

impl Db {
    /// Reads the shard counts of `entity`'s dynamic-sharded indexes, and the reshardings of its
    /// mappings, into this `Db`'s caches, so that a transaction can then write it (puts and batch
    /// writes do this by themselves).
    pub async fn resolve_shards<E: Entity>(&self, entity: &E) -> Result<()> {
        let layouts = Layouts::resolve(self).await?;
        Draft::new(entity)?.build(&layouts).await.map(|_| ())
    }
}
