//! Compile-time behaviour of `#[derive(Entity)]` and `#[derive(Table)]`: what they accept, and
//! the error each invalid declaration gets, at its span.
//!
//! Regenerate the expected output with `TRYBUILD=overwrite cargo test --test ui`.

#[test]
fn ui() {
    // trybuild builds in a project of its own under the target directory, where the repository's
    // `.cargo/config.toml` does not apply when that directory lies outside the checkout: without
    // this, every case that links would carry full debug info of the AWS SDK (gigabytes).
    std::env::set_var("CARGO_PROFILE_DEV_DEBUG", "false");
    let t = trybuild::TestCases::new();
    t.pass("tests/ui/pass/*.rs");
    t.compile_fail("tests/ui/fail/*/*.rs");
}
