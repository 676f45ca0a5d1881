//! # dynashard
//!
//! DynamoDB single-table design for Rust, with write sharding declared on the struct.
//!
//! DynamoDB serves one partition at about 1,000 write and 3,000 read capacity units per second,
//! so a single hot partition key caps a whole table. dynashard composes safe single-table keys
//! from templates, maps entities to items, and shards hot keys as the struct declares (hash,
//! random, range, time-bucket and dynamic shards), reading the shards back in order.
//!
//! The `guide` module walks through all of it, one chapter per module, from `guide::quickstart` to
//! `guide::errors`.
//!
//! # Where to find things
//!
//! `use dynashard::prelude::*;` brings what most programs name (the derives with their traits,
//! [`Db`], [`Key`], [`Condition`], [`Page`], [`Error`]); everything else lives in the module of
//! its concern:
//!
//! | you want | look at |
//! |---|---|
//! | declare a table, an entity, a collection, a view | the derives [`Table`], [`Entity`], [`Collection`], [`View`] |
//! | run operations | [`Db`]: `put`, `get`, `update`, `delete`, `stream`, `batch_*`, `transaction`, `transact_get`; their builders in [`ops`] and [`transaction`] |
//! | declare a table by hand, or read its definition | [`table`] |
//! | conditions, raw expressions, attribute paths | [`Condition`], [`expression`] |
//! | build clients with timeouts | [`client_from_env`], [`client_for_endpoint`], [`client`] |
//! | read pages, cursors, streams | [`Query`], [`Page`], [`QueryStream`], [`query`] |
//! | shard an index, route a key, cut boundaries | `#[shard(...)]`, [`shard`], [`range_shards`] |
//! | change a layout while writers run | [`reshard`], with the records in [`metadata`] |
//! | read a table's stream as typed changes | [`changes`] |
//! | what requests consumed, hot keys, heat maps | [`consumption`], [`heat`], [`telemetry`] |
//! | what went wrong | [`Error`] and its predicates |
//! | test against DynamoDB Local, partition limits, faults | the `dynashard-local` crate (a dev-dependency) |
//!
//! ```no_run
//! use dynashard::{Db, Entity, Table};
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Table)]
//! #[table(name = "Music", pk = "pk", sk = "sk")]
//! struct Music;
//!
//! #[derive(Entity, Serialize, Deserialize, Debug)]
//! #[entity(table = Music, pk = "{artist}", sk = "album#{title}")]
//! struct Album {
//!     artist: String,
//!     title: String,
//!     year: u16,
//! }
//!
//! # async fn example(client: aws_sdk_dynamodb::Client) -> dynashard::Result<()> {
//! let db = Db::new(client);
//! db.create_table::<Music>().await?;
//! db.put(&Album { artist: "Solar Fields".into(), title: "Leaving Home".into(), year: 2007 }).await?;
//! let album = db.get(Album::key("Solar Fields", "Leaving Home")?).await?;
//! # Ok(()) }
//! ```

#![warn(missing_docs)]

mod batch;
mod boundaries;
pub mod changes;
pub mod client;
mod collection;
pub mod consumption;
mod count;
mod db;
mod dynamic;
mod entity;
mod error;
pub mod expression;
mod field_value;
mod fingerprint;
pub mod guide;
pub mod heat;
mod index;
pub(crate) mod index_key_limits;
mod index_keys;
pub mod item;
mod item_size;
pub mod key;
mod key_fields;
mod key_record;
pub mod metadata;
mod numbers;
pub mod ops;
pub mod prelude;
mod primary_key;
mod projection;
pub mod query;
pub mod reshard;
mod retry;
mod scan;
pub mod sets;
pub mod shard;
mod stream;
pub mod table;
pub mod telemetry;
pub mod throttling;
mod timestamp;
pub mod transaction;
mod ttl;
mod view;
mod write;

