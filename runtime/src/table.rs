//! Table declarations: names, keys, indexes and billing, and their `create-table` form.

use serde_json::{json, Value};

/// A DynamoDB table declared in Rust, usually with `#[derive(Table)]`.
///
/// ```
/// use dynashard::Table;
///
/// #[derive(Table)]
/// #[table(name = "Music", pk = "pk", sk = "sk")]
/// #[gsi(GSI1(pk = "gsi1pk", sk = "gsi1sk"))]
/// struct Music;
///
/// assert_eq!(Music::DEFINITION.name, "Music");
/// assert_eq!(Music::DEFINITION.indexes[0].name, "GSI1");
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a dynashard table",
    label = "an entity's `table` must name a type declared with `#[derive(Table)]`"
)]
pub trait Table {
    /// The table's definition.
    const DEFINITION: TableDefinition;

    /// The table's definition, as a `'static` reference (usable from generic code).
    const DEFINITION_REF: &'static TableDefinition = &Self::DEFINITION;
}

/// The shape of a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableDefinition {
    /// The table name (can be overridden per client with [`crate::Db::with_table_name`]).
    pub name: &'static str,
    /// The partition key attribute (a string).
    pub partition_key: &'static str,
    /// The sort key attribute (a string), if the table has one.
    pub sort_key: Option<&'static str>,
    /// The attribute that records each item's entity type.
    pub type_attribute: &'static str,
    /// Global secondary indexes.
    pub indexes: &'static [IndexDefinition],
    /// How the table is billed.
    pub billing: Billing,
    /// The shard metadata table that every `Db` writing this table consults for resharding
    /// phases and dynamic shard counts (`#[table(shard_metadata = "...")]`), if declared.
    pub shard_metadata: Option<&'static str>,
    /// The time-to-live attribute (`#[table(ttl = "...")]`): `create_table` enables TTL on it, and
    /// an entity's `#[ttl]` field is stored in it as epoch seconds.
    pub ttl: Option<&'static str>,
    /// The table's stream of item changes, and what its records hold (`#[table(stream = "...")]`).
    pub stream: Option<StreamView>,
    /// Whether the table refuses to be deleted (`#[table(deletion_protection)]`).
    pub deletion_protection: bool,
    /// Tags, key and value (`#[table(tags = ["team=music"])]`).
    pub tags: &'static [(&'static str, &'static str)],
    /// Whether point-in-time recovery is on (`#[table(point_in_time_recovery)]`).
    pub point_in_time_recovery: bool,
    /// The throughput the table is prepared for at once (`#[table(warm_reads = ..., warm_writes =
    /// ...)]`), if declared.
    pub warm_throughput: Option<WarmThroughput>,
}

/// The reads and writes per second a table can serve at once, without first scaling up: what
/// DynamoDB prepares a new table (or an existing one) for, ahead of a known peak.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WarmThroughput {
    /// Read units per second, if declared.
    pub reads_per_second: Option<u64>,
    /// Write units per second, if declared.
    pub writes_per_second: Option<u64>,
}

/// What the records of a table's stream hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamView {
    /// The item after and before each change.
    NewAndOldImages,
    /// The item after each change.
    NewImage,
    /// The item before each change.
    OldImage,
    /// The key of the item changed.
    KeysOnly,
}

impl StreamView {
    /// DynamoDB's name of the view type.
    pub fn code(self) -> &'static str {
        match self {
            StreamView::NewAndOldImages => "NEW_AND_OLD_IMAGES",
            StreamView::NewImage => "NEW_IMAGE",
            StreamView::OldImage => "OLD_IMAGE",
            StreamView::KeysOnly => "KEYS_ONLY",
        }
    }
}

/// A global secondary index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexDefinition {
    /// The index name.
    pub name: &'static str,
    /// Whether it is a local secondary index (`#[lsi(...)]`): keyed on the table's partition key
    /// and a sort key of its own, created with the table, read strongly consistent if asked.
    pub local: bool,
    /// The partition key attributes (one, or up to four for a multi-attribute key; the table's
    /// partition key for a local index).
    pub partition_key: &'static [KeyAttribute],
    /// The sort key attributes (none, one, or up to four).
    pub sort_key: &'static [KeyAttribute],
    /// Which attributes the index holds besides the keys.
    pub projection: IndexProjection,
    /// The throughput a global index is prepared for at once (`#[gsi(Name(..., warm_reads =
    /// ..., warm_writes = ...))]`), if declared; a local index shares the table's.
    pub warm_throughput: Option<WarmThroughput>,
}

