//! An entity's range boundaries at run time: the boundaries a range-sharded mapping routes by,
//! found from the entity's shard specs, and replaced for the whole process (see
//! [`RangeShards`] for why they are not a `Db`'s).

use crate::entity::Entity;
use crate::error::{Error, Result};
use crate::index::Index;
use crate::shard::{Boundaries, RangeShards};
use std::sync::Arc;

/// The boundaries of `E`'s range-sharded index `index`.
///
/// Fails with [`Error::NotRangeSharded`] when `E` has no range-sharded mapping of `index`.
///
/// ```
/// # use dynashard::{Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "Music", pk = "pk", sk = "sk")]
/// # #[gsi(GSI1(pk = "gsi1_pk", sk = "gsi1_sk"))]
/// # struct Music;
/// #[derive(Entity, serde::Serialize, serde::Deserialize)]
/// #[entity(table = Music, pk = "{artist}", sk = "album#{title}")]
/// #[gsi(GSI1(pk = "albums", sk = "{title}"))]
/// #[shard(GSI1(range = "doc/album_boundaries.json", by = title))]
/// struct Album {
///     artist: String,
///     title: String,
/// }
///
/// let shards = dynashard::range_shards::<Album>(Music::GSI1)?;
/// assert_eq!(shards.current().values(), ["", "h", "p"]);
/// # Ok::<(), dynashard::Error>(())
/// ```
pub fn range_shards<E: Entity>(index: Index<E::Table>) -> Result<&'static RangeShards> {
    E::SHARDS
        .iter()
        .filter(|spec| spec.index == index.name())
        .find_map(|spec| spec.range_shards())
        .ok_or_else(|| Error::NotRangeSharded { entity: E::TYPE_NAME, index: index.name().to_owned() })
}

/// Routes `E`'s range-sharded index `index` by `boundaries` from now on, in this process;
/// returns the boundaries they replace. Stored items do not move: items written under the old
/// boundaries stay in the shards those chose (see [`crate::reshard`] to move them).
///
/// ```
/// # use dynashard::{Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "Music", pk = "pk", sk = "sk")]
/// # #[gsi(GSI1(pk = "gsi1_pk", sk = "gsi1_sk"))]
/// # struct Music;
/// #[derive(Entity, serde::Serialize, serde::Deserialize)]
/// #[entity(table = Music, pk = "{artist}", sk = "album#{title}")]
/// #[gsi(GSI1(pk = "albums", sk = "{title}"))]
/// #[shard(GSI1(range = "doc/album_boundaries.json", by = title))]
/// struct Album {
///     artist: String,
///     title: String,
/// }
///
/// use dynashard::{shard::Boundaries, use_boundaries};
///
/// // For example the output of `dynashard boundaries`, read from configuration.
/// let json = r#"["", "d", "h", "m", "s"]"#;
/// let boundaries = Boundaries::from_json(json).expect("valid boundaries");
/// let compiled = use_boundaries::<Album>(Music::GSI1, boundaries)?;
/// assert_eq!(compiled.shards(), 3);
/// let query = Album::query_gsi1();
/// assert_eq!(query.plan_shards().map(|shards| shards.partitions.len()), Some(5));
/// # Ok::<(), dynashard::Error>(())
/// ```
pub fn use_boundaries<E: Entity>(index: Index<E::Table>, boundaries: Boundaries) -> Result<Arc<Boundaries>> {
    range_shards::<E>(index).map(|shards| shards.replace(boundaries))
}
