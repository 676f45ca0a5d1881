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
#[gsi(ByOwner(pk = "owner", sk = "created"))]
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
    let db =
        Db::new(base.client().clone()).with_table_name::<Music>(name.clone()).expect("a valid table name");
    assert_eq!(db.table_name::<Music>(), name);
    db.create_table::<Music>().await.unwrap();
    let artist = Artist { name: "Renamed".into(), country: None };
    db.put(&artist).await.unwrap();
    assert_eq!(db.get(Artist::key("Renamed").unwrap()).await.unwrap(), Some(artist));
    let in_default = base.get(Artist::key("Renamed").unwrap()).await.unwrap();
    assert_eq!(in_default, None, "the default-named table is untouched");
    db.delete_table::<Music>().await.unwrap();
    db.delete_table::<Music>().await.unwrap();
    // A name DynamoDB would refuse is refused where it is given, with the reason.
    for (bad, reason) in [
        ("ab", "shorter than 3"),
        ("music/prod", "a character other than"),
        ("Müsic", "a character other than"),
        (&"x".repeat(256)[..], "longer than 255"),
    ] {
        let error = base.clone().with_table_name::<Music>(bad).unwrap_err();
        assert!(matches!(error, dynashard::Error::InvalidTableName { .. }), "{bad}: {error:?}");
        assert!(error.to_string().contains(reason) && error.is_invalid_input(), "{bad}: {error}");
    }
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

#[derive(dynashard::Table)]
#[table(name = "ProjectionTests", pk = "pk", sk = "sk")]
#[gsi(ByTitle(pk = "title_pk", sk = "title_sk", projection = "keys_only"))]
#[gsi(ByYear(pk = "year_pk", sk = "year_sk", projection = ["year"]))]
#[gsi(Everything(pk = "all_pk", sk = "all_sk"))]
struct Projected;

#[derive(dynashard::Entity, serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq)]
#[entity(table = Projected, pk = "{artist}", sk = "album#{title}")]
#[gsi(ByTitle(pk = "titles", sk = "{title}"))]
#[gsi(ByYear(pk = "years", sk = "{title}"))]
#[gsi(Everything(pk = "all", sk = "{title}"))]
struct ProjectedAlbum {
    artist: String,
    title: String,
    year: u16,
    label: String,
}

#[tokio::test]
async fn indexes_hold_the_attributes_their_projection_names() {
    let db = db().await;
    db.create_table::<Projected>().await.unwrap();
    let described = db.client().describe_table().table_name("ProjectionTests").send().await.unwrap();
    let indexes = described.table.unwrap().global_secondary_indexes.unwrap();
    let projection = |name: &str| {
        let index = indexes.iter().find(|index| index.index_name.as_deref() == Some(name)).unwrap();
        let projection = index.projection.clone().unwrap();
        (
            projection.projection_type.unwrap().as_str().to_owned(),
            projection.non_key_attributes.unwrap_or_default(),
        )
    };
    assert_eq!(projection("ByTitle"), ("KEYS_ONLY".to_owned(), vec![]));
    // The entity-type attribute is always included, so the index's items can be told apart.
    assert_eq!(projection("ByYear"), ("INCLUDE".to_owned(), vec!["year".to_owned(), "_type".to_owned()]));
    assert_eq!(projection("Everything"), ("ALL".to_owned(), vec![]));
    let json = Projected::DEFINITION.create_table_json("ProjectionTests");
    let indexes = json["GlobalSecondaryIndexes"].as_array().unwrap();
    assert_eq!(indexes[0]["Projection"]["ProjectionType"], "KEYS_ONLY");
    assert_eq!(
        indexes[1]["Projection"],
        serde_json::json!({"ProjectionType": "INCLUDE", "NonKeyAttributes": ["year", "_type"]})
    );

    let artist = unique("Projected");
    let album = ProjectedAlbum {
        artist: artist.clone(),
        title: "Leaving Home".into(),
        year: 2007,
        label: "Ultimae".into(),
    };
    db.put(&album).await.unwrap();
    let attributes = |index: &'static str, pk: &'static str| {
        let db = db.clone();
        let artist = artist.clone();
        async move {
            let items = db
                .client()
                .query()
                .table_name("ProjectionTests")
                .index_name(index)
                .key_condition_expression("#p = :p")
                .expression_attribute_names("#p", pk)
                .expression_attribute_values(":p", dynashard::AttributeValue::S(pk_value(index)))
                .send()
                .await
                .unwrap()
                .items
                .unwrap_or_default();
            let item = items
                .into_iter()
                .find(|item| item.get("pk").and_then(|v| v.as_s().ok()) == Some(&artist))
                .unwrap();
            let mut names: Vec<String> = item.into_keys().collect();
            names.sort();
            names
        }
    };
    let keys = ["all_pk", "all_sk", "pk", "sk", "title_pk", "title_sk", "year_pk", "year_sk"];
    let keys_of = |index: &[&str]| -> Vec<String> {
        let mut names: Vec<String> =
            ["pk", "sk"].iter().chain(index).map(|name| (*name).to_owned()).collect();
        names.sort();
        names
    };
    assert_eq!(attributes("ByTitle", "title_pk").await, keys_of(&["title_pk", "title_sk"]), "keys only");
    assert_eq!(
        attributes("ByYear", "year_pk").await,
        keys_of(&["_type", "year", "year_pk", "year_sk"]),
        "keys, year and the entity type"
    );
    let everything = attributes("Everything", "all_pk").await;
    assert!(
        everything.iter().any(|name| name == "label")
            && keys.iter().all(|key| everything.iter().any(|name| name == key))
    );
}

