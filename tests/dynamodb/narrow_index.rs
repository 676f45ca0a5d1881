//! A live index narrower than its declaration (created by hand, or changed since): reads of it
//! say so, naming the index and the attribute it lacks, instead of taking its items for items of
//! no type.

use crate::unique;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType, Projection,
    ProjectionType, ScalarAttributeType,
};
use dynashard::ops::TableDifference;
use dynashard::{Db, Entity, Error, Table};
use futures::TryStreamExt;
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "NarrowIndexTests", pk = "pk", sk = "sk")]
#[gsi(Wide(pk = "wide_pk", sk = "wide_sk"))]
struct Notes;

#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = Notes, pk = "{author}", sk = "note#{n}")]
#[gsi(Wide(pk = "{author}", sk = "{n}"))]
struct Note {
    author: String,
    n: u32,
}

/// The table as declared, but its index created keys-only.
async fn narrow_table(db: &Db, name: &str) {
    let key =
        |name: &str, kind| KeySchemaElement::builder().attribute_name(name).key_type(kind).build().unwrap();
    let string = |name: &str| {
        AttributeDefinition::builder()
            .attribute_name(name)
            .attribute_type(ScalarAttributeType::S)
            .build()
            .unwrap()
    };
    db.client()
        .create_table()
        .table_name(name)
        .set_attribute_definitions(Some(["pk", "sk", "wide_pk", "wide_sk"].map(string).to_vec()))
        .key_schema(key("pk", KeyType::Hash))
        .key_schema(key("sk", KeyType::Range))
        .global_secondary_indexes(
            GlobalSecondaryIndex::builder()
                .index_name("Wide")
                .key_schema(key("wide_pk", KeyType::Hash))
                .key_schema(key("wide_sk", KeyType::Range))
                .projection(Projection::builder().projection_type(ProjectionType::KeysOnly).build())
                .build()
                .unwrap(),
        )
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .await
        .unwrap();
}

fn narrower(error: &Error) -> bool {
    matches!(error, Error::IndexNarrowerThanDeclared { index, attribute } if index == "Wide" && attribute == "_type")
}

#[tokio::test]
async fn reads_of_an_index_narrower_than_declared_say_so() {
    let name = unique("Narrow");
    let db = crate::db().await.with_table_name::<Notes>(&name).expect("a valid table name");
    narrow_table(&db, &name).await;
    let author = unique("author");
    let notes: Vec<Note> = (0..5).map(|n| Note { author: author.clone(), n }).collect();
    db.batch_put(&notes).await.unwrap();

    let read: Result<Vec<Note>, Error> = db.stream(Note::query_wide(&author)).try_collect().await;
    let error = read.unwrap_err();
    assert!(narrower(&error), "{error:?}");
    assert!(error.to_string().contains("verify_table"), "{error}");
    let skipping: Result<Vec<Note>, Error> =
        db.stream(Note::query_wide(&author).skip_other_types()).try_collect().await;
    assert!(skipping.as_ref().is_err_and(narrower), "not an empty list: {skipping:?}");
    let page = db.page(&Note::query_wide(&author), None).await.unwrap_err();
    assert!(narrower(&page), "{page:?}");
    if crate::backend_has("a count filtering on attributes an index does not project refused") {
        let counted = db.count(&Note::query_wide(&author)).await;
        assert!(counted.as_ref().is_err_and(narrower), "{counted:?}");
    }

    // The base table reads as ever, and the drift check names the difference.
    let read: Vec<Note> = db.stream(Note::query(&author)).try_collect().await.unwrap();
    assert_eq!(read, notes);
    let differences = db.verify_table::<Notes>().await.unwrap();
    assert!(
        differences.iter().any(|difference| matches!(difference, TableDifference::IndexProjection { .. })),
        "{differences:?}"
    );
}
