//! The error each invalid declaration of `#[derive(Entity)]`, `#[derive(Table)]` or
//! `#[derive(Collection)]` gets, at its span: a case a file, its expected output beside it. What
//! the derives accept is `tests/accepted`.
//!
//! Regenerate the expected output with `TRYBUILD=overwrite cargo test -p dynashard-macros --test ui`.

#[test]
fn ui() {
    // Only failing cases: trybuild checks them (`cargo check`), so nothing is linked and no
    // dependency is compiled to machine code in its project of its own.
    trybuild::TestCases::new().compile_fail("tests/ui/fail/*/*.rs");
}
