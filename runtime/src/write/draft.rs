//! An entity's item as a write builds it: the body, key and type attributes serialized once;
//! the index keys, which depend on dynamic shard counts and reshardings, written per attempt.

use super::layouts::Layouts;
use crate::dynamic::{DynamicTarget, Recorded};
use crate::entity::Entity;
use crate::error::{Item, Result};
use crate::item::{body, check_complete};

/// An entity's item, its body built.
pub(crate) struct Draft<'e, E> {
    entity: &'e E,
    body: Item,
}

/// A complete item and the dynamic-sharded partitions it is written to.
#[derive(Debug)]
pub(crate) struct Built {
    pub item: Item,
    pub targets: Vec<DynamicTarget>,
}

impl<'e, E: Entity> Draft<'e, E> {
    /// Serializes `entity`'s body, key and type attributes.
    pub fn new(entity: &'e E) -> Result<Self> {
        Ok(Draft { entity, body: body(entity)? })
    }

    /// The complete item for `layouts`, reading first the dynamic counts the cache lacks. The
    /// body is kept, for another attempt.
    pub async fn build(&self, layouts: &Layouts<'_, E>) -> Result<Built> {
        let (item, recorded) = complete(self.entity, self.body.clone(), layouts)?;
        if recorded.missing.is_empty() {
            return Ok(Built { item, targets: recorded.targets });
        }
        layouts.resolve_counts(&recorded.missing).await?;
        let (item, recorded) = complete(self.entity, self.body.clone(), layouts)?;
        built(item, recorded)
    }

    /// The complete item for `layouts` as cached, without reading anything: a dynamic count the
    /// cache lacks is [`Error::DynamicShardsUnresolved`](crate::Error::DynamicShardsUnresolved).
    pub fn into_built(self, layouts: &Layouts<'_, E>) -> Result<Built> {
        let Draft { entity, body } = self;
        let (item, recorded) = complete(entity, body, layouts)?;
        built(item, recorded)
    }
}

/// `item`, unless a count it needs is still missing.
fn built(item: Item, recorded: Recorded) -> Result<Built> {
    match recorded.missing.first() {
        None => Ok(Built { item, targets: recorded.targets }),
        Some(target) => Err(target.unresolved()),
    }
}

/// `entity`'s `body` with the index keys for the cached counts, the dual writes, and checked.
fn complete<E: Entity>(entity: &E, mut item: Item, layouts: &Layouts<'_, E>) -> Result<(Item, Recorded)> {
    let chooser = layouts.chooser();
    entity.write_index_keys(&mut item, &chooser)?;
    layouts.mirror(&mut item)?;
    check_complete::<E>(&item)?;
    Ok((item, chooser.into_recorded()))
}
