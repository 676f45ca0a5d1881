//! Decoding DynamoDB Streams records into entities: a change feed of a table.
//!
//! A [`ChangeRecord`] is one record of a table's stream, from whichever source delivered it:
//!
//! - the event a Lambda function receives, as JSON ([`ChangeRecord::from_lambda_json`]), or as
//!   the `aws_lambda_events` crate models it (feature `lambda`: `TryFrom<EventRecord>`);
//! - the DynamoDB Streams API's `GetRecords` (`TryFrom<&aws_sdk_dynamodbstreams::types::Record>`).
//!
//! [`ChangeRecord::decode`] reads it as an entity, [`ChangeRecord::decode_member`] as a
//! [`Collection`](crate::Collection) enum. Index keys, shard suffixes and the attributes a resharding adds are not
//! fields and are ignored; a record of another entity type, or of a shard metadata item, is
//! reported as such ([`Change::Unknown`], [`Change::ShardMetadata`]), not as an error, so one
//! feed can skip what it does not read. Only an item of the entity's own type that does not
//! decode is an error.
//!
//! ```
//! use dynashard::changes::{Change, ChangeKind, ChangeRecord};
//! use dynashard::{Entity, Table};
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Table)]
//! #[table(name = "Shop", pk = "pk", sk = "sk", stream = "new_and_old_images")]
//! struct Shop;
//!
//! #[derive(Entity, Serialize, Deserialize, Debug)]
//! #[entity(table = Shop, pk = "customer#{customer}", sk = "order#{number}")]
//! struct Order { customer: String, number: u32, total_cents: u64 }
//!
//! let event = r#"{"Records": [{
//!     "eventID": "1", "eventName": "INSERT", "eventSource": "aws:dynamodb", "awsRegion": "eu-west-1",
//!     "dynamodb": {
//!         "ApproximateCreationDateTime": 1764044000,
//!         "Keys": {"pk": {"S": "customer#c-1"}, "sk": {"S": "order#0000000007"}},
//!         "NewImage": {"pk": {"S": "customer#c-1"}, "sk": {"S": "order#0000000007"},
//!                      "_type": {"S": "Order"}, "customer": {"S": "c-1"},
//!                      "number": {"N": "7"}, "total_cents": {"N": "1250"}},
//!         "SequenceNumber": "100", "SizeBytes": 120, "StreamViewType": "NEW_AND_OLD_IMAGES"
//!     }
//! }]}"#;
//! for record in ChangeRecord::from_lambda_json(event)? {
//!     match record?.decode::<Order>()? {
//!         Change::Item(change) if change.kind == ChangeKind::Insert => {
//!             let order = change.new.expect("a new image");
//!             assert_eq!((order.number, order.total_cents), (7, 1250));
//!         }
//!         other => panic!("{other:?}"),
//!     }
//! }
//! # Ok::<(), dynashard::Error>(())
//! ```

mod decode;
mod feed;
mod lambda;
mod position;
mod streams_api;

pub use decode::{Change, ItemChange};
pub(crate) use feed::stream_of;
pub use feed::{ChangeFeed, ChangePage, FeedLease, FeedPass};
pub use lambda::{BatchOutcome, BatchStop, StopCause, StreamBatch};
pub use position::StreamPosition;

use crate::error::Item;
use time::OffsetDateTime;

/// What happened to the item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChangeKind {
    /// It was created (`INSERT`).
    Insert,
    /// An existing item was changed (`MODIFY`).
    Modify,
    /// It was deleted (`REMOVE`), by a write or by time to live.
    Remove,
}

impl ChangeKind {
    /// The kind named by a record's `eventName`.
    pub fn from_event_name(name: &str) -> Option<Self> {
        match name {
            "INSERT" => Some(ChangeKind::Insert),
            "MODIFY" => Some(ChangeKind::Modify),
            "REMOVE" => Some(ChangeKind::Remove),
            _ => None,
        }
    }
}

/// One record of a table's stream, as delivered: the kind of change, the item's key attributes,
/// and the images the stream's view type holds.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ChangeRecord {
    /// The record's unique id (`eventID`), where the source gives one.
    pub event_id: Option<String>,
    /// What happened to the item.
    pub kind: ChangeKind,
    /// The item's key attributes.
    pub keys: Item,
    /// The item before the change (streams with `old_image` or `new_and_old_images`).
    pub old_image: Option<Item>,
    /// The item after the change (streams with `new_image` or `new_and_old_images`).
    pub new_image: Option<Item>,
    /// The record's position in its shard of the stream.
    pub sequence_number: Option<String>,
    /// About when the change was made.
    pub approximate_time: Option<OffsetDateTime>,
    /// Whether DynamoDB's time to live deleted the item (a `REMOVE` by the service itself).
    pub by_time_to_live: bool,
}

/// The principal a deletion by time to live is recorded under.
const TIME_TO_LIVE_PRINCIPAL: &str = "dynamodb.amazonaws.com";

impl ChangeRecord {
    /// A record of a change of the item with these key attributes, without images.
    pub fn new(kind: ChangeKind, keys: Item) -> Self {
        ChangeRecord {
            event_id: None,
            kind,
            keys,
            old_image: None,
            new_image: None,
            sequence_number: None,
            approximate_time: None,
            by_time_to_live: false,
        }
    }

    /// With the item as it was before the change.
    pub fn with_old_image(mut self, image: Item) -> Self {
        self.old_image = Some(image);
        self
    }

    /// With the item as it is after the change.
    pub fn with_new_image(mut self, image: Item) -> Self {
        self.new_image = Some(image);
        self
    }
}

/// The kind an `eventName` names.
fn kind_of(name: &str) -> crate::error::Result<ChangeKind> {
    ChangeKind::from_event_name(name).ok_or_else(|| invalid(format!("unknown event name `{name}`")))
}

/// Whether a change is a deletion by time to live: a `REMOVE` made by DynamoDB itself.
fn by_time_to_live(kind: ChangeKind, principal: Option<&str>) -> bool {
    kind == ChangeKind::Remove && principal == Some(TIME_TO_LIVE_PRINCIPAL)
}

/// The error of a record that is not one of the table's changes.
pub(crate) fn invalid(reason: impl Into<String>) -> crate::error::Error {
    crate::error::Error::InvalidChangeRecord { reason: reason.into(), event_id: None, sequence_number: None }
}
