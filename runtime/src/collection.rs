//! Item collections: several entity types sharing a partition key, read with one query.

use crate::entity::{Entity, Key};
use crate::query::{Done, FromItem, Query, QueryTarget};
use crate::table::Table;

/// An enum of entities stored under one partition key, implemented by `#[derive(Collection)]`.
///
/// ```no_run
/// # use dynashard::{Collection, Db, Entity, Table};
/// # use serde::{Deserialize, Serialize};
/// # #[derive(Table)] #[table(name = "Music", pk = "pk", sk = "sk")] struct Music;
/// # #[derive(Entity, Serialize, Deserialize)] #[entity(table = Music, pk = "{name}", sk = "artist")]
/// # struct Artist { name: String }
/// # #[derive(Entity, Serialize, Deserialize)] #[entity(table = Music, pk = "{artist}", sk = "album#{title}")]
/// # struct Album { artist: String, title: String }
/// #[derive(Collection)]
/// enum ArtistItems {
///     Artist(Artist),
///     Album(Album),
/// }
///
/// # async fn example(db: Db) -> dynashard::Result<()> {
/// use futures::TryStreamExt;
/// let items: Vec<ArtistItems> = db.stream(ArtistItems::query(&Artist::key("Solar Fields")?)).try_collect().await?;
/// # Ok(()) }
/// ```
pub trait Collection: FromItem {
    /// The table every member lives in.
    type Table: Table;

    /// Every item of the partition that `member_key` (the key of any entity of this table) is in,
    /// in sort-key order. Items of entity types outside the collection fail the stream with
    /// [`crate::Error::UnknownEntityType`], unless the query
    /// [skips other types](Query::skip_other_types).
    fn query<M: Entity<Table = Self::Table>>(member_key: &Key<M>) -> Query<Self, Done> {
        let table = <Self::Table as Table>::DEFINITION_REF;
        let target = QueryTarget {
            table,
            index: None,
            type_name: <Self as FromItem>::TYPE_NAMES.first().copied().unwrap_or(""),
            partition_attribute: table.partition_key,
            sort_attribute: table.sort_key,
            sort_template: None,
        };
        Query::new(target, Ok(member_key.pk().to_owned()))
    }
}
