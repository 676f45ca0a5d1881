//! Condition expressions with generated placeholders, and the escape hatch for raw ones.

mod field;
mod path;

pub use field::{AttributeSize, AttributeType};
pub(crate) use path::AttributePath;
pub use path::{FieldPath, Nested, NestedField};

use crate::error::{Error, Item, Result};
use aws_sdk_dynamodb::types::AttributeValue;
use std::collections::HashMap;

/// Collects the attribute-name and value placeholders of one request.
///
/// Generated placeholders start with `#ds` and `:ds`; raw expressions must not use those.
#[derive(Debug, Default, PartialEq)]
pub struct Placeholders {
    names: HashMap<String, String>,
    values: HashMap<String, AttributeValue>,
}

impl Placeholders {
    /// A placeholder for attribute `name`, reused when the name repeats.
    pub fn name(&mut self, name: &str) -> String {
        if let Some((placeholder, _)) = self.names.iter().find(|(_, known)| *known == name) {
            return placeholder.clone();
        }
        let placeholder = format!("#ds{}", self.names.len());
        self.names.insert(placeholder.clone(), name.to_owned());
        placeholder
    }

    /// A placeholder for a value.
    pub fn value(&mut self, value: AttributeValue) -> String {
        let placeholder = format!(":ds{}", self.values.len());
        self.values.insert(placeholder.clone(), value);
        placeholder
    }

    /// Adds the placeholders of a raw expression as given.
    pub fn extend_raw(&mut self, raw: &RawExpression) {
        self.names.extend(raw.names.iter().map(|(k, v)| (k.clone(), v.clone())));
        self.values.extend(raw.values.iter().map(|(k, v)| (k.clone(), v.clone())));
    }

    /// The name map, or `None` when empty (DynamoDB rejects empty maps).
    pub fn take_names(&mut self) -> Option<HashMap<String, String>> {
        (!self.names.is_empty()).then(|| std::mem::take(&mut self.names))
    }

    /// The value map, or `None` when empty.
    pub fn take_values(&mut self) -> Option<Item> {
        (!self.values.is_empty()).then(|| std::mem::take(&mut self.values))
    }
}

/// An expression written by hand, with its own placeholders (escape hatch).
#[derive(Debug, Clone, Default)]
pub struct RawExpression {
    text: String,
    names: Vec<(String, String)>,
    values: Vec<(String, AttributeValue)>,
}

impl RawExpression {
    /// An expression such as `#n > :v`; declare its placeholders with [`Self::name`] and
    /// [`Self::value`].
    pub fn new(text: impl Into<String>) -> Self {
        Self { text: text.into(), ..Self::default() }
    }

    /// Declares an attribute-name placeholder.
    pub fn name(mut self, placeholder: impl Into<String>, attribute: impl Into<String>) -> Self {
        self.names.push((placeholder.into(), attribute.into()));
        self
    }

    /// Declares a value placeholder.
    pub fn value(mut self, placeholder: impl Into<String>, value: AttributeValue) -> Self {
        self.values.push((placeholder.into(), value));
        self
    }

    /// The expression text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether it declares a name placeholder for `attribute`.
    pub(crate) fn names_attribute(&self, attribute: &str) -> bool {
        self.names.iter().any(|(_, name)| name == attribute)
    }
}

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Comparison {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Comparison {
    fn symbol(self) -> &'static str {
        match self {
            Comparison::Eq => "=",
            Comparison::Ne => "<>",
            Comparison::Lt => "<",
            Comparison::Le => "<=",
            Comparison::Gt => ">",
            Comparison::Ge => ">=",
        }
    }
}

/// A condition on the stored item, for conditional writes.
///
/// Build them from typed field handles (`Song::fields().length.gt(300)`), combine them with
/// [`Condition::and`], [`Condition::or`] and [`Condition::not`], or write one by hand with
/// [`Condition::raw`].
#[derive(Debug, Clone)]
pub struct Condition(pub(crate) Node);

