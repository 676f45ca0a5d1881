//! Compile-time behaviour of `#[derive(Entity)]` and `#[derive(Table)]`: what they accept, and
//! the error each invalid declaration gets, at its span.
//!
//! Regenerate the expected output with `TRYBUILD=overwrite cargo test --test ui`.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("tests/ui/pass/*.rs");
    t.compile_fail("tests/ui/fail/*/*.rs");
}