pub use batch::{RetryPolicy, Unprocessed};
pub use boundaries::{range_shards, use_boundaries};
pub use client::{client_for_endpoint, client_from_env, Timeouts};
pub use collection::Collection;
pub use consumption::{HotKeyTracking, HotKeys};
pub use db::Db;
/// Declares a DynamoDB table: `#[derive(Table)]` on a unit struct.
///
/// `#[table(...)]`:
///
/// | key | meaning | default |
/// |---|---|---|
/// | `name = "..."` | table name (3 to 255 of `a-z A-Z 0-9 _ - .`) | the struct's name |
/// | `pk = "..."` | partition key attribute (a string) | required |
/// | `sk = "..."` | sort key attribute (a string) | none |
/// | `type_attribute = "..."` | attribute holding each item's entity type | `_type` |
/// | `ttl = "..."` | the time-to-live attribute, turned on by `create_table`; an entity's `#[ttl]` field is stored in it | none |
/// | `stream = "new_and_old_images"` | the table's stream (`new_image`, `old_image`, `keys_only`) | none |
/// | `deletion_protection` | the table refuses to be deleted | off |
/// | `point_in_time_recovery` | continuous backups, turned on by `create_table` | off |
/// | `warm_reads = N`, `warm_writes = N` | warm throughput: units per second served at once, ahead of a peak | DynamoDB's own |
/// | `tags = ["team=music"]` | tags | none |
/// | `read_capacity = N`, `write_capacity = N` | provisioned billing (both or neither) | on-demand |
/// | `shard_metadata = "..."` | the table every `Db` keeps dynamic shard counts and resharding phases in | none |
/// | `crate = "..."` | the path of this crate, where it is not `::dynashard` (a re-export) | `::dynashard` |
///
/// `#[gsi(ByTitle(pk = "...", sk = "..."))]` declares a global secondary index `ByTitle` keyed on
/// string attributes (`name = "by-title"` inside gives a DynamoDB name that is not a Rust
/// identifier); `pk = ["a", "b:N"]` (up to four each, `:N` number, `:B` binary) keys it on
/// the items' own attributes. `projection = "keys_only"` or `projection = ["title", "year"]`
/// copies less into the index than every attribute (the default, `"all"`), and `warm_reads`,
/// `warm_writes` its warm throughput. `#[lsi(ByDate(sk = "..."))]` declares a local
/// secondary index (the table's partition key, a sort key of its own; created with the table),
/// with the same `projection`. Each index is also an associated constant in upper snake case
/// ([`Index`]), for the operations that name an index.
///
/// ```
/// use dynashard::{Index, Table};
///
/// #[derive(Table)]
/// #[table(name = "Music", pk = "pk", sk = "sk", shard_metadata = "MusicShards")]
/// #[gsi(ByTitle(pk = "title_pk", sk = "title_sk"))]
/// #[gsi(ByStatus(pk = ["carrier"], sk = ["status", "weight:N"]))]
/// struct Music;
///
/// assert_eq!(Music::DEFINITION.indexes.len(), 2);
/// let by_title: Index<Music> = Music::BY_TITLE;
/// assert_eq!(by_title.name(), "ByTitle");
/// ```
pub use dynashard_macros::Table;

/// Binds a struct to a table as one entity type: `#[derive(Entity, Serialize, Deserialize)]`.
///
/// `#[entity(table = Table, pk = "...", sk = "...", name = "...")]`: `pk` and `sk` are key
/// templates of literal text and `{field}` placeholders (`sk` exactly when the table has a sort
/// key); `name` is the entity-type attribute's value (default: the struct's name); `crate =
/// "path::to::dynashard"` names this crate where it is reached through a re-export.
///
/// On fields: `#[version]` on one `u64` field enables optimistic locking; `#[ttl]` on one field
/// (an integer, or a time stored as epoch seconds by a serde module) stores it in the table's
/// time-to-live attribute; `#[created_at]` and `#[updated_at]` (a [`Timestamp`] such as
/// `time::OffsetDateTime`) get the time of the write, the first kept by puts and upserts of an
/// existing item (see [`Put`](ops::Put)). serde's `rename`,
/// `rename_all`, `skip` and `flatten` are honoured.
///
/// Index mappings, one per index of the table the entity is stored in:
///
/// | attribute | meaning |
/// |---|---|
/// | `#[gsi(Index(pk = "...", sk = "..."))]` | key templates of the index |
/// | `#[gsi(Index(pk = [a], sk = [b, c]))]` | a multi-attribute index keyed on these fields |
/// | `#[sparse_gsi(Index(pk = "...", sk = "..."))]` | only items whose template fields are all `Some` |
/// | `when = path::to::predicate` | (sparse) only items for which `fn(&Self) -> bool` holds |
/// | `method = "query_..."` | the name of the generated query method (default `query_<index>`) |
///
/// Sharding one mapping (or, without an index name, the base table):
///
/// | attribute | shards |
/// |---|---|
/// | `#[shard(Index(hash = N, by = field))]` | by a hash of `by` (or `by = (a, b)`) |
/// | `#[shard(Index(random = N))]` | at random |
/// | `#[shard(Index(range = "file.json", by = field))]` | ordered ranges cut at the file's boundaries; `normalize = "nfkd-lower" \| "lower" \| "none"`, `overflow = K` |
/// | `#[shard(Index(hash = N, by = field, bucket = "minute" \| "hour" \| "day", at = field))]` | time buckets, each hashed; with `, directory`, windows read only the buckets that hold items |
/// | `#[shard(Index(dynamic, max = N))]` | a count that grows under throttling, up to `N` |
///
/// Generated: `Song::key(...)`, `Song::fields()`, `Song::query(...)`, one query method per
/// index mapping, `Song::scan()`, and the [`Entity`](trait@Entity) impl, whose `SHARDS` lists each
/// `#[shard(...)]` as a [`shard::ShardSpec`]. Every mistake is a compile error at its span.
///
/// ```
/// use dynashard::{Entity, Table};
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Table)]
/// #[table(name = "Music", pk = "pk", sk = "sk")]
/// #[gsi(ByTitle(pk = "title_pk", sk = "title_sk"))]
/// struct Music;
///
/// #[derive(Entity, Serialize, Deserialize)]
/// #[entity(table = Music, pk = "{artist}", sk = "album#{title}")]
/// #[gsi(ByTitle(method = "query_by_title", pk = "albums", sk = "{title}"))]
/// #[shard(ByTitle(hash = 8, by = title))]
/// struct Album {
///     artist: String,
///     title: String,
///     year: u16,
/// }
///
/// let key = Album::key("Solar Fields", "Leaving Home")?;
/// assert_eq!(key.pk(), "Solar Fields");
/// let titles = Album::query_by_title().begins_with("Lea");
/// assert_eq!(titles.plan_shards().map(|shards| shards.partitions.len()), Some(8));
/// # Ok::<(), dynashard::Error>(())
/// ```
pub use dynashard_macros::Entity;

