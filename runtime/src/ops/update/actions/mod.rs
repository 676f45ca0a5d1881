//! The actions of one update, as typed calls leave them: rendered into an `UpdateExpression`
//! (`SET`, `ADD`, `DELETE`, `REMOVE`), with the field changes index keys follow.

use super::arithmetic::{Arithmetic, Headroom};
use super::elements::Element;
use crate::error::{Error, Item, Result};
use crate::expression::{AttributePath, Condition, Placeholders, RawExpression};
use crate::index_keys::{FieldChanges, IndexKeyUpdate};
use crate::sets::{as_set, SetAttribute};
use aws_sdk_dynamodb::types::AttributeValue;

/// What a `SET` action writes at a path.
#[derive(Debug, Clone)]
enum Assign {
    /// The value.
    Value(AttributeValue),
    /// The value, unless the path holds one already.
    IfNotExists(AttributeValue),
    /// The list with these elements after it (a missing list counts as empty).
    Append(AttributeValue),
    /// The list with these elements before it (a missing list counts as empty).
    Prepend(AttributeValue),
    /// The number less this amount (a missing number counts as 0).
    Subtract(AttributeValue),
}

/// The actions of an update, in the order they were given.
#[derive(Debug, Default)]
pub(crate) struct Actions {
    set: Vec<(AttributePath, Assign)>,
    add: Vec<(AttributePath, AttributeValue)>,
    delete: Vec<(AttributePath, AttributeValue)>,
    remove: Vec<AttributePath>,
    raw_sets: Vec<RawExpression>,
    /// The arithmetic, and the range each keeps.
    arithmetic: Vec<Arithmetic>,
    /// The first value that failed to convert: the update fails with it when built.
    error: Option<Error>,
    /// The fields changed, for index keys.
    changes: FieldChanges,
}

impl Actions {
    /// Keeps the first conversion error; `Some(value)` otherwise.
    fn ok<T>(&mut self, value: Result<T>) -> Option<T> {
        match value {
            Ok(value) => Some(value),
            Err(error) => {
                self.error.get_or_insert(error);
                None
            }
        }
    }

    /// Records a change of `path` whose new value is unknown here.
    fn touched(&mut self, path: &AttributePath) {
        self.changes.add(path.root());
    }

    /// `SET path = value`; a whole set field is stored as a set (removed when empty), and a
    /// NULL value (`None`) removes the attribute, as a put would leave it out.
    pub fn set(&mut self, path: AttributePath, value: Result<AttributeValue>, sets: &[SetAttribute]) {
        let Some(mut value) = self.ok(value) else { return };
        if path.is_attribute() && sets.iter().any(|set| set.name == path.root()) {
            match self.ok(as_set(path.root(), value)) {
                Some(Some(set)) => value = set,
                Some(None) => return self.remove(path),
                None => return,
            }
        }
        if value.is_null() {
            return self.remove(path);
        }
        if path.is_attribute() {
            self.changes.set(path.root(), value.clone());
        } else {
            self.touched(&path);
        }
        self.set.push((path, Assign::Value(value)));
    }

    /// `SET path = if_not_exists(path, value)`.
    pub fn set_if_not_exists(&mut self, path: AttributePath, value: Result<AttributeValue>) {
        let Some(value) = self.ok(value) else { return };
        self.touched(&path);
        self.set.push((path, Assign::IfNotExists(value)));
    }

