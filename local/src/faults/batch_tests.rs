use super::*;
use rand::SeedableRng;
use serde_json::json;

fn put(id: u32) -> Value {
    json!({"PutRequest": {"Item": {"pk": {"S": format!("item-{id}")}}}})
}

fn write_body(tables: &[(&str, u32)]) -> Vec<u8> {
    let items: Map<String, Value> = tables
        .iter()
        .map(|(table, count)| (table.to_string(), Value::Array((0..*count).map(put).collect())))
        .collect();
    serde_json::to_vec(&json!({"RequestItems": items, "ReturnConsumedCapacity": "TOTAL"})).unwrap()
}

fn entries_of(kind: BatchKind, tables: &Value) -> Vec<(String, Value)> {
    let mut all = Vec::new();
    for (table, request) in tables.as_object().into_iter().flatten() {
        let mut request = request.clone();
        for entry in kind.entries(&mut request).into_iter().flatten() {
            all.push((table.clone(), entry.clone()));
        }
    }
    all.sort_by_key(|(table, entry)| format!("{table}{entry}"));
    all
}

#[test]
fn write_split_keeps_and_withholds_a_partition_of_the_requests() {
    let body = write_body(&[("A", 5), ("B", 3)]);
    let original: Value = serde_json::from_slice(&body).unwrap();
    for seed in 0..40 {
        let mut rng = StdRng::seed_from_u64(seed);
        let split =
            split(BatchKind::Write, &body, &mut rng).unwrap_or_else(|| panic!("seed {seed}: no split"));
        let remaining: Value = serde_json::from_slice(&split.remaining.unwrap()).unwrap();
        assert_eq!(remaining["ReturnConsumedCapacity"], "TOTAL");
        let kept = entries_of(BatchKind::Write, &remaining["RequestItems"]);
        let withheld = entries_of(BatchKind::Write, &Value::Object(split.withheld.unprocessed.clone()));
        assert!(!kept.is_empty() && !withheld.is_empty());
        assert_eq!(withheld.len(), split.withheld.count());
        for table in remaining["RequestItems"].as_object().into_iter().flat_map(|t| t.values()) {
            assert!(!table.as_array().is_some_and(Vec::is_empty), "no table is left with an empty list");
        }
        let mut together = [kept, withheld].concat();
        together.sort_by_key(|(table, entry)| format!("{table}{entry}"));
        assert_eq!(together, entries_of(BatchKind::Write, &original["RequestItems"]));
    }
}

#[test]
fn a_single_entry_is_withheld_whole() {
    let body = write_body(&[("A", 1)]);
    let mut rng = StdRng::seed_from_u64(0);
    let split = split(BatchKind::Write, &body, &mut rng).expect("a split");
    assert_eq!(split.remaining, None);
    let response: Value = serde_json::from_slice(&all_unprocessed(split.withheld).unwrap()).unwrap();
    assert_eq!(response, json!({"UnprocessedItems": {"A": [put(0)]}}));
}

#[test]
fn get_split_keeps_the_other_request_fields() {
    let keys: Vec<Value> = (0..6).map(|i| json!({"pk": {"S": format!("k{i}")}})).collect();
    let request = json!({"RequestItems": {"T": {"Keys": keys, "ProjectionExpression": "#p", "ConsistentRead": true,
        "ExpressionAttributeNames": {"#p": "pk"}}}});
    let body = serde_json::to_vec(&request).unwrap();
    let mut rng = StdRng::seed_from_u64(5);
    let split = split(BatchKind::Get, &body, &mut rng).expect("a split");
    let returned = &split.withheld.unprocessed["T"];
    assert_eq!(returned["ProjectionExpression"], "#p");
    assert_eq!(returned["ConsistentRead"], true);
    assert_eq!(returned["ExpressionAttributeNames"]["#p"], "pk");
    let remaining: Value = serde_json::from_slice(&split.remaining.unwrap()).unwrap();
    assert_eq!(remaining["RequestItems"]["T"]["ConsistentRead"], true);
    let kept = remaining["RequestItems"]["T"]["Keys"].as_array().map_or(0, Vec::len);
    assert_eq!(kept + split.withheld.count(), 6);
}

#[test]
fn merge_extends_what_the_response_already_lists() {
    let withheld = Withheld {
        kind: BatchKind::Get,
        unprocessed: json!({"T": {"Keys": [{"pk": {"S": "b"}}], "ConsistentRead": true}, "U": {"Keys": [{"pk": {"S": "c"}}]}})
            .as_object()
            .cloned()
            .unwrap(),
        count: 2,
    };
    let response = json!({"Responses": {"T": []}, "UnprocessedKeys": {"T": {"Keys": [{"pk": {"S": "a"}}], "ConsistentRead": true}},
        "ConsumedCapacity": [{"TableName": "T", "CapacityUnits": 1.0}]});
    let merged = merge(&serde_json::to_vec(&response).unwrap(), withheld).unwrap();
    let merged: Value = serde_json::from_slice(&merged).unwrap();
    assert_eq!(merged["UnprocessedKeys"]["T"]["Keys"], json!([{"pk": {"S": "a"}}, {"pk": {"S": "b"}}]));
    assert_eq!(merged["UnprocessedKeys"]["U"]["Keys"], json!([{"pk": {"S": "c"}}]));
    assert_eq!(merged["ConsumedCapacity"][0]["TableName"], "T");
}

#[test]
fn merge_rejects_a_body_that_is_not_an_object() {
    let withheld = Withheld { kind: BatchKind::Write, unprocessed: Map::new(), count: 0 };
    assert!(matches!(merge(b"[]", withheld.clone()), Err(FaultError::ResponseBody { .. })));
    assert!(matches!(merge(b"not json", withheld), Err(FaultError::ResponseBody { .. })));
}

#[test]
fn requests_without_entries_are_left_alone() {
    let mut rng = StdRng::seed_from_u64(0);
    assert_eq!(split(BatchKind::Write, b"{\"RequestItems\":{}}", &mut rng), None);
    assert_eq!(split(BatchKind::Write, b"garbage", &mut rng), None);
    assert_eq!(split(BatchKind::Get, b"{\"RequestItems\":{\"T\":{\"Keys\":[]}}}", &mut rng), None);
}
