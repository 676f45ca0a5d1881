//! List elements an update names (`remove_at`, a value set inside an element): each must exist
//! when the update runs. DynamoDB would otherwise remove nothing past a list's end without a
//! word, refuse a path through a missing element with a raw error, or fail to read an index
//! past what a request can hold. So every such element is a condition of the update, and one
//! that does not exist fails with [`Error::ListIndexOutOfRange`], naming the list, the index and
//! the list's length.

use crate::error::{Error, Item};
use crate::expression::{AttributePath, Condition};
use aws_sdk_dynamodb::types::AttributeValue;

/// More elements than any list can hold: an item is at most 400 KB, and each element takes a
/// byte at least.
const MOST_ELEMENTS: usize = 400 * 1024;

/// A list element an action goes through.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Element {
    list: AttributePath,
    index: usize,
}

impl Element {
    /// The last element `path` goes through, if any.
    pub fn of(path: &AttributePath) -> Option<Self> {
        path.last_element().map(|(list, index)| Element { list, index })
    }

    /// The condition that the element exists.
    pub fn guard(&self) -> Condition {
        Condition::present(self.list.clone().at(self.index))
    }

    /// Refused before sending: no list holds that many elements.
    pub fn impossible(&self) -> Option<Error> {
        (self.index >= MOST_ELEMENTS).then(|| self.out_of_range(None))
    }

    /// The error for an update refused because the element is missing from the stored item;
    /// `None` when it is there.
    pub fn refusal(&self, stored: Option<&Item>) -> Option<Error> {
        let list = stored.and_then(|item| self.list.value_in(item));
        let length = match list {
            Some(AttributeValue::L(elements)) if elements.len() > self.index => return None,
            Some(AttributeValue::L(elements)) => Some(elements.len()),
            _ => None,
        };
        Some(self.out_of_range(length))
    }

    fn out_of_range(&self, length: Option<usize>) -> Error {
        Error::ListIndexOutOfRange { list: self.list.to_string(), index: self.index, length }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(length: usize) -> Item {
        let list = (0..length).map(|n| AttributeValue::N(n.to_string())).collect();
        [("tracks".to_owned(), AttributeValue::L(list))].into()
    }

    #[test]
    fn an_element_past_the_end_is_refused_with_the_length() {
        let element = Element::of(&AttributePath::from("tracks").at(3)).unwrap();
        assert!(element.refusal(Some(&item(4))).is_none());
        let refused = element.refusal(Some(&item(3))).unwrap();
        assert_eq!(refused.to_string(), "`tracks` has no element 3 (it holds 3)");
        assert!(element.refusal(None).is_some(), "no item, no list");
        assert!(element.impossible().is_none());
        let far = Element::of(&AttributePath::from("tracks").at(usize::MAX)).unwrap();
        assert_eq!(far.impossible().unwrap().to_string(), "`tracks` has no element 18446744073709551615");
        assert!(Element::of(&AttributePath::from("tracks")).is_none());
    }
}