    /// `ADD path amount`, kept within the field's type (`ty`, by `headroom`).
    pub fn add(
        &mut self,
        path: AttributePath,
        amount: Result<AttributeValue>,
        (headroom, ty): (Headroom, &'static str),
    ) {
        let Some(amount) = self.ok(amount) else { return };
        self.touched(&path);
        self.keep_in_range(&path, &amount, false, (headroom, ty));
        self.add.push((path, amount));
    }

    /// `SET path = if_not_exists(path, 0) - amount`, kept within the field's type.
    pub fn subtract(
        &mut self,
        path: AttributePath,
        amount: Result<AttributeValue>,
        (headroom, ty): (Headroom, &'static str),
    ) {
        let Some(amount) = self.ok(amount) else { return };
        self.touched(&path);
        self.keep_in_range(&path, &amount, true, (headroom, ty));
        self.set.push((path, Assign::Subtract(amount)));
    }

    /// Records the range a change of `amount` at `path` must keep the stored number in.
    fn keep_in_range(
        &mut self,
        path: &AttributePath,
        amount: &AttributeValue,
        subtract: bool,
        (headroom, ty): (Headroom, &'static str),
    ) {
        let text = amount.as_n().map(String::as_str).unwrap_or("?");
        let change = match (subtract, text.strip_prefix('-')) {
            (false, None) => format!("+{text}"),
            (false, Some(_)) => text.to_owned(),
            (true, None) => format!("-{text}"),
            (true, Some(positive)) => format!("+{positive}"),
        };
        self.arithmetic.push(Arithmetic { path: path.clone(), change, headroom, ty });
    }

    /// Fails on the first number DynamoDB would refuse among the values the actions send.
    fn check_numbers(&self) -> Result<()> {
        let assigned = self.set.iter().map(|(path, assign)| {
            let value = match assign {
                Assign::Value(value)
                | Assign::IfNotExists(value)
                | Assign::Append(value)
                | Assign::Prepend(value)
                | Assign::Subtract(value) => value,
            };
            (path, value)
        });
        let changed = self.add.iter().chain(&self.delete).map(|(path, value)| (path, value));
        assigned
            .chain(changed)
            .try_for_each(|(path, value)| crate::numbers::check_value(&mut path.to_string(), value))
    }

    /// Fails when two actions change one value, or one a value within the other's (`append`
    /// and `prepend`, `set` twice, `add_to` and `delete_from`): DynamoDB refuses the request.
    fn check_overlaps(&self) -> Result<()> {
        let paths: Vec<&AttributePath> = self.paths().collect();
        for (at, first) in paths.iter().enumerate() {
            if let Some(second) = paths[at + 1..].iter().find(|second| first.overlaps(second)) {
                return Err(Error::OverlappingActions {
                    first: first.to_string(),
                    second: second.to_string(),
                });
            }
        }
        Ok(())
    }

    /// Fails when a value set whole at the attribute `ttl` is not a time to live DynamoDB acts on.
    pub fn check_ttl(&self, ttl: Option<&'static str>) -> Result<()> {
        let Some(ttl) = ttl else { return Ok(()) };
        let mut set = self.set.iter().filter(|(path, _)| path.is_attribute() && path.root() == ttl);
        set.try_for_each(|(_, assign)| match assign {
            Assign::Value(value) | Assign::IfNotExists(value) => crate::ttl::check(ttl, value),
            _ => Ok(()),
        })
    }

    /// The paths the actions change.
    fn paths(&self) -> impl Iterator<Item = &AttributePath> {
        (self.set.iter().map(|(path, _)| path))
            .chain(self.add.iter().chain(&self.delete).map(|(path, _)| path))
            .chain(&self.remove)
    }

    /// The list elements the actions go through, each once.
    pub fn elements(&self) -> Vec<Element> {
        let mut elements: Vec<Element> = Vec::new();
        for element in self.paths().filter_map(Element::of) {
            if !elements.contains(&element) {
                elements.push(element);
            }
        }
        elements
    }

    /// The `add` and `subtract` actions, with the range each keeps.
    pub fn arithmetic(&self) -> &[Arithmetic] {
        &self.arithmetic
    }

    /// Elements after (`append`) or before the list at `path`.
    pub fn extend_list(&mut self, path: AttributePath, elements: Result<Vec<AttributeValue>>, append: bool) {
        let Some(elements) = self.ok(elements) else { return };
        if elements.is_empty() {
            return;
        }
        self.touched(&path);
        let list = AttributeValue::L(elements);
        self.set.push((path, if append { Assign::Append(list) } else { Assign::Prepend(list) }));
    }

    /// `REMOVE path[index]`.
    pub fn remove_at(&mut self, path: AttributePath, index: usize) {
        self.touched(&path);
        self.remove.push(path.at(index));
    }

    /// `ADD path set` (`add`) or `DELETE path set`: elements into or out of the set at `path`.
    pub fn change_set(&mut self, path: AttributePath, elements: Result<Vec<AttributeValue>>, add: bool) {
        let Some(elements) = self.ok(elements) else { return };
        let Some(set) = self.ok(as_set(path.root(), AttributeValue::L(elements))) else { return };
        // No elements: nothing to add or delete (DynamoDB refuses empty sets).
        let Some(set) = set else { return };
        self.touched(&path);
        if add {
            self.add.push((path, set));
        } else {
            self.delete.push((path, set));
        }
    }

    /// `REMOVE path`.
    pub fn remove(&mut self, path: AttributePath) {
        if path.is_attribute() {
            self.changes.remove(path.root());
        } else {
            self.touched(&path);
        }
        self.remove.push(path);
    }

    /// Makes these actions create the item when it is missing: the entity type and the key
    /// fields' attributes (`key_fields`) are set too. Fails when a field a new item needs is not
    /// set whole.
    pub fn create<E: crate::entity::Entity>(&mut self, key_fields: Item) -> Result<()> {
        let set_whole = |name: &str| {
            self.set.iter().any(|(path, assign)| {
                path.is_attribute()
                    && path.root() == name
                    && matches!(assign, Assign::Value(_) | Assign::IfNotExists(_))
            })
        };
        if let Some(field) = E::REQUIRED.iter().find(|field| !set_whole(field)) {
            return Err(Error::UpsertIncomplete { entity: E::TYPE_NAME, field });
        }
        self.changes.create();
        let table = crate::item::table_of::<E>();
        let type_name = AttributeValue::S(E::TYPE_NAME.to_owned());
        self.set.push((AttributePath::from(table.type_attribute), Assign::Value(type_name)));
        for field in E::KEY_FIELDS {
            if let Some(value) = key_fields.get(field.attribute) {
                self.changes.set(field.attribute, value.clone());
                self.set.push((AttributePath::from(field.attribute), Assign::Value(value.clone())));
            }
        }
        Ok(())
    }

    /// Sets the `#[updated_at]` attribute of `E` to the current time, and, for an update that
    /// can create the item (`creates`), the `#[created_at]` attribute unless the item has one.
    /// An update that changes nothing (no action, no version to raise) writes no time; a
    /// hand-written `SET` of a time attribute (declared by a name placeholder) is left to write it.
    pub fn stamp<E: crate::entity::Entity>(&mut self, creates: bool) -> Result<()> {
        let nothing = self.set.is_empty()
            && self.add.is_empty()
            && self.delete.is_empty()
            && self.remove.is_empty()
            && self.raw_sets.is_empty()
            && E::VERSION_ATTRIBUTE.is_none();
        if (E::CREATED_AT.is_none() && E::UPDATED_AT.is_none()) || (nothing && !creates) {
            return Ok(());
        }
        let mut now = E::timestamps_at(time::OffsetDateTime::now_utc())?;
        let raw = |name: &str| self.raw_sets.iter().any(|raw| raw.names_attribute(name));
        for name in [E::UPDATED_AT, E::CREATED_AT].into_iter().flatten().filter(|name| raw(name)) {
            now.remove(name);
        }
        if let Some((name, value)) = E::UPDATED_AT.and_then(|name| Some((name, now.remove(name)?))) {
            self.set.push((AttributePath::from(name), Assign::Value(value)));
        }
        let created = E::CREATED_AT.filter(|_| creates);
        if let Some((name, value)) = created.and_then(|name| Some((name, now.remove(name)?))) {
            self.set.push((AttributePath::from(name), Assign::IfNotExists(value)));
        }
        Ok(())
    }

    /// A hand-written `SET` action.
    pub fn set_raw(&mut self, action: RawExpression) {
        self.raw_sets.push(action);
    }

    /// The fields the update changes.
    pub fn changes(&self) -> &FieldChanges {
        &self.changes
    }

    /// The conditions the actions need, joined to `condition`.
    pub fn guard(&self, condition: Option<Condition>) -> Option<Condition> {
        let ranges = self.arithmetic.iter().filter_map(Arithmetic::guard);
        let elements = self.elements().into_iter().map(|element| element.guard());
        ranges.chain(elements).fold(condition, |joined, guard| Some(Condition::join(joined, guard)))
    }

    /// The update expression: these actions, the index key changes and the version increment.
    pub fn render(
        mut self,
        index_updates: Vec<IndexKeyUpdate>,
        version: Option<&'static str>,
        p: &mut Placeholders,
    ) -> Result<Option<String>> {
        if let Some(error) = self.error.take() {
            return Err(error);
        }
        self.check_numbers()?;
        if let Some(refused) = self.arithmetic.iter().find_map(Arithmetic::impossible) {
            return Err(refused);
        }
        if let Some(refused) = self.elements().iter().find_map(Element::impossible) {
            return Err(refused);
        }
        self.check_overlaps()?;
        let mut set: Vec<String> =
            self.set.into_iter().map(|(path, assign)| assignment(&path, assign, p)).collect();
        let mut remove: Vec<String> = self.remove.iter().map(|path| path.render(p)).collect();
        for update in index_updates {
            match update {
                IndexKeyUpdate::Set(name, value) => {
                    set.push(format!("{} = {}", p.name(name), p.value(value)))
                }
                IndexKeyUpdate::Remove(name) => remove.push(p.name(name)),
            }
        }
        for raw in &self.raw_sets {
            p.extend_raw(raw);
            set.push(raw.text().to_owned());
        }
        let mut add: Vec<String> = self
            .add
            .into_iter()
            .map(|(path, value)| format!("{} {}", path.render(p), p.value(value)))
            .collect();
        if let Some(version) = version {
            let one = p.value(AttributeValue::N("1".to_owned()));
            add.push(format!("{} {one}", p.name(version)));
        }
        let delete: Vec<String> = self
            .delete
            .into_iter()
            .map(|(path, value)| format!("{} {}", path.render(p), p.value(value)))
            .collect();
        let clauses: Vec<String> = [("SET", set), ("ADD", add), ("DELETE", delete), ("REMOVE", remove)]
            .into_iter()
            .filter(|(_, actions)| !actions.is_empty())
            .map(|(keyword, actions)| format!("{keyword} {}", actions.join(", ")))
            .collect();
        Ok((!clauses.is_empty()).then(|| clauses.join(" ")))
    }
}

/// One `SET` action.
fn assignment(path: &AttributePath, assign: Assign, p: &mut Placeholders) -> String {
    let target = path.render(p);
    match assign {
        Assign::Value(value) => format!("{target} = {}", p.value(value)),
        Assign::IfNotExists(value) => format!("{target} = if_not_exists({target}, {})", p.value(value)),
        Assign::Append(list) => {
            let empty = p.value(AttributeValue::L(Vec::new()));
            format!("{target} = list_append(if_not_exists({target}, {empty}), {})", p.value(list))
        }
        Assign::Prepend(list) => {
            let empty = p.value(AttributeValue::L(Vec::new()));
            format!("{target} = list_append({}, if_not_exists({target}, {empty}))", p.value(list))
        }
        Assign::Subtract(amount) => {
            let zero = p.value(AttributeValue::N("0".to_owned()));
            format!("{target} = if_not_exists({target}, {zero}) - {}", p.value(amount))
        }
    }
}

#[cfg(test)]
mod tests;