fn pk_value(index: &str) -> String {
    match index {
        "ByTitle" => "titles".into(),
        "ByYear" => "years".into(),
        _ => "all".into(),
    }
}

#[tokio::test]
async fn verify_table_finds_no_difference_in_a_created_table_and_names_each_drift() {
    use dynashard::ops::TableDifference;
    let db = db().await;
    db.create_table::<Projected>().await.unwrap();
    assert_eq!(db.verify_table::<Projected>().await.unwrap(), [], "as create_table made it");
    assert_eq!(db.verify_table::<crate::model::Music>().await.unwrap(), []);

    let missing = db.clone().with_table_name::<Projected>(unique("NoSuchTable")).expect("a valid table name");
    assert_eq!(missing.verify_table::<Projected>().await.unwrap(), [TableDifference::Missing]);

    // A table made by hand: another key schema, no declared index, one undeclared, provisioned.
    use aws_sdk_dynamodb::types::{
        AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType, Projection,
        ProjectionType, ProvisionedThroughput, ScalarAttributeType,
    };
    let name = unique("Drifted");
    let key = |name: &str, kind: KeyType| {
        KeySchemaElement::builder().attribute_name(name).key_type(kind).build().unwrap()
    };
    let attribute = |name: &str, kind: ScalarAttributeType| {
        AttributeDefinition::builder().attribute_name(name).attribute_type(kind).build().unwrap()
    };
    let throughput =
        || ProvisionedThroughput::builder().read_capacity_units(3).write_capacity_units(4).build().unwrap();
    db.client()
        .create_table()
        .table_name(&name)
        .attribute_definitions(attribute("pk", ScalarAttributeType::S))
        .attribute_definitions(attribute("title_pk", ScalarAttributeType::N))
        .attribute_definitions(attribute("old_pk", ScalarAttributeType::S))
        .key_schema(key("pk", KeyType::Hash))
        .global_secondary_indexes(
            GlobalSecondaryIndex::builder()
                .index_name("ByTitle")
                .key_schema(key("title_pk", KeyType::Hash))
                .projection(Projection::builder().projection_type(ProjectionType::All).build())
                .provisioned_throughput(throughput())
                .build()
                .unwrap(),
        )
        .global_secondary_indexes(
            GlobalSecondaryIndex::builder()
                .index_name("Old")
                .key_schema(key("old_pk", KeyType::Hash))
                .projection(Projection::builder().projection_type(ProjectionType::KeysOnly).build())
                .provisioned_throughput(throughput())
                .build()
                .unwrap(),
        )
        .billing_mode(BillingMode::Provisioned)
        .provisioned_throughput(throughput())
        .send()
        .await
        .unwrap();
    let drifted = db.clone().with_table_name::<Projected>(name).expect("a valid table name");
    let found: Vec<String> =
        drifted.verify_table::<Projected>().await.unwrap().iter().map(ToString::to_string).collect();
    assert_eq!(
        found,
        [
            "key schema is (pk), declared (pk, sk)",
            "attribute `title_pk` is of type N, declared S",
            "index `ByTitle` has key schema (title_pk), declared (title_pk, title_sk)",
            "index `ByTitle` projects ALL, declared KEYS_ONLY",
            "index `ByYear` does not exist",
            "index `Everything` does not exist",
            "index `Old` is not declared",
            "billing is provisioned (3 read, 4 write units), declared on demand",
        ]
    );
}

#[derive(dynashard::Table)]
#[table(
    name = "DeclaredTests",
    pk = "pk",
    sk = "sk",
    stream = "new_and_old_images",
    deletion_protection,
    tags = ["team=music", "env=test"]
)]
struct Declared;

#[tokio::test]
async fn streams_deletion_protection_and_tags_are_created_and_verified() {
    use dynashard::ops::TableDifference;
    let db = db().await;
    db.create_table::<Declared>().await.unwrap();
    assert_eq!(db.verify_table::<Declared>().await.unwrap(), [], "as declared");
    let described = db.client().describe_table().table_name("DeclaredTests").send().await.unwrap();
    let table = described.table.unwrap();
    assert_eq!(table.deletion_protection_enabled(), Some(true));
    let deleted = db.delete_table::<Declared>().await;
    assert!(deleted.is_err(), "deletion protection refuses: {deleted:?}");
    let json = Declared::DEFINITION.create_table_json("DeclaredTests");
    assert_eq!(json["StreamSpecification"]["StreamViewType"], "NEW_AND_OLD_IMAGES");
    assert_eq!(json["DeletionProtectionEnabled"], true);
    assert_eq!(json["Tags"][0], serde_json::json!({"Key": "team", "Value": "music"}));

    // The same table, seen as one declared without any of it.
    let plain = db.clone().with_table_name::<Projected>("DeclaredTests").expect("a valid table name");
    let found = plain.verify_table::<Projected>().await.unwrap();
    assert!(
        found.contains(&TableDifference::Stream { declared: None, found: Some("NEW_AND_OLD_IMAGES".into()) })
    );
    assert!(found.contains(&TableDifference::DeletionProtection { declared: false }), "{found:?}");
    // DynamoDB Local keeps no tags, so they are not compared here (the unit test covers them).
}
