//! Transactions: up to 100 writes, across entity types and tables, that all apply or none do;
//! and up to 100 reads served from one snapshot ([`TransactGet`]).
//!
//! Every action is built exactly as the single-item operation builds it: puts convert the entity
//! with its index keys, entity type and size check; `#[version]` entities are version-checked
//! and incremented; updates keep their must-exist guard and maintain index keys; conditions are
//! joined in. A transaction that DynamoDB cancels fails with [`Error::TransactionCanceled`],
//! which says, per action, why.
//!
//! ```no_run
//! # use dynashard::{Db, Entity, Field, Key};
//! # async fn example<S: Entity, A: Entity>(db: Db, song: S, album: Key<A>, songs: Field<A, u32>) -> dynashard::Result<()> {
//! db.transaction()
//!     .put(db.put(&song).create_only())
//!     .update(db.update(album).add(songs, 1))
//!     .await?;
//! # Ok(()) }
//! ```

mod get;
mod limits;
mod send;

pub use crate::error::{CancellationReason, ReasonCode};
pub use get::{Append, TransactGet, TransactReads};

use crate::db::Db;
use crate::entity::{Entity, Key, PrimaryKey};
use crate::error::{Error, Result};
use crate::expression::Condition;
use crate::ops::{Delete, Put, PutParts, PutRequest, Update};
use crate::reshard::{follow_up, FollowUp, ReshardGuard};
use crate::write::{condition_check, WriteRequest};
use futures::future::BoxFuture;
use send::{Pending, TransactAction};
use std::future::IntoFuture;

pub use limits::{MAX_TRANSACTION_ACTIONS, MAX_TRANSACTION_BYTES};

/// A transaction of writes; `.await` it to send them as one `TransactWriteItems` request.
///
/// Built with [`Db::transaction`]. Checked before anything is sent: more than
/// [`MAX_TRANSACTION_ACTIONS`] actions is [`Error::TransactionTooLarge`], more than
/// [`MAX_TRANSACTION_BYTES`] of items, keys and expressions is [`Error::TransactionTooBig`], two
/// actions on one item is [`Error::DuplicateTransactionKey`], and any action that its single-item
/// operation would reject (invalid key, item too large, incomplete index key...) fails the
/// transaction with that error. A transaction without actions sends nothing.
#[must_use = "a transaction does nothing until awaited"]
pub struct Transaction<'a> {
    db: &'a Db,
    actions: Vec<Pending>,
    after_commit: Vec<Box<dyn FnOnce() + Send + 'a>>,
    /// The reshardings the actions were built for, checked again before sending.
    reshards: Vec<ReshardGuard>,
    /// Updated items to place in the target layout of a resharding, after the commit.
    follow_ups: Vec<(FollowUp, PrimaryKey)>,
    error: Option<Error>,
    token: Option<String>,
}

impl std::fmt::Debug for Transaction<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Transaction")
            .field("actions", &self.actions.len())
            .field("error", &self.error)
            .field("token", &self.token)
            .finish_non_exhaustive()
    }
}

/// What [`Transaction::put`] accepts: an entity (a plain put, version-checked for `#[version]`
/// entities) or a [`Put`] configured with its options (`db.put(&e).create_only()`).
pub trait IntoPut<'e, E: Entity> {
    /// The put, built on `db` when it is not built yet.
    fn into_put(self, db: &'e Db) -> Put<'e, E>;
}

impl<'e, E: Entity> IntoPut<'e, E> for &'e E {
    fn into_put(self, db: &'e Db) -> Put<'e, E> {
        db.put(self)
    }
}

impl<'e, E: Entity> IntoPut<'e, E> for Put<'e, E> {
    fn into_put(self, _db: &'e Db) -> Put<'e, E> {
        self
    }
}

/// What [`Transaction::delete`] accepts: a key (an unconditional delete) or a [`Delete`]
/// configured with its options (`db.delete(key).expect_version(3)`).
pub trait IntoDelete<'e, E: Entity> {
    /// The delete, built on `db` when it is not built yet.
    fn into_delete(self, db: &'e Db) -> Delete<'e, E>;
}

impl<'e, E: Entity> IntoDelete<'e, E> for Key<E> {
    fn into_delete(self, db: &'e Db) -> Delete<'e, E> {
        db.delete(self)
    }
}

impl<'e, E: Entity> IntoDelete<'e, E> for Delete<'e, E> {
    fn into_delete(self, _db: &'e Db) -> Delete<'e, E> {
        self
    }
}

impl Db {
    /// Starts a transaction: writes that all apply, or none does.
    ///
    /// ```no_run
    /// # use dynashard::{Condition, Db, Entity, Key};
    /// # async fn example<S: Entity, A: Entity>(db: Db, song: S, album: Key<A>, open: Condition) -> dynashard::Result<()> {
    /// db.transaction().put(&song).condition_check(album, open).await?;
    /// # Ok(()) }
    /// ```
    pub fn transaction(&self) -> Transaction<'_> {
        Transaction {
            db: self,
            actions: Vec::new(),
            after_commit: Vec::new(),
            reshards: Vec::new(),
            follow_ups: Vec::new(),
            error: None,
            token: None,
        }
    }
}