#[derive(Debug, Clone)]
pub(crate) enum Node {
    Exists(AttributePath),
    NotExists(AttributePath),
    Compare(AttributePath, Comparison, AttributeValue),
    BeginsWith(AttributePath, String),
    Between(AttributePath, AttributeValue, AttributeValue),
    In(AttributePath, Vec<AttributeValue>),
    Size(AttributePath, Comparison, u64),
    Contains(AttributePath, AttributeValue),
    Type(AttributePath, AttributeType),
    And(Box<Node>, Box<Node>),
    Or(Box<Node>, Box<Node>),
    Not(Box<Node>),
    Raw(RawExpression),
    /// A value that could not be converted.
    Invalid(String),
    /// A condition DynamoDB would refuse (an `IN` list of more than 100 values).
    Refused(String),
}

impl Condition {
    /// The attribute `name` exists.
    pub fn exists(name: &'static str) -> Self {
        Condition(Node::Exists(name.into()))
    }

    /// The attribute `name` does not exist.
    pub fn not_exists(name: &'static str) -> Self {
        Condition(Node::NotExists(name.into()))
    }

    /// A hand-written condition.
    pub fn raw(expression: RawExpression) -> Self {
        Condition(Node::Raw(expression))
    }

    /// `existing AND condition`, or `condition` alone when there is no existing one.
    pub(crate) fn join(existing: Option<Condition>, condition: Condition) -> Condition {
        match existing {
            Some(existing) => existing.and(condition),
            None => condition,
        }
    }

    /// Both conditions hold.
    pub fn and(self, other: Condition) -> Self {
        Condition(Node::And(Box::new(self.0), Box::new(other.0)))
    }

    /// At least one condition holds.
    pub fn or(self, other: Condition) -> Self {
        Condition(Node::Or(Box::new(self.0), Box::new(other.0)))
    }

    /// The condition does not hold.
    #[allow(clippy::should_implement_trait)]
    pub fn not(self) -> Self {
        Condition(Node::Not(Box::new(self.0)))
    }

    /// Renders the condition, registering its placeholders.
    pub fn render(&self, placeholders: &mut Placeholders) -> Result<String> {
        render(&self.0, placeholders)
    }

    /// The attributes the condition names at the top level (the first name of each path); a
    /// hand-written part names none that dynashard can see.
    pub(crate) fn attributes(&self) -> Vec<&'static str> {
        fn walk(node: &Node, out: &mut Vec<&'static str>) {
            match node {
                Node::Exists(path)
                | Node::NotExists(path)
                | Node::Compare(path, ..)
                | Node::BeginsWith(path, _)
                | Node::Between(path, ..)
                | Node::In(path, _)
                | Node::Size(path, ..)
                | Node::Contains(path, _)
                | Node::Type(path, _) => out.push(path.root()),
                Node::And(a, b) | Node::Or(a, b) => {
                    walk(a, out);
                    walk(b, out);
                }
                Node::Not(a) => walk(a, out),
                Node::Raw(_) | Node::Invalid(_) | Node::Refused(_) => {}
            }
        }
        let mut out = Vec::new();
        walk(&self.0, &mut out);
        out
    }

    /// The item has not expired: its time-to-live `attribute` is missing or after `now` (epoch
    /// seconds).
    pub(crate) fn unexpired(attribute: &'static str, now: u64) -> Self {
        let later = Node::Compare(attribute.into(), Comparison::Gt, AttributeValue::N(now.to_string()));
        Condition(Node::NotExists(attribute.into())).or(Condition(later))
    }

    /// The value at `path` is at least `value`.
    pub(crate) fn at_least(path: AttributePath, value: AttributeValue) -> Self {
        Condition(Node::Compare(path, Comparison::Ge, value))
    }

    /// The value at `path` is at most `value`.
    pub(crate) fn at_most(path: AttributePath, value: AttributeValue) -> Self {
        Condition(Node::Compare(path, Comparison::Le, value))
    }

    /// A value is stored at `path`.
    pub(crate) fn present(path: AttributePath) -> Self {
        Condition(Node::Exists(path))
    }

    /// Nothing is stored at `path`.
    pub(crate) fn missing(path: AttributePath) -> Self {
        Condition(Node::NotExists(path))
    }

    /// The numeric attribute `name` equals `value`.
    pub(crate) fn compare_number(name: &'static str, value: u64) -> Self {
        Condition(Node::Compare(name.into(), Comparison::Eq, AttributeValue::N(value.to_string())))
    }

    fn compare(path: AttributePath, op: Comparison, value: Result<AttributeValue>) -> Self {
        Self::built(value.map(|value| Node::Compare(path, op, value)))
    }

    /// The condition `node`, or one that fails when rendered with the error that building it met.
    fn built(node: Result<Node>) -> Self {
        match node {
            Ok(node) => Condition(node),
            Err(error) => Condition(Node::Invalid(error.to_string())),
        }
    }

    /// A condition that cannot be sent, for `reason`: it fails with [`Error::InvalidQuery`] when
    /// rendered.
    fn refused(reason: String) -> Self {
        Condition(Node::Refused(reason))
    }
}

