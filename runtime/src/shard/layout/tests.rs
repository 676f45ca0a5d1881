//! The layout's stored and bound forms, and resharding between layouts.
use super::*;

#[test]
fn targets_are_stored_and_bound_as_before() {
    let json = serde_json::to_string(&Layout::hash(32)).unwrap();
    assert_eq!(json, r#"{"hash":{"shards":32}}"#);
    assert_eq!(serde_json::from_str::<Layout>(&json).unwrap(), Layout::hash(32));
    let range = Layout::range(&Boundaries::from_checked(&["", "m"]));
    let json = serde_json::to_string(&range).unwrap();
    assert_eq!(json, r#"{"range":{"boundaries":["","m"]}}"#);
    assert_eq!(serde_json::from_str::<Layout>(&json).unwrap(), range);
    assert!(serde_json::from_str::<Layout>(r#"{"range":{"boundaries":["a"]}}"#).is_err());
    assert!(serde_json::to_string(&Layout::Random { shards: 2 }).is_err());
    let bound = serde_json::to_string(&Layout::hash(8).binding(None)).unwrap();
    assert_eq!(bound, r#"{"strategy":"hash","shards":8}"#);
    let bound = serde_json::to_string(&Layout::hash(8).binding(Some("ByTitle2"))).unwrap();
    assert_eq!(bound, r#"{"strategy":"resharded","index":"ByTitle2","layout":{"hash":{"shards":8}}}"#);
}

#[test]
fn a_resharding_keeps_the_strategy_and_the_normalization() {
    let boundaries = Boundaries::from_checked(&["", "m"]);
    let ranged = Layout::Range {
        boundaries: Arc::new(boundaries.clone()).into(),
        normalization: Normalization::None,
        overflow: 1,
    };
    let target = ranged.resharded(&Layout::range(&boundaries)).unwrap();
    assert_eq!(target.ordered().map(|(_, normalization)| normalization), Some(Normalization::None));
    assert!(ranged.resharded(&Layout::hash(4)).is_none());
    assert!(Layout::hash(2).resharded(&Layout::range(&boundaries)).is_none());
    assert!(Layout::hash(2).resharded(&Layout::hash(0)).is_none());
    assert!(Layout::hash(2).reshardable() && ranged.reshardable());
    assert!(!Layout::Random { shards: 2 }.reshardable());
}
