//! One page of one part of a resharding's scan: a segment of a parallel Scan, or a
//! [piece](super::pieces) of a known partition read by Query. The backfill, the cleanup and the
//! verification read through it; what they do with the page is theirs.

use super::pieces::Piece;
use crate::db::Db;
use crate::error::{Error, Item, Result};
use aws_sdk_dynamodb::types::{AttributeValue, ReturnConsumedCapacity};

/// Which part of a scan a page is read from.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Part<'a> {
    /// Segment `segment` of a parallel Scan in `total` segments.
    Segment { segment: u32, total: u32 },
    /// A piece, read by Query of the index whose partition and sort key attributes are `keys`.
    Piece { piece: &'a Piece, keys: (&'a str, &'a str) },
}

/// What a page is read with, whichever the part.
#[derive(Debug)]
pub(crate) struct PageRead<'a> {
    pub table: &'a str,
    /// The index read; `None`: the table.
    pub index: Option<&'a str>,
    pub consistent: bool,
    /// A filter expression over `names` and `values`. A piece's filter must not name its keys
    /// (DynamoDB refuses key attributes in a Query's filter).
    pub filter: &'a str,
    pub names: &'a [(&'a str, &'a str)],
    pub values: &'a [(&'a str, AttributeValue)],
    /// Where the last page ended.
    pub start: Option<Item>,
    pub limit: Option<u32>,
}

/// One page as read.
#[derive(Debug, Default)]
pub(crate) struct Page {
    pub items: Vec<Item>,
    /// Where it ended; `None` at the end of the part.
    pub last: Option<Item>,
    /// The read units it consumed, as DynamoDB reported them.
    pub units: f64,
}

impl Db {
    /// Reads the page of `part` that `read` describes.
    pub(crate) async fn read_part(&self, part: Part<'_>, read: PageRead<'_>) -> Result<Page> {
        let limit = read.limit.map(|items| items.min(i32::MAX as u32) as i32);
        let filter = (!read.filter.is_empty()).then(|| read.filter.to_owned());
        let names = read.names.iter().map(|(name, value)| ((*name).to_owned(), (*value).to_owned()));
        let values = read.values.iter().map(|(name, value)| ((*name).to_owned(), value.clone()));
        let (mut names, mut values): (std::collections::HashMap<_, _>, std::collections::HashMap<_, _>) =
            (names.collect(), values.collect());
        let page = match part {
            Part::Segment { segment, total } => {
                let output = self
                    .client()
                    .scan()
                    .table_name(read.table)
                    .set_index_name(read.index.map(str::to_owned))
                    .consistent_read(read.consistent)
                    .segment(segment as i32)
                    .total_segments(total as i32)
                    .set_filter_expression(filter)
                    .set_expression_attribute_names((!names.is_empty()).then_some(names))
                    .set_expression_attribute_values((!values.is_empty()).then_some(values))
                    .set_exclusive_start_key(read.start)
                    .set_limit(limit)
                    .return_consumed_capacity(ReturnConsumedCapacity::Total)
                    .send()
                    .await
                    .map_err(|error| Error::from_sdk("Scan", error))?;
                let units = output.consumed_capacity.and_then(|consumed| consumed.capacity_units);
                Page {
                    items: output.items.unwrap_or_default(),
                    last: output.last_evaluated_key,
                    units: units.unwrap_or(0.0),
                }
            }
            Part::Piece { piece, .. } if piece.is_empty() => Page::default(),
            Part::Piece { piece, keys: (pk, sk) } => {
                names.insert("#pk".to_owned(), pk.to_owned());
                values.insert(":pk".to_owned(), AttributeValue::S(piece.partition.clone()));
                if piece.from.is_some() || piece.until.is_some() {
                    names.insert("#sk".to_owned(), sk.to_owned());
                }
                for (name, bound) in [(":from", &piece.from), (":until", &piece.until)] {
                    if let Some(bound) = bound {
                        values.insert(name.to_owned(), AttributeValue::S(bound.clone()));
                    }
                }
                let output = self
                    .client()
                    .query()
                    .table_name(read.table)
                    .set_index_name(read.index.map(str::to_owned))
                    .consistent_read(read.consistent)
                    .key_condition_expression(piece.condition())
                    .set_filter_expression(filter)
                    .set_expression_attribute_names(Some(names))
                    .set_expression_attribute_values(Some(values))
                    .set_exclusive_start_key(read.start)
                    .set_limit(limit)
                    .return_consumed_capacity(ReturnConsumedCapacity::Total)
                    .send()
                    .await
                    .map_err(|error| Error::from_sdk("Query", error))?;
                let units = output.consumed_capacity.and_then(|consumed| consumed.capacity_units);
                let mut items = output.items.unwrap_or_default();
                // `BETWEEN` holds the next piece's first sort key too: those items are the next
                // piece's to read.
                items.retain(|item| {
                    item.get(sk).and_then(|value| value.as_s().ok()).is_none_or(|sort| piece.holds(sort))
                });
                Page { items, last: output.last_evaluated_key, units: units.unwrap_or(0.0) }
            }
        };
        Ok(page)
    }
}
