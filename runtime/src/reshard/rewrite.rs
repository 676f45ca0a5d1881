//! The change a backfill, cleanup or catch-up makes to one item: a conditional PartiQL
//! `UPDATE ... WHERE` (sent 25 to a request by `send.rs`), so that every item keeps its own
//! condition and still costs one write unit, at a batch's request count.

use crate::error::{Item, Result};
use crate::metadata::{Checked, Phase};
use crate::table::TableDefinition;
use aws_sdk_dynamodb::types::{AttributeValue, BatchStatementRequest};

pub(super) const OPERATION: &str = "BatchExecuteStatement";

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
    pub(super) placed: Option<Item>,
    /// What writing the change costs in write units by DynamoDB's formula (the larger of the
    /// item before and after, in 1 KB steps), from the item as scanned: counted only where the
    /// endpoint does not report the capacity it consumed.
    pub(super) units: f64,
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
        let size = crate::item_size::item_size(item);
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
        let size = placed.as_ref().map_or(size, |placed| size.max(crate::item_size::item_size(placed)));
        let units = size.div_ceil(1_024).max(1) as f64;
        Some(Self { key, source, unchanged, target, placed, units })
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
    pub(super) fn statement(&self, table: &str) -> Result<BatchStatementRequest> {
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
            .map_err(|error| crate::error::Error::from_build(OPERATION, error))
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
            units: 1.0,
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
}
