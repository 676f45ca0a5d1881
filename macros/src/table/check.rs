//! The checks of a table declaration against itself: key attributes distinct, the shard
//! metadata table another table, index names and their constants distinct.

use super::ast::Table;
use crate::errors::Errors;

/// Checks `table`, recording every problem in `errors`.
pub fn check(table: &Table, errors: &mut Errors) {
    check_attributes(table, errors);
    if let Some(metadata) =
        table.shard_metadata.as_ref().filter(|metadata| metadata.value == table.name.value)
    {
        errors.push(metadata.span, "the shard metadata table must be another table than this one");
    }
    check_indexes(table, errors);
    check_local_indexes(table, errors);
}

/// DynamoDB's limit of local secondary indexes on a table.
const MAX_LOCAL_INDEXES: usize = 5;

/// Local indexes need a table with a sort key, at most five of them, each with a sort key other
/// than the table's.
fn check_local_indexes(table: &Table, errors: &mut Errors) {
    let local: Vec<_> = table.indexes.iter().filter(|index| index.gsi.local).collect();
    for (position, index) in local.iter().enumerate() {
        let attr = &index.gsi.attr;
        if table.sk.is_none() {
            errors.push_spanned(attr, "a local index needs a table with a sort key (`sk = \"...\"`)");
        }
        if position == MAX_LOCAL_INDEXES {
            errors.push_spanned(attr, format!("a table has at most {MAX_LOCAL_INDEXES} local indexes"));
        }
        let own = index.gsi.sk.first().map(|key| &key.name);
        if own.is_some_and(|own| Some(own) == table.sk.as_ref().map(|sk| &sk.value) || *own == table.pk.value)
        {
            errors.push_spanned(
                attr,
                "a local index's sort key must be another attribute than the table's keys",
            );
        }
    }
}

/// The key attributes and the entity-type attribute are three different attributes, and the
/// time-to-live attribute none of them.
fn check_attributes(table: &Table, errors: &mut Errors) {
    if let Some(ttl) = &table.ttl {
        let taken =
            [Some(&table.pk.value), table.sk.as_ref().map(|sk| &sk.value), Some(&table.type_attribute)];
        if taken.into_iter().flatten().any(|name| *name == ttl.value) {
            errors.push(ttl.span, "`ttl` must differ from the key attributes and the entity-type attribute");
        }
    }
    let (pk, sk) = (&table.pk, table.sk.as_ref());
    if let Some(sk) = sk.filter(|sk| sk.value == pk.value) {
        errors.push(sk.span, "`sk` must differ from `pk`");
    }
    let Some(key) = [Some(pk), sk].into_iter().flatten().find(|key| key.value == table.type_attribute) else {
        return;
    };
    match table.type_attribute_given {
        Some(span) => errors.push(span, "`type_attribute` must differ from the key attributes"),
        None => errors.push(
            key.span,
            format!(
                "`{}` is the default `type_attribute`; name the key attribute differently or set \
                 `type_attribute = \"...\"`",
                table.type_attribute
            ),
        ),
    }
}

/// Whether `table`, with errors reported, can still be expanded as declared: its index
/// constants are distinct, so that the expansion adds no error of its own. The values the errors
/// are about (a name too short, an unknown stream view) are data to the expansion.
pub fn expandable(table: &Table) -> bool {
    let mut errors = Errors::default();
    check_indexes(table, &mut errors);
    errors.finish(()).is_ok()
}

/// Index names, and the constants named after them, are distinct and leave `DEFINITION` alone.
fn check_indexes(table: &Table, errors: &mut Errors) {
    for (position, index) in table.indexes.iter().enumerate() {
        let (name, constant) = (&index.gsi.name.value, &index.constant);
        let earlier = &table.indexes[..position];
        if earlier.iter().any(|known| known.gsi.name.value == *name) {
            errors.push_spanned(&index.gsi.attr, format!("duplicate index name `{name}`"));
        } else if let Some(known) = earlier.iter().find(|known| known.constant == *constant) {
            errors.push_spanned(
                &index.gsi.attr,
                format!(
                    "indexes `{}` and `{name}` would both be named `{}::{constant}`; rename one",
                    known.gsi.name.value, table.ident
                ),
            );
        } else if constant == "DEFINITION" || constant == "DEFINITION_REF" {
            errors.push_spanned(
                &index.gsi.attr,
                format!("index `{name}` would be named like `Table::{constant}`; rename it"),
            );
        }
    }
}
