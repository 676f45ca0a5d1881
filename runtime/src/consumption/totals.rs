//! Running totals of the units a `Db` consumed, per table or index and entity type.

use std::collections::HashMap;
use std::sync::Mutex;

/// The read and write units a `Db` consumed on one table or index for one entity type, since it
/// was made ([`Db::consumed`](crate::Db::consumed)).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Consumed {
    /// The table's name.
    pub table: String,
    /// The index, `None` for the table itself.
    pub index: Option<String>,
    /// The entity type read or written (a collection's name for a collection's reads).
    pub entity: &'static str,
    /// Read units.
    pub read_units: f64,
    /// Write units.
    pub write_units: f64,
}

/// Whether units were read or written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Read,
    Write,
}

/// Read and write units (indexed by [`Kind`]) by entity type.
type ByEntity = HashMap<&'static str, [f64; 2]>;

/// Units by table, index (`""` for the table) and entity type. The keys are as many as the
/// schema has tables, indexes and types, whatever the traffic.
#[derive(Debug, Default)]
pub(crate) struct Totals {
    units: Mutex<HashMap<String, HashMap<String, ByEntity>>>,
}

impl Totals {
    /// Adds `units` of `kind` on `index` (`None`: the table) of `table`, for `entity`.
    pub(crate) fn add(
        &self,
        (table, index, entity): (&str, Option<&str>, &'static str),
        kind: Kind,
        units: f64,
    ) {
        if !(units.is_finite() && units > 0.0) {
            return;
        }
        // A panic while adding leaves totals that are still sums of what was added.
        let mut tables = self.units.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let indexes = match tables.get_mut(table) {
            Some(indexes) => indexes,
            None => tables.entry(table.to_owned()).or_default(),
        };
        let index = index.unwrap_or_default();
        let entities = match indexes.get_mut(index) {
            Some(entities) => entities,
            None => indexes.entry(index.to_owned()).or_default(),
        };
        let total = entities.entry(entity).or_default();
        total[kind as usize] += units;
    }

    /// Every total, by table, index (the table first) and entity type.
    pub(crate) fn all(&self) -> Vec<Consumed> {
        let tables = self.units.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut all: Vec<Consumed> = tables
            .iter()
            .flat_map(|(table, indexes)| {
                indexes.iter().flat_map(move |(index, entities)| {
                    entities.iter().map(move |(entity, [read, write])| Consumed {
                        table: table.clone(),
                        index: (!index.is_empty()).then(|| index.clone()),
                        entity,
                        read_units: *read,
                        write_units: *write,
                    })
                })
            })
            .collect();
        all.sort_by(|a, b| (&a.table, &a.index, a.entity).cmp(&(&b.table, &b.index, b.entity)));
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_add_up_by_table_index_and_entity() {
        let totals = Totals::default();
        totals.add(("Music", None, "Song"), Kind::Write, 2.0);
        totals.add(("Music", None, "Song"), Kind::Write, 1.0);
        totals.add(("Music", None, "Song"), Kind::Read, 0.5);
        totals.add(("Music", Some("ByArtist"), "Song"), Kind::Write, 1.0);
        totals.add(("Music", None, "Album"), Kind::Read, 1.5);
        totals.add(("Music", None, "Album"), Kind::Read, f64::NAN);
        totals.add(("Music", None, "Album"), Kind::Read, -1.0);
        let all = totals.all();
        let row = |index: Option<&str>, entity: &str| {
            all.iter()
                .find(|total| total.index.as_deref() == index && total.entity == entity)
                .map(|total| (total.read_units, total.write_units))
        };
        assert_eq!(all.len(), 3);
        assert_eq!(row(None, "Song"), Some((0.5, 3.0)));
        assert_eq!(row(Some("ByArtist"), "Song"), Some((0.0, 1.0)));
        assert_eq!(row(None, "Album"), Some((1.5, 0.0)), "what is not a count of units is left out");
        assert_eq!((all[0].entity, all[0].index.as_deref()), ("Album", None), "the table first, by entity");
    }
}
