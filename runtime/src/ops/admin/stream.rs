//! Turning on a table's declared stream on a table that exists without it.

use super::input::stream_specification;
use crate::db::Db;
use crate::error::{Error, Result};
use crate::table::Table;

impl Db {
    /// Turns on the stream table `T` declares (`#[table(stream = "...")]`) when the table has
    /// none, and waits until the table is active again; a table whose stream is on already is
    /// left as it is. [`Error::StreamRequired`] when `T` declares no stream.
    ///
    /// [`Db::create_table`] turns the stream on for a table it creates; this is for a table
    /// created before its declaration had one (a resharding's catch-up and every
    /// [`ChangeFeed`](crate::changes::ChangeFeed) read the stream).
    pub async fn enable_stream<T: Table>(&self) -> Result<()> {
        let name = self.table_name::<T>().to_owned();
        let Some(specification) = stream_specification(&T::DEFINITION)? else {
            return Err(Error::StreamRequired { table: name });
        };
        if crate::changes::stream_of(self, &name).await.is_ok() {
            return Ok(());
        }
        let sent =
            self.client().update_table().table_name(&name).stream_specification(specification).send().await;
        if let Err(error) = sent {
            // Another process may have turned it on meanwhile.
            if crate::changes::stream_of(self, &name).await.is_err() {
                return Err(Error::from_sdk("UpdateTable", error));
            }
        }
        self.wait_until_active(&name).await
    }
}
