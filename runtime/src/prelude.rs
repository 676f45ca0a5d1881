//! What most programs name, in one import:
//!
//! ```
//! use dynashard::prelude::*;
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Table)]
//! #[table(name = "Music", pk = "pk", sk = "sk")]
//! struct Music;
//!
//! #[derive(Entity, Serialize, Deserialize)]
//! #[entity(table = Music, pk = "{artist}", sk = "album#{title}")]
//! struct Album {
//!     artist: String,
//!     title: String,
//! }
//!
//! fn key() -> Result<Key<Album>, Error> {
//!     Album::key("Solar Fields", "Leaving Home")
//! }
//! # key().unwrap();
//! ```
//!
//! The derives come with their traits (`Table`, `Entity`, `Collection`, `View`), the [`Db`] that
//! runs operations, the [`Key`] of an entity, [`Condition`]s, [`Page`]s of a query and the
//! [`Error`]. It leaves out `Result`, which would shadow the standard one.

pub use crate::db::Db;
pub use crate::entity::Key;
pub use crate::error::Error;
pub use crate::expression::Condition;
pub use crate::query::Page;
pub use crate::{Collection, Entity, Nested, Table, View};