/// Reads several entity types that share a partition key as one enum: `#[derive(Collection)]`
/// on an enum of one-field variants, each an entity of the same table. Generated: the
/// [`Collection`](trait@Collection) impl (`Discography::query(&key)`) and `Discography::scan()`.
/// `#[collection(crate = "...")]` names this crate where it is reached through a re-export.
///
/// ```
/// use dynashard::{Collection, Entity, Table};
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Table)]
/// #[table(name = "Music", pk = "pk", sk = "sk")]
/// struct Music;
///
/// #[derive(Entity, Serialize, Deserialize)]
/// #[entity(table = Music, pk = "{name}", sk = "artist")]
/// struct Artist { name: String }
///
/// #[derive(Entity, Serialize, Deserialize)]
/// #[entity(table = Music, pk = "{artist}", sk = "album#{title}")]
/// struct Album { artist: String, title: String }
///
/// #[derive(Collection)]
/// enum Discography {
///     Artist(Artist),
///     Album(Album),
/// }
/// ```
pub use dynashard_macros::Collection;
/// Names the fields of a struct stored inside an entity's attribute, for conditions:
/// `#[derive(Nested)]` on a struct with named fields generates `<Struct>Fields<E>` and the
/// [`Nested`](trait@expression::Nested) impl, so that `.fields()` on a field of its type (or an `Option` of
/// it, or a nested value) gives a typed handle on each of its fields, at any depth. Serde renames
/// are followed; `#[nested(crate = "...")]` names this crate where it is reached through a
/// re-export.
///
/// ```
/// use dynashard::{Entity, Nested, Table};
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Table)]
/// #[table(name = "Shop", pk = "pk", sk = "sk")]
/// struct Shop;
///
/// #[derive(Nested, Serialize, Deserialize)]
/// #[serde(rename_all = "camelCase")]
/// struct Address { city: String, post_code: String }
///
/// #[derive(Entity, Serialize, Deserialize)]
/// #[entity(table = Shop, pk = "customer#{id}", sk = "!")]
/// struct Customer { id: String, address: Address }
///
/// let oslo = Customer::fields().address.fields().post_code.begins_with("03");
/// # drop(oslo);
/// ```
pub use dynashard_macros::Nested;
/// Reads some of an entity's fields: `#[derive(View, Deserialize)]` on a struct whose fields are
/// fields of the entity (same names, same types, same serde renames), with
/// `#[view(entity = Order)]`. Generated: the [`View`](trait@View) and `FromItem` impls, read with
/// [`Query::view`]; whether an index holds the view's attributes is checked at compile time.
///
/// ```
/// use dynashard::{Entity, Table, View};
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Table)]
/// #[table(name = "Music", pk = "pk", sk = "sk")]
/// struct Music;
///
/// #[derive(Entity, Serialize, Deserialize)]
/// #[entity(table = Music, pk = "{artist}", sk = "song#{title}")]
/// struct Song { artist: String, title: String, seconds: u32, lyrics: String }
///
/// #[derive(View, Deserialize)]
/// #[view(entity = Song)]
/// struct Length { title: String, seconds: u32 }
///
/// let lengths = Song::query("Solar Fields").view::<Length>();
/// # drop(lengths);
/// ```
pub use dynashard_macros::View;
pub use entity::{Entity, Field, Key, PrimaryKey};
pub use error::{Error, Item, KeyError, Result, Undecodable};
pub use expression::{Condition, RawExpression};
pub use field_value::FieldValue;
pub use index::Index;
pub use key::KeyPart;
pub use query::{Page, Query, QueryStream};
pub use scan::{Scan, ScanStream};
pub use table::Table;
pub use throttling::ThrottlingReason;
pub use timestamp::Timestamp;
pub use view::View;

/// A DynamoDB attribute value, for raw expressions ([`RawExpression::value`]) and raw items
/// ([`Item`]): the AWS SDK's own type, re-exported so that no direct dependency on
/// `aws-sdk-dynamodb` is needed.
///
/// ```
/// use dynashard::{AttributeValue, Condition, RawExpression};
/// let longer = Condition::raw(
///     RawExpression::new("#s > :v").name("#s", "seconds").value(":v", AttributeValue::N("300".into())),
/// );
/// # drop(longer);
/// ```
pub use aws_sdk_dynamodb::types::AttributeValue;
pub use transaction::Transaction;

/// The one door of generated code into this crate; not a public API. Its name carries the
/// version of the contract between the derives and this crate, so a derive from another release
/// fails to compile at this path instead of misusing what it finds.
#[doc(hidden)]
pub mod __private_v1;
