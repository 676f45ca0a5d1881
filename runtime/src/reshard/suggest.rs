//! A new range layout from what a `Db` observed: the shards a heat map shows over their limit,
//! cut where the writes this `Db` sent them balance.

use crate::db::Db;
use crate::entity::Entity;
use crate::error::Result;
use crate::heat::{suggest_split, HeatMap, SplitSuggestion, ValueLoad};
use crate::index::Index;
use crate::shard::logical_partition;
use std::collections::BTreeMap;

impl Db {
    /// New boundaries for `E`'s range-sharded mapping of `index` that split each of its shards
    /// `map` shows over its limit where the load this `Db` and its clones observed on the
    /// shard's routing values balances ([`suggest_split`] says how); `None` when no shard went
    /// over, [`Error::NotRangeSharded`](crate::Error::NotRangeSharded) when `E` has no range
    /// shards on `index`. Pass the boundaries to
    /// [`Layout::range`](crate::shard::Layout::range) and [`Db::start_resharding`].
    ///
    /// The load on a routing value is what the writes of `E` (puts, updates, deletes, batch
    /// writes, transactions) were charged on the index for items of that value, over the
    /// hot-key window ([`HotKeyTracking`](crate::consumption::HotKeyTracking)); reads are not
    /// counted per value. The logical partitions considered are those this `Db` wrote `E` to;
    /// in them, an over-limit shard none of whose values it saw is listed as
    /// [`unsplittable`](SplitSuggestion::unsplittable). The map can be this `Db`'s own
    /// ([`Db::heat_map`]), the emulator's, or Contributor Insights'.
    ///
    /// ```no_run
    /// # use dynashard::{Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "Music", pk = "pk", sk = "sk")]
    /// # #[gsi(GSI1(pk = "gsi1_pk", sk = "gsi1_sk"))]
    /// # #[gsi(GSI2(pk = "gsi2_pk", sk = "gsi2_sk"))]
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
    /// # async fn example(db: dynashard::Db) -> dynashard::Result<()> {
    /// if let Some(split) = db.suggest_split::<Album>(Music::GSI1, &db.heat_map(50))? {
    ///     let layout = dynashard::shard::Layout::range(&split.boundaries);
    ///     db.start_resharding::<Album>(Music::GSI1, Music::GSI2, layout).await?;
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn suggest_split<E: Entity>(
        &self,
        index: Index<E::Table>,
        map: &HeatMap,
    ) -> Result<Option<SplitSuggestion>> {
        let boundaries = crate::boundaries::range_shards::<E>(index)?.current();
        let index = index.name();
        let table = self.table_of::<E>();
        let Some(tracker) = &self.meter().hot else { return Ok(None) };
        let loads =
            tracker.value_loads(|place| place.table == table && place.index.as_deref() == Some(index));
        // The load on each value, by logical partition.
        let mut by_partition: BTreeMap<String, Vec<ValueLoad>> = BTreeMap::new();
        for (place, value, units) in loads {
            let partition = logical_partition(&place.partition_key).to_owned();
            by_partition.entry(partition).or_default().push(ValueLoad { value, units });
        }
        let suggestions = by_partition.iter().filter_map(|(partition, loads)| {
            suggest_split(map, (table, Some(index), partition), &boundaries, loads)
        });
        Ok(suggestions.reduce(SplitSuggestion::merge))
    }
}