impl<'a> Transaction<'a> {
    /// Adds a put: `&entity`, or a configured [`Put`] such as `db.put(&e).create_only()` or
    /// `db.put(&e).condition(c)`.
    pub fn put<'e, E: Entity>(self, put: impl IntoPut<'e, E>) -> Self
    where
        'a: 'e,
    {
        match put.into_put(self.db).request() {
            Ok(parts) => self.guard::<E>().push_put(parts.request),
            Err(error) => self.fail(error),
        }
    }

    /// Adds a put of `entity` and, once the transaction commits, advances its `#[version]` field
    /// to the stored version, as [`Db::save`] does, and sets its `#[updated_at]` field to the
    /// time written. Its `#[created_at]` field is left as it is: a transaction returns no values.
    pub fn save<E: Entity>(mut self, entity: &'a mut E) -> Self {
        self = self.guard::<E>();
        match self.db.put(&*entity).request() {
            Ok(PutParts { request, version, updated }) => {
                self.after_commit.push(Box::new(move || {
                    entity.set_version(version);
                    crate::ops::read_back_timestamps(entity, &updated);
                }));
                self.push_put(request)
            }
            Err(error) => self.fail(error),
        }
    }

    /// Adds an update built with [`Db::update`]: `db.update(key).add(field, 1)`. As on its own,
    /// it requires the item to exist and maintains version and index keys.
    pub fn update<E: Entity>(mut self, update: Update<'_, E>) -> Self {
        let request = update.request();
        if let (Ok(request), Some(follow_up)) = (&request, follow_up::<E>()) {
            self.follow_ups.push((follow_up, request.key.clone()));
        }
        self.guard::<E>().push(request)
    }

    /// Adds a delete: a key, or a configured [`Delete`] such as
    /// `db.delete(key).expect_version(3)`.
    pub fn delete<'e, E: Entity>(self, delete: impl IntoDelete<'e, E>) -> Self
    where
        'a: 'e,
    {
        let request = delete.into_delete(self.db).request();
        self.guard::<E>().push(request)
    }

    /// Adds a check that `condition` holds on the item stored under `key`, without writing it.
    pub fn condition_check<E: Entity>(self, key: Key<E>, condition: Condition) -> Self {
        let request = condition_check(self.db, &key, condition);
        self.push(request)
    }

    /// Makes the transaction idempotent: DynamoDB applies requests with the same token only once
    /// within ten minutes.
    pub fn client_request_token(mut self, token: impl Into<String>) -> Self {
        self.token = Some(token.into());
        self
    }

    /// The number of actions added so far.
    pub fn len(&self) -> usize {
        self.actions.len()
    }

    /// Whether no action was added.
    pub fn is_empty(&self) -> bool {
        self.actions.is_empty()
    }

    /// Remembers the reshardings of `E` as the actions are built now.
    fn guard<E: Entity>(mut self) -> Self {
        self.reshards.extend(ReshardGuard::of::<E>(self.db));
        self
    }

    fn push_put(self, request: PutRequest) -> Self {
        match request {
            PutRequest::Put(request) => self.push(Ok(request)),
            PutRequest::Update(request) => self.push(Ok(request)),
        }
    }

    fn push<A: TransactAction>(mut self, request: Result<WriteRequest<A>>) -> Self {
        match request.and_then(Pending::new) {
            Ok(pending) => self.actions.push(pending),
            Err(error) => return self.fail(error),
        }
        self
    }

    /// Keeps the first error; the transaction fails with it when awaited.
    fn fail(mut self, error: Error) -> Self {
        self.error.get_or_insert(error);
        self
    }

    async fn execute(self) -> Result<()> {
        if let Some(error) = self.error {
            return Err(error);
        }
        send::check(&self.actions)?;
        if self.actions.is_empty() {
            return Ok(());
        }
        for reshards in &self.reshards {
            reshards.check(self.db).await?;
        }
        send::send(self.db, self.actions, self.token).await?;
        self.after_commit.into_iter().for_each(|advance| advance());
        for (follow_up, key) in &self.follow_ups {
            follow_up(self.db, key).await?;
        }
        Ok(())
    }
}

impl<'a> IntoFuture for Transaction<'a> {
    type Output = Result<()>;
    type IntoFuture = BoxFuture<'a, Result<()>>;

    fn into_future(self) -> Self::IntoFuture {
        let traced = Pending::operation(&self.actions).traced();
        Box::pin(traced.run(self.execute()))
    }
}
