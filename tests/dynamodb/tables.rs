//! Table declarations: idempotent creation, renaming, and the create-table JSON.

use crate::model::*;
use crate::{db, unique};
use dynashard::{Db, Table};

#[derive(dynashard::Table)]
#[table(
    name = "ProvisionedTests",
    pk = "id",
    sk = "sort",
    read_capacity = 5,
    write_capacity = 3,
    type_attribute = "kind"
)]
#[gsi(name = "ByOwner", pk = "owner", sk = "created")]
struct Provisioned;

#[tokio::test]
async fn create_table_is_idempotent_under_concurrency() {
    let db = db().await;
    let (a, b, c) = tokio::join!(
        db.create_table::<Provisioned>(),
        db.create_table::<Provisioned>(),
        db.create_table::<Provisioned>()
    );
    a.unwrap();
    b.unwrap();
    c.unwrap();
    let table = db.client().describe_table().table_name("ProvisionedTests").send().await.unwrap();
    let table = table.table().unwrap();
    assert_eq!(table.key_schema().len(), 2);
    assert_eq!(table.global_secondary_indexes()[0].index_name(), Some("ByOwner"));
    assert_eq!(table.provisioned_throughput().unwrap().read_capacity_units(), Some(5));
}

#[tokio::test]
async fn table_names_can_be_overridden_per_deployment() {
    let base = db().await;
    let name = unique("Music-stage");
    let db = Db::new(base.client().clone()).with_table_name::<Music>(name.clone());
    assert_eq!(db.table_name::<Music>(), name);
    db.create_table::<Music>().await.unwrap();
    let artist = Artist { name: "Renamed".into(), country: None };
    db.put(&artist).await.unwrap();
    assert_eq!(db.get(Artist::key("Renamed").unwrap()).await.unwrap(), Some(artist));
    let in_default = base.get(Artist::key("Renamed").unwrap()).await.unwrap();
    assert_eq!(in_default, None, "the default-named table is untouched");
    db.delete_table::<Music>().await.unwrap();
    db.delete_table::<Music>().await.unwrap();
}

#[test]
fn create_table_json_matches_the_cli_input_format() {
    let json = Music::DEFINITION.create_table_json("Music");
    assert_eq!(json["TableName"], "Music");
    assert_eq!(json["BillingMode"], "PAY_PER_REQUEST");
    assert_eq!(json["KeySchema"][0], serde_json::json!({"AttributeName": "pk", "KeyType": "HASH"}));
    assert_eq!(json["KeySchema"][1], serde_json::json!({"AttributeName": "sk", "KeyType": "RANGE"}));
    let attributes: Vec<&str> = json["AttributeDefinitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["AttributeName"].as_str().unwrap())
        .collect();
    assert_eq!(attributes, ["pk", "sk", "gsi1pk", "gsi1sk"]);
    let index = &json["GlobalSecondaryIndexes"][0];
    assert_eq!(index["IndexName"], "GSI1");
    assert_eq!(index["Projection"]["ProjectionType"], "ALL");
    assert!(index.get("ProvisionedThroughput").is_none());

    let provisioned = Provisioned::DEFINITION.create_table_json("P");
    assert_eq!(provisioned["BillingMode"], "PROVISIONED");
    assert_eq!(provisioned["ProvisionedThroughput"]["WriteCapacityUnits"], 3);
    assert_eq!(provisioned["GlobalSecondaryIndexes"][0]["ProvisionedThroughput"]["ReadCapacityUnits"], 5);
    assert_eq!(Provisioned::DEFINITION.type_attribute, "kind");
}
