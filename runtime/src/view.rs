//! Typed views: structs holding a subset of an entity's fields, read with a
//! `ProjectionExpression` from the base table or from an index whose projection holds them.

use crate::entity::Entity;
use crate::error::{Item, Result};
use crate::item::check_type;
use crate::projection::{CoveredBy, Holds, Projected};
use crate::query::{FromItem, Query};
use serde::de::DeserializeOwned;

/// A struct holding some of an entity's fields (same names, same types, same serde renames),
/// derived with `#[derive(View)]` and read with [`Query::view`].
///
/// A query reads a view with a `ProjectionExpression` naming only its attributes (and the keys a
/// cursor needs), so less data crosses the network and is decoded; DynamoDB still charges read
/// units for the whole item it reads. Read from an index that projects only the view's
/// attributes (`#[gsi(..., projection = ["a", "b"])]`), a view also costs the read units of those
/// smaller index items. Whether the index holds every attribute of the view is checked at
/// compile time.
///
/// ```
/// use dynashard::{Entity, Table, View};
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Table)]
/// #[table(name = "Shop", pk = "pk", sk = "sk")]
/// #[gsi(byCustomer(pk = "gsi1pk", sk = "gsi1sk", projection = ["id", "total"]))]
/// struct Shop;
///
/// #[derive(Entity, Serialize, Deserialize)]
/// #[entity(table = Shop, pk = "order#{id}", sk = "order")]
/// #[gsi(byCustomer(pk = "{customer}", sk = "{id}"))]
/// struct Order { id: String, customer: String, total: u64, notes: String }
///
/// /// What a customer's order list shows: the index holds these two attributes.
/// #[derive(View, Deserialize)]
/// #[view(entity = Order)]
/// struct OrderLine { id: String, total: u64 }
///
/// let lines = Order::query_by_customer("ada").view::<OrderLine>();
/// # drop(lines);
/// ```
pub trait View: FromItem + DeserializeOwned {
    /// The entity the view reads.
    type Entity: Entity;

    /// The attributes of the view's fields.
    const ATTRIBUTES: &'static [&'static str];
}

/// Decodes an item of entity `E` as the view `V`, checking its entity type: an item of another
/// type is skipped (`Ok(None)`) when `skip_other_types`, and an error otherwise.
pub fn view_from_item<E: Entity, V: DeserializeOwned>(
    item: Item,
    skip_other_types: bool,
) -> Result<Option<V>> {
    match check_type::<E>(&item) {
        Ok(()) => crate::item::decode_as::<E, V>(item, std::any::type_name::<V>()).map(Some),
        Err(_) if skip_other_types => Ok(None),
        Err(error) => Err(error),
    }
}

impl<E: Entity, F> Query<E, F> {
    /// Reads the view `V` of each item instead of the whole entity, with a `ProjectionExpression`
    /// naming its attributes.
    ///
    /// ```no_run
    /// # use dynashard::{Db, Entity, Table, View};
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Table)] #[table(name = "Music", pk = "pk", sk = "sk")] struct Music;
    /// # #[derive(Entity, Serialize, Deserialize)]
    /// # #[entity(table = Music, pk = "{artist}", sk = "song#{title}")]
    /// # struct Song { artist: String, title: String, seconds: u32, lyrics: String }
    /// #[derive(View, Deserialize)]
    /// #[view(entity = Song)]
    /// struct Length { title: String, seconds: u32 }
    ///
    /// # async fn example(db: Db) -> dynashard::Result<()> {
    /// let page = db.page(&Song::query("Solar Fields").view::<Length>(), None).await?;
    /// let seconds: u32 = page.items.iter().map(|song| song.seconds).sum();
    /// # Ok(()) }
    /// ```
    pub fn view<V: View<Entity = E>>(self) -> Query<V, F> {
        self.projected(V::ATTRIBUTES)
    }
}

impl<E: Entity, I, F> Query<Projected<E, I>, F> {
    /// Reads the view `V` of each item from an index that does not hold all of the entity's
    /// attributes but holds the view's; an index that lacks one of them does not compile.
    pub fn view<V>(self) -> Query<V, F>
    where
        V: View<Entity = E> + CoveredBy<I>,
        <V as CoveredBy<I>>::Verdict: Holds,
    {
        self.projected(V::ATTRIBUTES)
    }
}
