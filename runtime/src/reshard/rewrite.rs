//! The change a backfill or cleanup makes to one scanned item, and how a page of them is sent:
//! conditional updates, 25 to a `BatchExecuteStatement` request (PartiQL `UPDATE ... WHERE`), so
//! that every item keeps its own condition and still costs one write unit, at a batch's request
//! count.

use crate::batch::Failure;
use crate::db::Db;
use crate::error::{Error, Item, Result};
use crate::metadata::{Checked, Phase};
use crate::retry::Retry;
use crate::table::TableDefinition;
use aws_sdk_dynamodb::types::{
    AttributeValue, BatchStatementErrorCodeEnum, BatchStatementRequest, PutRequest, WriteRequest,
};
use futures::stream::{self, StreamExt, TryStreamExt};

const OPERATION: &str = "BatchExecuteStatement";

/// The most statements DynamoDB takes in one `BatchExecuteStatement` request (and writes in
/// one `BatchWriteItem` request).
const MAX_STATEMENTS: usize = 25;

/// What to do with each item of a scan.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Pass {
    /// Give it its place in the target layout.
    Place,
    /// Remove its source index attributes.
    Clean,
}

/// One scanned item's change: its target place (or its source attributes removed), on the
/// condition that its source place is still the one the scan read.
#[derive(Clone, Debug)]
pub(crate) struct Rewrite {
    /// `(attribute, value)` of the primary key, partition key first.
    key: Vec<(String, AttributeValue)>,
    /// The source index's key attributes and the values the scan read.
    source: [(&'static str, AttributeValue); 2],
    /// More attributes the change is conditioned on, with the values read. To place: those the
    /// shard is picked by (with the source's, all a place depends on, so that a place written on
    /// their condition is right for the item as it is, however old the read it was computed
    /// from). To clean: the target's (an item a writer put since without its target place keeps
    /// its source place, from which the catch-up places it).
    unchanged: Vec<(&'static str, AttributeValue)>,
    /// The target index's key attributes and the item's place there ([`Pass::Place`] only).
    target: Option<[(&'static str, AttributeValue); 2]>,
    /// The whole item with its place in the target ([`Pass::Place`] only), for a batched
    /// backfill's put.
    placed: Option<Item>,
}

impl Rewrite {
    /// Fails when the item's place in the target layout breaks a key size limit
    /// ([`Error::InvalidIndexKey`](crate::Error::InvalidIndexKey)): a new layout's suffix or
    /// range sort key can make a key longer than its source.
    pub(crate) fn check(&self, table: &TableDefinition) -> crate::error::Result<()> {
        match &self.placed {
            Some(placed) => crate::index_key_limits::check_item(table, placed),
            None => Ok(()),
        }
    }

    /// The change `pass` makes to `item`; `None` when there is nothing to do (the item is placed
    /// already, by a dual write or an earlier run) or it is not in the source index.
    pub(crate) fn of(checked: &Checked, item: &Item, pass: Pass, table: &TableDefinition) -> Option<Self> {
        let (source_pk, source_sk) = checked.source;
        let source = [(source_pk, item.get(source_pk)?.clone()), (source_sk, item.get(source_sk)?.clone())];
        let (target, placed, unchanged) = match pass {
            Pass::Place => {
                let routing = routing(checked, item)?;
                let mut placed = item.clone();
                checked.mirror(&mut placed, Phase::DualWrites);
                let (target_pk, target_sk) = checked.target;
                let pk = placed.get(target_pk)?.clone();
                let sk = placed.get(target_sk)?.clone();
                if item.get(target_pk) == Some(&pk) && item.get(target_sk) == Some(&sk) {
                    return None;
                }
                (Some([(target_pk, pk), (target_sk, sk)]), Some(placed), routing)
            }
            Pass::Clean => {
                // Only an item whose target place is the one its source place and routing give:
                // on the condition of all three, the source place goes only while the target
                // holds the item rightly.
                let (target_pk, target_sk) = checked.target;
                let mut placed = item.clone();
                checked.mirror(&mut placed, Phase::DualWrites);
                let target =
                    [(target_pk, item.get(target_pk)?.clone()), (target_sk, item.get(target_sk)?.clone())];
                if target.iter().any(|(name, value)| placed.get(*name) != Some(value)) {
                    return None;
                }
                let routing = routing(checked, item)?;
                (None, None, target.into_iter().chain(routing).collect())
            }
        };
        let key = [Some(table.partition_key), table.sort_key]
            .into_iter()
            .flatten()
            .map(|name| Some((name.to_owned(), item.get(name)?.clone())))
            .collect::<Option<Vec<_>>>()?;
        Some(Self { key, source, unchanged, target, placed })
    }

    /// The item's key attributes.
    pub(crate) fn key_item(&self) -> Item {
        self.key.iter().cloned().collect()
    }

    /// Whether the item, read as `current`, still needs this change: it holds the values the
    /// change is conditioned on, and not yet the place it writes. (An item that changed since is
    /// left to the record of that change; one that has its place needs nothing.)
    pub(crate) fn needed_by(&self, current: &Item) -> bool {
        let holds = |(name, value): &(&'static str, AttributeValue)| current.get(*name) == Some(value);
        let unchanged = self.source.iter().chain(&self.unchanged).all(holds);
        let placed = self.target.as_ref().is_some_and(|target| target.iter().all(holds));
        unchanged && !placed
    }

    /// The PartiQL statement and its parameters, in order:
    /// `UPDATE "T" SET "tpk"=? SET "tsk"=? WHERE "pk"=? AND "sk"=? AND "spk"=? AND "ssk"=? AND "by"=?`
    /// (or `REMOVE "spk" REMOVE "ssk"` for a cleanup, on the key, source and target). The key
    /// condition makes it an update of one existing item (a deleted item is not brought back);
    /// the source and routing conditions leave an item a writer changed since the read to the
    /// record of that change.
    fn statement(&self, table: &str) -> Result<BatchStatementRequest> {
        let mut text = format!("UPDATE {}", quoted(table));
        let mut parameters = Vec::with_capacity(6);
        match &self.target {
            Some(target) => {
                for (name, value) in target {
                    text += &format!(" SET {}=?", quoted(name));
                    parameters.push(value.clone());
                }
            }
            None => {
                for (name, _) in &self.source {
                    text += &format!(" REMOVE {}", quoted(name));
                }
            }
        }
        let conditions = self.key.iter().map(|(name, value)| (name.as_str(), value));
        let conditions = conditions.chain(self.source.iter().map(|(name, value)| (*name, value)));
        let conditions = conditions.chain(self.unchanged.iter().map(|(name, value)| (*name, value)));
        for (position, (name, value)) in conditions.enumerate() {
            text += if position == 0 { " WHERE " } else { " AND " };
            text += &format!("{}=?", quoted(name));
            parameters.push(value.clone());
        }
        BatchStatementRequest::builder()
            .statement(text)
            .set_parameters(Some(parameters))
            .build()
            .map_err(|error| crate::batch::build_error(OPERATION, error))
    }
}

/// The attributes `checked`'s shard is picked by, with `item`'s values; `None` when one is missing.
fn routing(checked: &Checked, item: &Item) -> Option<Vec<(&'static str, AttributeValue)>> {
    checked.mapping.by.iter().map(|name| Some((*name, item.get(*name)?.clone()))).collect()
}

/// A PartiQL quoted identifier: in double quotes, a double quote inside doubled.
fn quoted(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// What became of one statement of a batch.
#[derive(Debug, PartialEq, Eq)]
enum Outcome {
    Written,
    /// Its condition did not hold: a writer changed the item since the scan.
    Skipped,
    /// Throttled, or a transient failure: send it again.
    Retry,
    /// A failure that sending again cannot fix.
    Failed,
}

fn outcome(code: Option<&BatchStatementErrorCodeEnum>) -> Outcome {
    use BatchStatementErrorCodeEnum as Code;
    match code {
        None => Outcome::Written,
        Some(Code::ConditionalCheckFailed) => Outcome::Skipped,
        Some(
            Code::ProvisionedThroughputExceeded
            | Code::RequestLimitExceeded
            | Code::ThrottlingError
            | Code::InternalServerError
            | Code::TransactionConflict,
        ) => Outcome::Retry,
        Some(_) => Outcome::Failed,
    }
}

impl Db {
    /// Puts the placed items of `rewrites` whole, 25 to a `BatchWriteItem` request, `in_flight`
    /// requests at a time: only while existing items are frozen, since a put does not check
    /// that the item is still the one the scan read. Returns how many items were written.
    pub(super) async fn put_rewrites(
        &self,
        table: &str,
        rewrites: Vec<Rewrite>,
        in_flight: usize,
    ) -> Result<u64> {
        let mut requests = Vec::with_capacity(rewrites.len());
        for item in rewrites.into_iter().filter_map(|rewrite| rewrite.placed) {
            let put = PutRequest::builder().set_item(Some(item)).build();
            let put = put.map_err(|error| crate::batch::build_error("BatchWriteItem", error))?;
            requests.push(WriteRequest::builder().put_request(put).build());
        }
        let written = requests.len() as u64;
        let chunks = requests.chunks(MAX_STATEMENTS).map(<[WriteRequest]>::to_vec).collect();
        let sender = crate::batch::Sender { db: self, retry: self.retry_policy(), before_retry: None };
        crate::batch::send_requests(&sender, table, chunks, in_flight).await?;
        Ok(written)
    }

    /// Sends `rewrites` in batches of 25, `in_flight` batches at a time, retrying throttled
    /// statements with the `Db`'s retry policy. Returns how many items were written, and the
    /// rewrites whose condition did not hold (their item changed since it was read).
    pub(super) async fn send_rewrites(
        &self,
        table: &str,
        rewrites: Vec<Rewrite>,
        in_flight: usize,
    ) -> Result<(u64, Vec<Rewrite>)> {
        let batches: Vec<Vec<Rewrite>> = rewrites.chunks(MAX_STATEMENTS).map(<[Rewrite]>::to_vec).collect();
        let sent: Vec<(u64, Vec<Rewrite>)> = stream::iter(batches)
            .map(|batch| self.send_rewrite_batch(table, batch))
            .buffer_unordered(in_flight.max(1))
            .try_collect()
            .await?;
        Ok(sent.into_iter().fold((0, Vec::new()), |(written, mut skipped), (more, also)| {
            skipped.extend(also);
            (written + more, skipped)
        }))
    }

    async fn send_rewrite_batch(
        &self,
        table: &str,
        mut pending: Vec<Rewrite>,
    ) -> Result<(u64, Vec<Rewrite>)> {
        let mut retry = Retry::new(self.retry_policy());
        let (mut written, mut skipped) = (0, Vec::new());
        loop {
            let statements = pending.iter().map(|rewrite| rewrite.statement(table)).collect::<Result<_>>()?;
            let request = self.client().batch_execute_statement().set_statements(Some(statements));
            let responses = match request.send().await {
                Ok(response) => response.responses.unwrap_or_default(),
                Err(error) => {
                    let failure = Failure::from_sdk(OPERATION, error);
                    // Every statement is conditioned on the item as read, so a request whose
                    // outcome is unknown (timed out) is sent again safely: what it did, it does
                    // again, or its condition fails.
                    let again = failure.retryable || failure.error.is_timeout();
                    match retry.after_failure(false).filter(|_| again) {
                        Some(delay) => tokio::time::sleep(delay).await,
                        None => return Err(failure.error),
                    }
                    continue;
                }
            };
            if responses.len() != pending.len() {
                let reason = format!("{} answers to {} statements", responses.len(), pending.len());
                return Err(statement_error(None, reason));
            }
            let (sent, mut again, mut last_error) = (pending.len(), Vec::new(), None);
            for (rewrite, answer) in pending.into_iter().zip(responses) {
                let code = answer.error.as_ref().and_then(|error| error.code.clone());
                match outcome(code.as_ref()) {
                    Outcome::Written => written += 1,
                    Outcome::Skipped => skipped.push(rewrite),
                    outcome => {
                        let message = answer.error.and_then(|error| error.message).unwrap_or_default();
                        let error = statement_error(code.as_ref(), message);
                        if outcome == Outcome::Failed {
                            return Err(error);
                        }
                        last_error = Some(error);
                        again.push(rewrite);
                    }
                }
            }
            let Some(error) = last_error.filter(|_| !again.is_empty()) else { return Ok((written, skipped)) };
            // A batch that placed some items started a new run of attempts.
            match retry.after_failure(again.len() < sent) {
                Some(delay) => tokio::time::sleep(delay).await,
                None => return Err(error),
            }
            pending = again;
        }
    }
}

/// A statement's failure as a service error, with the code of the equivalent `UpdateItem`
/// error, so that [`Error::is_throttled`] and [`Error::is_conditional_failed`] read it the same.
fn statement_error(code: Option<&BatchStatementErrorCodeEnum>, message: String) -> Error {
    use BatchStatementErrorCodeEnum as Code;
    let code = code.map(|code| match code {
        Code::ProvisionedThroughputExceeded => "ProvisionedThroughputExceededException".to_owned(),
        Code::ThrottlingError => "ThrottlingException".to_owned(),
        Code::ConditionalCheckFailed => "ConditionalCheckFailedException".to_owned(),
        other => other.as_str().to_owned(),
    });
    match code {
        Some(code) if code == "ProvisionedThroughputExceededException" || code == "ThrottlingException" => {
            Error::Throttled {
                operation: OPERATION,
                code,
                source: message.clone().into(),
                message,
                reasons: Vec::new(),
            }
        }
        code => Error::Service { operation: OPERATION, code, source: message.clone().into(), message },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(text: &str) -> AttributeValue {
        AttributeValue::S(text.to_owned())
    }

    fn rewrite(target: bool) -> Rewrite {
        Rewrite {
            key: vec![("pk".into(), s("artist")), ("sk".into(), s("album#x"))],
            source: [("title_pk", s("albums#3")), ("title_sk", s("x"))],
            unchanged: match target {
                true => vec![("title", s("X"))],
                false => vec![("next_pk", s("albums#19")), ("next_sk", s("x"))],
            },
            target: target.then(|| [("next_pk", s("albums#19")), ("next_sk", s("x"))]),
            placed: None,
        }
    }

    #[test]
    fn a_placement_sets_the_target_on_the_condition_of_key_and_source() {
        let statement = rewrite(true).statement("Music").unwrap();
        assert_eq!(
            statement.statement(),
            r#"UPDATE "Music" SET "next_pk"=? SET "next_sk"=? WHERE "pk"=? AND "sk"=? AND "title_pk"=? AND "title_sk"=? AND "title"=?"#
        );
        let expected = ["albums#19", "x", "artist", "album#x", "albums#3", "x", "X"].map(s);
        assert_eq!(statement.parameters(), &expected);
    }

    #[test]
    fn a_cleanup_removes_the_source_while_the_target_place_stands() {
        let statement = rewrite(false).statement("Music").unwrap();
        assert_eq!(
            statement.statement(),
            r#"UPDATE "Music" REMOVE "title_pk" REMOVE "title_sk" WHERE "pk"=? AND "sk"=? AND "title_pk"=? AND "title_sk"=? AND "next_pk"=? AND "next_sk"=?"#
        );
        assert_eq!(statement.parameters().len(), 6, "only the conditions take values");
    }

    #[test]
    fn a_place_is_needed_only_by_an_unchanged_item_without_it() {
        let place = rewrite(true);
        let item =
            |pairs: &[(&str, &str)]| -> Item { pairs.iter().map(|(n, v)| (n.to_string(), s(v))).collect() };
        let unplaced = item(&[("title_pk", "albums#3"), ("title_sk", "x"), ("title", "X")]);
        assert!(place.needed_by(&unplaced));
        let placed = item(&[
            ("title_pk", "albums#3"),
            ("title_sk", "x"),
            ("title", "X"),
            ("next_pk", "albums#19"),
            ("next_sk", "x"),
        ]);
        assert!(!place.needed_by(&placed), "placed already");
        let misplaced = item(&[
            ("title_pk", "albums#3"),
            ("title_sk", "x"),
            ("title", "X"),
            ("next_pk", "albums#2"),
            ("next_sk", "x"),
        ]);
        assert!(place.needed_by(&misplaced), "a wrong place is replaced");
        let moved = item(&[("title_pk", "albums#3"), ("title_sk", "x"), ("title", "Y")]);
        assert!(!place.needed_by(&moved), "changed since: its own record places it");
        assert!(!place.needed_by(&Item::new()), "gone");
    }

    #[test]
    fn identifiers_are_quoted_whatever_they_hold() {
        assert_eq!(quoted(r#"we"ird"#), r#""we""ird""#);
        assert_eq!(quoted("a.b-c"), r#""a.b-c""#);
    }

    #[test]
    fn statement_failures_are_sorted_into_skips_retries_and_errors() {
        use BatchStatementErrorCodeEnum as Code;
        assert_eq!(outcome(None), Outcome::Written);
        assert_eq!(outcome(Some(&Code::ConditionalCheckFailed)), Outcome::Skipped);
        for code in [Code::ProvisionedThroughputExceeded, Code::ThrottlingError, Code::RequestLimitExceeded] {
            assert_eq!(outcome(Some(&code)), Outcome::Retry);
            assert!(statement_error(Some(&code), String::new()).is_throttled(), "{code:?}");
        }
        assert_eq!(outcome(Some(&Code::InternalServerError)), Outcome::Retry);
        assert_eq!(outcome(Some(&Code::ValidationError)), Outcome::Failed);
        assert_eq!(outcome(Some(&Code::DuplicateItem)), Outcome::Failed);
        let skipped = statement_error(Some(&Code::ConditionalCheckFailed), "no".into());
        assert!(skipped.is_conditional_failed());
    }
}