/// Which attributes a global secondary index copies from the table
/// (`#[gsi(..., projection = ...)]`); every index also holds the table's and its own keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexProjection {
    /// Every attribute (`ALL`, the default).
    All,
    /// The keys only (`KEYS_ONLY`).
    KeysOnly,
    /// The keys and these attributes (`INCLUDE`).
    Include(&'static [&'static str]),
}

impl IndexProjection {
    /// DynamoDB's name of the projection type.
    pub fn code(&self) -> &'static str {
        match self {
            IndexProjection::All => "ALL",
            IndexProjection::KeysOnly => "KEYS_ONLY",
            IndexProjection::Include(_) => "INCLUDE",
        }
    }

    /// The non-key attributes an `INCLUDE` projection names; none otherwise.
    pub fn included(&self) -> &'static [&'static str] {
        match self {
            IndexProjection::Include(attributes) => attributes,
            _ => &[],
        }
    }
}

/// One key attribute of an index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyAttribute {
    /// The attribute name.
    pub name: &'static str,
    /// Its scalar type.
    pub kind: ScalarKind,
}

/// A key attribute's scalar type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScalarKind {
    /// String (`S`).
    String,
    /// Number (`N`).
    Number,
    /// Binary (`B`).
    Binary,
}

impl ScalarKind {
    /// The DynamoDB type letter.
    pub const fn code(self) -> &'static str {
        match self {
            ScalarKind::String => "S",
            ScalarKind::Number => "N",
            ScalarKind::Binary => "B",
        }
    }
}

/// How a table is billed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Billing {
    /// On-demand capacity.
    PayPerRequest,
    /// Provisioned capacity, applied to the table and to each index.
    Provisioned {
        /// Read capacity units.
        read: u64,
        /// Write capacity units.
        write: u64,
    },
}

/// The entity-type attribute used when a table declares none.
pub const DEFAULT_TYPE_ATTRIBUTE: &str = "_type";

impl TableDefinition {
    /// The key attribute definitions, each attribute once, in declaration order.
    pub fn attribute_definitions(&self) -> Vec<KeyAttribute> {
        let mut attributes = vec![KeyAttribute { name: self.partition_key, kind: ScalarKind::String }];
        if let Some(sort_key) = self.sort_key {
            attributes.push(KeyAttribute { name: sort_key, kind: ScalarKind::String });
        }
        for index in self.indexes {
            for attribute in index.partition_key.iter().chain(index.sort_key) {
                if !attributes.iter().any(|known| known.name == attribute.name) {
                    attributes.push(*attribute);
                }
            }
        }
        attributes
    }

    /// The definition as the JSON accepted by `aws dynamodb create-table --cli-input-json`,
    /// under the table name `table_name`.
    ///
    /// ```
    /// # use dynashard::Table;
    /// # #[derive(Table)]
    /// # #[table(name = "Music", pk = "pk", sk = "sk")]
    /// # struct Music;
    /// let json = Music::DEFINITION.create_table_json("Music");
    /// assert_eq!(json["BillingMode"], "PAY_PER_REQUEST");
    /// assert_eq!(json["KeySchema"][0]["KeyType"], "HASH");
    /// ```
    pub fn create_table_json(&self, table_name: &str) -> Value {
        let attribute_definitions: Vec<Value> = self
            .attribute_definitions()
            .iter()
            .map(|a| json!({ "AttributeName": a.name, "AttributeType": a.kind.code() }))
            .collect();
        let mut key_schema = vec![json!({ "AttributeName": self.partition_key, "KeyType": "HASH" })];
        if let Some(sort_key) = self.sort_key {
            key_schema.push(json!({ "AttributeName": sort_key, "KeyType": "RANGE" }));
        }
        let mut definition = json!({
            "TableName": table_name,
            "AttributeDefinitions": attribute_definitions,
            "KeySchema": key_schema,
        });
        let throughput = self.billing.throughput_json();
        match &throughput {
            Some(throughput) => {
                definition["BillingMode"] = json!("PROVISIONED");
                definition["ProvisionedThroughput"] = throughput.clone();
            }
            None => definition["BillingMode"] = json!("PAY_PER_REQUEST"),
        }
        for (local, key) in [(false, "GlobalSecondaryIndexes"), (true, "LocalSecondaryIndexes")] {
            let indexes: Vec<Value> = self
                .indexes
                .iter()
                .filter(|index| index.local == local)
                .map(|index| {
                    let mut value = json!({
                        "IndexName": index.name,
                        "KeySchema": index.key_schema_json(),
                        "Projection": { "ProjectionType": index.projection.code() },
                    });
                    if let IndexProjection::Include(attributes) = index.projection {
                        value["Projection"]["NonKeyAttributes"] = json!(attributes);
                    }
                    // A local index shares the table's throughput.
                    if let Some(throughput) = throughput.as_ref().filter(|_| !local) {
                        value["ProvisionedThroughput"] = throughput.clone();
                    }
                    if let Some(warm) = index.warm_throughput.filter(|_| !local) {
                        value["WarmThroughput"] = warm.to_json();
                    }
                    value
                })
                .collect();
            if !indexes.is_empty() {
                definition[key] = json!(indexes);
            }
        }
        if let Some(warm) = self.warm_throughput {
            definition["WarmThroughput"] = warm.to_json();
        }
        if let Some(view) = self.stream {
            definition["StreamSpecification"] =
                json!({ "StreamEnabled": true, "StreamViewType": view.code() });
        }
        if self.deletion_protection {
            definition["DeletionProtectionEnabled"] = json!(true);
        }
        if !self.tags.is_empty() {
            let tags: Vec<Value> =
                self.tags.iter().map(|(key, value)| json!({ "Key": key, "Value": value })).collect();
            definition["Tags"] = json!(tags);
        }
        definition
    }
}

