//! Local secondary indexes, point-in-time recovery and warm throughput: declared on the table,
//! created by `create_table`, compared by `verify_table`, and local indexes filled and read
//! through entity mappings.

use crate::{db, unique};
use dynashard::ops::TableDifference;
use dynashard::{Db, Entity, Error, Table};
use futures::TryStreamExt;
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(
    name = "LsiTests",
    pk = "pk",
    sk = "sk",
    point_in_time_recovery,
    warm_reads = 12000,
    warm_writes = 4000
)]
#[lsi(ByPlaced(sk = "placed_sk"))]
#[lsi(Flagged(sk = "flag_sk", projection = "keys_only"))]
#[gsi(ByCity(pk = "city_pk", sk = "city_sk", warm_reads = 12000, warm_writes = 4000))]
struct Shipments;

/// A customer's shipments, by id in the table, by placing time in `ByPlaced`, and while flagged
/// in the sparse `Flagged`.
#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = Shipments, pk = "customer#{customer}", sk = "shipment#{id}")]
#[lsi(ByPlaced(sk = "{placed}#{id}"))]
#[sparse_lsi(Flagged(sk = "{flag}#{id}"))]
#[gsi(ByCity(pk = "{city}", sk = "{customer}#{id}"))]
struct Shipment {
    customer: String,
    id: u32,
    placed: u64,
    city: String,
    flag: Option<String>,
}

async fn setup() -> Db {
    let db = db().await;
    db.create_table::<Shipments>().await.expect("create LsiTests");
    db
}

fn shipment(customer: &str, id: u32, placed: u64, flag: Option<&str>) -> Shipment {
    Shipment { customer: customer.to_owned(), id, placed, city: "Oslo".into(), flag: flag.map(str::to_owned) }
}

#[tokio::test]
async fn a_local_index_is_created_filled_and_read_in_its_own_order() {
    let db = setup().await;
    let customer = unique("Lsi");
    let shipments = [
        shipment(&customer, 1, 300, None),
        shipment(&customer, 2, 100, Some("late")),
        shipment(&customer, 3, 200, None),
    ];
    db.batch_put(&shipments).await.unwrap();
    let ids = |found: Vec<Shipment>| found.into_iter().map(|shipment| shipment.id).collect::<Vec<_>>();
    let by_placed: Vec<Shipment> =
        db.stream(Shipment::query_by_placed(&customer)).try_collect().await.unwrap();
    assert_eq!(ids(by_placed), [2, 3, 1], "the local index's order");
    let consistent =
        db.stream(Shipment::query_by_placed(&customer).consistent()).try_collect().await.unwrap();
    assert_eq!(ids(consistent), [2, 3, 1], "strongly consistent reads of a local index");
    let flagged = db.page(&Shipment::query_flagged(&customer).hydrate(), None).await.unwrap();
    assert_eq!(ids(flagged.items), [2], "sparse: only the flagged one");
    let flagged = db.page(&Shipment::query_flagged(&customer).consistent().hydrate(), None).await.unwrap();
    assert_eq!(ids(flagged.items), [2], "hydrated from consistent reads");
    let scanned: Vec<Shipment> =
        db.stream(Shipment::scan().index("ByPlaced").consistent()).try_collect().await.unwrap();
    assert_eq!(
        scanned.iter().filter(|found| found.customer == customer).count(),
        3,
        "a consistent scan of a local index"
    );

    let f = Shipment::fields();
    db.update(Shipment::key(&customer, 1).unwrap())
        .set(f.placed, 50u64)
        .set(f.flag, Some("fragile".to_owned()))
        .await
        .unwrap();
    db.update(Shipment::key(&customer, 2).unwrap()).set(f.flag, None).await.unwrap();
    let by_placed: Vec<Shipment> =
        db.stream(Shipment::query_by_placed(&customer)).try_collect().await.unwrap();
    assert_eq!(ids(by_placed), [1, 2, 3], "an update moves it in the local index");
    let flagged = db.page(&Shipment::query_flagged(&customer).hydrate(), None).await.unwrap();
    assert_eq!(ids(flagged.items), [1], "and in and out of the sparse one");
    let in_city: Vec<Shipment> = db.stream(Shipment::query_by_city("Oslo")).try_collect().await.unwrap();
    assert!(
        in_city.iter().filter(|found| found.customer == customer).count() == 3,
        "the global index still filled"
    );

    let error =
        db.stream(Shipment::query_by_city("Oslo").consistent()).try_collect::<Vec<_>>().await.unwrap_err();
    assert!(matches!(error, Error::InvalidQuery { .. }), "not on a global index: {error:?}");
}

#[tokio::test]
async fn verify_table_compares_local_indexes_and_what_the_endpoint_keeps() {
    let db = setup().await;
    assert_eq!(
        db.verify_table::<Shipments>().await.unwrap(),
        [],
        "as declared (DynamoDB Local keeps no backups or warm throughput)"
    );
    let json = Shipments::DEFINITION.create_table_json("LsiTests");
    assert_eq!(json["LocalSecondaryIndexes"].as_array().map(Vec::len), Some(2));
    assert_eq!(json["LocalSecondaryIndexes"][0]["KeySchema"][0]["AttributeName"], "pk");
    assert_eq!(json["GlobalSecondaryIndexes"].as_array().map(Vec::len), Some(1));
    assert_eq!(json["WarmThroughput"]["WriteUnitsPerSecond"], 4000);
    assert_eq!(json["GlobalSecondaryIndexes"][0]["WarmThroughput"]["ReadUnitsPerSecond"], 12000);
    let backups = Shipments::DEFINITION.continuous_backups_json("LsiTests").unwrap();
    assert_eq!(backups["PointInTimeRecoverySpecification"]["PointInTimeRecoveryEnabled"], true);

    // The same table name declared with the local index global: each kind of drift is named.
    #[derive(Table)]
    #[table(
        name = "LsiTests",
        pk = "pk",
        sk = "sk",
        point_in_time_recovery,
        warm_reads = 12000,
        warm_writes = 4000
    )]
    #[gsi(ByPlaced(pk = "pk", sk = "placed_sk"))]
    #[lsi(Flagged(sk = "flag_sk", projection = "keys_only"))]
    #[gsi(ByCity(pk = "city_pk", sk = "city_sk"))]
    struct Redeclared;
    let differences = db.verify_table::<Redeclared>().await.unwrap();
    assert_eq!(
        differences,
        [TableDifference::IndexKind { index: "ByPlaced".into(), declared_local: false }],
        "{differences:?}"
    );
}
