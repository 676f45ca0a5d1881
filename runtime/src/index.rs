//! Indexes named in code, so that a misspelt index is a compile error, not a runtime one.

use std::fmt;
use std::marker::PhantomData;

/// A global secondary index of table `T`, for the operations that name one (resharding,
/// range boundaries). The [`Table`](crate::Table) derive names every index it declares as an
/// associated constant, its name in upper snake case:
///
/// ```
/// use dynashard::{Index, Table};
///
/// #[derive(Table)]
/// #[table(name = "Music", pk = "pk", sk = "sk")]
/// #[gsi(ByTitle(pk = "title_pk", sk = "title_sk"))]
/// struct Music;
///
/// let by_title: Index<Music> = Music::BY_TITLE;
/// assert_eq!(by_title.name(), "ByTitle");
/// ```
pub struct Index<T: ?Sized> {
    name: &'static str,
    table: PhantomData<fn() -> T>,
}

impl<T: ?Sized> Index<T> {
    /// The index called `name` in table `T`. The derive calls this; a name `T` does not
    /// declare is refused by the operations that take it.
    #[doc(hidden)]
    pub const fn new(name: &'static str) -> Self {
        Index { name, table: PhantomData }
    }

    /// The index name, as declared on the table.
    pub const fn name(self) -> &'static str {
        self.name
    }
}

impl<T: ?Sized> Clone for Index<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: ?Sized> Copy for Index<T> {}

impl<T: ?Sized> PartialEq for Index<T> {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl<T: ?Sized> Eq for Index<T> {}

impl<T: ?Sized> std::hash::Hash for Index<T> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.name.hash(state);
    }
}

impl<T: ?Sized> fmt::Debug for Index<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Index").field(&self.name).finish()
    }
}

impl<T: ?Sized> fmt::Display for Index<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}