impl TableDefinition {
    /// The `update-time-to-live` input that turns on time to live for table `table_name` (as
    /// `aws dynamodb update-time-to-live --cli-input-json` takes it), when the table declares a
    /// `ttl` attribute; [`crate::Db::create_table`] sends it itself.
    ///
    /// ```
    /// use dynashard::Table;
    ///
    /// #[derive(Table)]
    /// #[table(name = "Sessions", pk = "pk", ttl = "expires_at")]
    /// struct Sessions;
    ///
    /// let json = Sessions::DEFINITION.time_to_live_json("Sessions").unwrap();
    /// assert_eq!(json["TimeToLiveSpecification"]["AttributeName"], "expires_at");
    /// ```
    pub fn time_to_live_json(&self, table_name: &str) -> Option<Value> {
        let attribute = self.ttl?;
        Some(json!({
            "TableName": table_name,
            "TimeToLiveSpecification": { "AttributeName": attribute, "Enabled": true },
        }))
    }

    /// The `update-continuous-backups` input that turns on point-in-time recovery for table
    /// `table_name`, when the table declares it; [`crate::Db::create_table`] sends it itself.
    ///
    /// ```
    /// use dynashard::Table;
    ///
    /// #[derive(Table)]
    /// #[table(name = "Ledger", pk = "pk", point_in_time_recovery)]
    /// struct Ledger;
    ///
    /// let json = Ledger::DEFINITION.continuous_backups_json("Ledger").unwrap();
    /// assert_eq!(json["PointInTimeRecoverySpecification"]["PointInTimeRecoveryEnabled"], true);
    /// ```
    pub fn continuous_backups_json(&self, table_name: &str) -> Option<Value> {
        self.point_in_time_recovery.then(|| {
            json!({
                "TableName": table_name,
                "PointInTimeRecoverySpecification": { "PointInTimeRecoveryEnabled": true },
            })
        })
    }
}

impl IndexDefinition {
    fn key_schema_json(&self) -> Vec<Value> {
        let hash = self.partition_key.iter().map(|a| json!({ "AttributeName": a.name, "KeyType": "HASH" }));
        let range = self.sort_key.iter().map(|a| json!({ "AttributeName": a.name, "KeyType": "RANGE" }));
        hash.chain(range).collect()
    }
}

impl WarmThroughput {
    /// As `CreateTable` takes it.
    fn to_json(self) -> Value {
        let mut value = json!({});
        if let Some(reads) = self.reads_per_second {
            value["ReadUnitsPerSecond"] = json!(reads);
        }
        if let Some(writes) = self.writes_per_second {
            value["WriteUnitsPerSecond"] = json!(writes);
        }
        value
    }
}

impl Billing {
    fn throughput_json(&self) -> Option<Value> {
        match self {
            Billing::PayPerRequest => None,
            Billing::Provisioned { read, write } => {
                Some(json!({ "ReadCapacityUnits": read, "WriteCapacityUnits": write }))
            }
        }
    }
}

/// Fails unless DynamoDB takes `name` as a table name: 3 to 255 characters of `a-z A-Z 0-9 _ - .`
/// (what the `Table` derive checks of a declared name, for a name given at run time).
pub(crate) fn check_name(name: &str) -> crate::error::Result<()> {
    let reason = if name.len() < 3 {
        "shorter than 3 characters"
    } else if name.len() > 255 {
        "longer than 255 characters"
    } else if !name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')) {
        "a character other than a-z, A-Z, 0-9, `_`, `-` and `.`"
    } else {
        return Ok(());
    };
    Err(crate::error::Error::InvalidTableName { name: name.chars().take(300).collect(), reason })
}
