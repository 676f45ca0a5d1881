//! How an update's actions render, and the values they refuse.

use super::*;

fn render(actions: Actions) -> String {
    actions.render(Vec::new(), None, &mut Placeholders::default()).unwrap().unwrap()
}

#[test]
fn actions_render_into_their_clauses() {
    let n = |v: &str| Ok(AttributeValue::N(v.into()));
    let s = |v: &str| AttributeValue::S(v.into());
    let sets = [SetAttribute { name: "tags", optional: false }];
    let mut actions = Actions::default();
    actions.set(AttributePath::from("tags"), Ok(AttributeValue::L(vec![s("a")])), &sets);
    actions.subtract(
        AttributePath::from("stock"),
        n("2"),
        (super::super::arithmetic::Numeric::headroom(&2u32, true), "u32"),
    );
    actions.extend_list(AttributePath::from("log"), Ok(vec![s("x")]), true);
    actions.change_set(AttributePath::from("moods"), Ok(vec![s("calm")]), false);
    actions.change_set(AttributePath::from("moods"), Ok(vec![]), true);
    actions.remove_at(AttributePath::from("old"), 3);
    assert!(actions.guard(None).is_some(), "an unsigned subtraction is guarded");
    assert_eq!(
        render(actions),
        "SET #ds0 = :ds0, #ds1 = if_not_exists(#ds1, :ds1) - :ds2, #ds2 = list_append(if_not_exists(#ds2, :ds3), :ds4) \
         DELETE #ds4 :ds5 REMOVE #ds3[3]"
    );
}

#[test]
fn an_empty_set_or_none_removes_and_a_bad_value_fails() {
    let sets = [SetAttribute { name: "tags", optional: false }];
    let mut actions = Actions::default();
    actions.set(AttributePath::from("tags"), Ok(AttributeValue::L(vec![])), &sets);
    actions.set(AttributePath::from("note"), Ok(AttributeValue::Null(true)), &sets);
    assert_eq!(render(actions), "REMOVE #ds0, #ds1");
    let mut actions = Actions::default();
    actions.set(AttributePath::from("tags"), Ok(AttributeValue::L(vec![AttributeValue::Bool(true)])), &sets);
    assert!(actions.render(Vec::new(), None, &mut Placeholders::default()).is_err());
}