fn render(node: &Node, p: &mut Placeholders) -> Result<String> {
    // A number DynamoDB would refuse fails here, naming the path it is compared with.
    let number = |path: &AttributePath, value: &AttributeValue| {
        crate::numbers::check_value(&mut path.to_string(), value)
    };
    Ok(match node {
        Node::Exists(path) => format!("attribute_exists({})", path.render(p)),
        Node::NotExists(path) => format!("attribute_not_exists({})", path.render(p)),
        Node::Compare(name, op, value) => {
            number(name, value)?;
            format!("{} {} {}", name.render(p), op.symbol(), p.value(value.clone()))
        }
        Node::BeginsWith(name, prefix) => {
            let value = p.value(AttributeValue::S(prefix.clone()));
            format!("begins_with({}, {value})", name.render(p))
        }
        Node::Between(name, low, high) => {
            number(name, low)?;
            number(name, high)?;
            if crate::numbers::reversed(low, high) {
                let reason = format!(
                    "`{name}` between a low bound above its high bound: the range ends before it starts"
                );
                return Err(Error::InvalidQuery { reason });
            }
            let (low, high) = (p.value(low.clone()), p.value(high.clone()));
            format!("{} BETWEEN {low} AND {high}", name.render(p))
        }
        Node::In(name, values) => {
            values.iter().try_for_each(|value| number(name, value))?;
            let values: Vec<String> = values.iter().map(|value| p.value(value.clone())).collect();
            format!("{} IN ({})", name.render(p), values.join(", "))
        }
        Node::Size(name, op, size) => {
            let size = p.value(AttributeValue::N(size.to_string()));
            format!("size({}) {} {size}", name.render(p), op.symbol())
        }
        Node::Contains(name, value) => {
            number(name, value)?;
            format!("contains({}, {})", name.render(p), p.value(value.clone()))
        }
        Node::Type(name, kind) => {
            let kind = p.value(AttributeValue::S(kind.code().to_owned()));
            format!("attribute_type({}, {kind})", name.render(p))
        }
        Node::And(a, b) => format!("({}) AND ({})", render(a, p)?, render(b, p)?),
        Node::Or(a, b) => format!("({}) OR ({})", render(a, p)?, render(b, p)?),
        Node::Not(a) => format!("NOT ({})", render(a, p)?),
        Node::Raw(raw) => {
            p.extend_raw(raw);
            raw.text.clone()
        }
        Node::Refused(reason) => return Err(Error::InvalidQuery { reason: reason.clone() }),
        Node::Invalid(message) => {
            return Err(<serde_dynamo::Error as serde::ser::Error>::custom(message).into())
        }
    })
}
