//! The change a backfill, cleanup or catch-up makes to one item: a conditional PartiQL
//! `UPDATE ... WHERE` (sent 25 to a request by `send.rs`), so that every item keeps its own
//! condition and still costs one write unit, at a batch's request count.

use crate::error::{Item, Result};
use crate::metadata::Checked;
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

/// One scanned item's change: its target place (or its source attributes removed, or a stale
/// target place removed), on the condition that what the place depends on is still as read.
#[derive(Clone, Debug)]
pub(crate) struct Rewrite {
    /// `(attribute, value)` of the primary key, partition key first.
    key: Vec<(String, AttributeValue)>,
    /// The attributes the change is conditioned on, with the values read (`None`: absent). To
    /// place: all a place depends on (a resharding's source keys and the attributes the shard is
    /// picked by; an added mapping's entity type and template fields), so that a place written
    /// on their condition is right for the item as it is, however old the read it was computed
    /// from. To clean: the source's and the target's too (an item a writer put since without its
    /// target place keeps its source place, from which the catch-up places it).
    conditions: Vec<(&'static str, Option<AttributeValue>)>,
    /// What it writes.
    edit: Edit,
    /// The whole item with its place in the target ([`Pass::Place`] only), for a batched
    /// backfill's put.
    pub(super) placed: Option<Item>,
    /// What writing the change costs in write units by DynamoDB's formula (the larger of the
    /// item before and after, in 1 KB steps), from the item as scanned: counted only where the
    /// endpoint does not report the capacity it consumed.
    pub(super) units: f64,
}

/// What a [`Rewrite`] writes.
#[derive(Clone, Debug)]
enum Edit {
    /// Sets these key attributes (the item's place in the target).
    Set([(&'static str, AttributeValue); 2]),
    /// Removes these key attributes (the source's after a cut-over; an added mapping's where
    /// the item no longer belongs in its sparse index).
    Remove([&'static str; 2]),
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
        let size = crate::item_size::item_size(item);
        let target = [checked.target.0, checked.target.1];
        let (edit, placed, conditions) = match (pass, checked.source()) {
            (Pass::Place, _) => {
                let placed = checked.placed(item)?;
                let conditions = checked.depends_on(item)?;
                let place = target.map(|name| placed.get(name).map(|value| (name, value.clone())));
                let edit = match place {
                    [Some(pk), Some(sk)] => Edit::Set([pk, sk]),
                    _ => Edit::Remove(target),
                };
                // A resharding's item without a place is in no source place: the catch-up judges
                // it from the whole entity (`place::stray`).
                if edit.done(item) || (matches!(edit, Edit::Remove(_)) && checked.source().is_some()) {
                    return None;
                }
                (edit, Some(placed), conditions)
            }
            (Pass::Clean, None) => return None,
            (Pass::Clean, Some((source_pk, source_sk))) => {
                // Only an item whose target place is the one its source place and routing give:
                // on the condition of all three, the source place goes only while the target
                // holds the item rightly.
                let placed = checked.placed(item)?;
                let held = target.map(|name| Some((name, Some(item.get(name)?.clone()))));
                let [Some(target_pk), Some(target_sk)] = held else { return None };
                if [&target_pk, &target_sk].iter().any(|(name, value)| placed.get(*name) != value.as_ref()) {
                    return None;
                }
                let mut conditions = checked.depends_on(item)?;
                let routing = conditions.split_off(2);
                conditions.extend([target_pk, target_sk]);
                conditions.extend(routing);
                (Edit::Remove([source_pk, source_sk]), None, conditions)
            }
        };
        let key = [Some(table.partition_key), table.sort_key]
            .into_iter()
            .flatten()
            .map(|name| Some((name.to_owned(), item.get(name)?.clone())))
            .collect::<Option<Vec<_>>>()?;
        let size = placed.as_ref().map_or(size, |placed| size.max(crate::item_size::item_size(placed)));
        let units = size.div_ceil(1_024).max(1) as f64;
        Some(Self { key, conditions, edit, placed, units })
    }

    /// The item's key attributes.
    pub(crate) fn key_item(&self) -> Item {
        self.key.iter().cloned().collect()
    }

    /// Whether the item, read as `current`, still needs this change: it holds the values the
    /// change is conditioned on, and not yet what it writes. (An item that changed since is
    /// left to the record of that change; one that has its place needs nothing.)
    pub(crate) fn needed_by(&self, current: &Item) -> bool {
        let unchanged = self.conditions.iter().all(|(name, value)| current.get(*name) == value.as_ref());
        unchanged && !self.edit.done(current)
    }

    /// The PartiQL statement and its parameters, in order:
    /// `UPDATE "T" SET "tpk"=? SET "tsk"=? WHERE "pk"=? AND "sk"=? AND "spk"=? AND "ssk"=? AND "by"=?`
    /// (or `REMOVE "spk" REMOVE "ssk"` for a cleanup, on the key, source and target; an absent
    /// attribute's condition is `"name" IS MISSING`). The key condition makes it an update of
    /// one existing item (a deleted item is not brought back); the other conditions leave an item
    /// a writer changed since the read to the record of that change.
    pub(super) fn statement(&self, table: &str) -> Result<BatchStatementRequest> {
        let mut text = format!("UPDATE {}", quoted(table));
        let mut parameters = Vec::with_capacity(6);
        match &self.edit {
            Edit::Set(target) => {
                for (name, value) in target {
                    text += &format!(" SET {}=?", quoted(name));
                    parameters.push(value.clone());
                }
            }
            Edit::Remove(names) => {
                for name in names {
                    text += &format!(" REMOVE {}", quoted(name));
                }
            }
        }
        let key = self.key.iter().map(|(name, value)| (name.as_str(), Some(value)));
        let conditions = key.chain(self.conditions.iter().map(|(name, value)| (*name, value.as_ref())));
        for (position, (name, value)) in conditions.enumerate() {
            text += if position == 0 { " WHERE " } else { " AND " };
            match value {
                Some(value) => {
                    text += &format!("{}=?", quoted(name));
                    parameters.push(value.clone());
                }
                None => text += &format!("{} IS MISSING", quoted(name)),
            }
        }
        BatchStatementRequest::builder()
            .statement(text)
            .set_parameters(Some(parameters))
            .build()
            .map_err(|error| crate::error::Error::from_build(OPERATION, error))
    }
}

impl Edit {
    /// Whether `item` holds what the edit writes already.
    fn done(&self, item: &Item) -> bool {
        match self {
            Edit::Set(target) => target.iter().all(|(name, value)| item.get(*name) == Some(value)),
            Edit::Remove(names) => names.iter().all(|name| !item.contains_key(*name)),
        }
    }
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
        let source = [("title_pk", Some(s("albums#3"))), ("title_sk", Some(s("x")))];
        let more = match target {
            true => vec![("title", Some(s("X")))],
            false => vec![("next_pk", Some(s("albums#19"))), ("next_sk", Some(s("x")))],
        };
        Rewrite {
            key: vec![("pk".into(), s("artist")), ("sk".into(), s("album#x"))],
            conditions: source.into_iter().chain(more).collect(),
            edit: match target {
                true => Edit::Set([("next_pk", s("albums#19")), ("next_sk", s("x"))]),
                false => Edit::Remove(["title_pk", "title_sk"]),
            },
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
    fn an_absent_attribute_is_conditioned_missing_and_takes_no_value() {
        let rewrite = Rewrite {
            key: vec![("pk".into(), s("user#1"))],
            conditions: vec![("_type", Some(s("User"))), ("email", None)],
            edit: Edit::Remove(["gsi2pk", "gsi2sk"]),
            placed: None,
            units: 1.0,
        };
        let statement = rewrite.statement("T").unwrap();
        assert_eq!(
            statement.statement(),
            r#"UPDATE "T" REMOVE "gsi2pk" REMOVE "gsi2sk" WHERE "pk"=? AND "_type"=? AND "email" IS MISSING"#
        );
        assert_eq!(statement.parameters(), &[s("user#1"), s("User")]);
        let item =
            |pairs: &[(&str, &str)]| -> Item { pairs.iter().map(|(n, v)| (n.to_string(), s(v))).collect() };
        assert!(rewrite.needed_by(&item(&[("_type", "User"), ("gsi2pk", "a"), ("gsi2sk", "b")])));
        assert!(
            !rewrite.needed_by(&item(&[("_type", "User"), ("email", "e"), ("gsi2pk", "a")])),
            "changed since"
        );
        assert!(!rewrite.needed_by(&item(&[("_type", "User")])), "removed already");
    }

    #[test]
    fn identifiers_are_quoted_whatever_they_hold() {
        assert_eq!(quoted(r#"we"ird"#), r#""we""ird""#);
        assert_eq!(quoted("a.b-c"), r#""a.b-c""#);
    }
}
