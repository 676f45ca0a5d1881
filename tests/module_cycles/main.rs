//! No module of a crate of the workspace imports, through others, a module that imports it: the
//! layers the architecture describes are the layers the code has. Each import is followed through
//! the re-exports that hand its name on, to the file that defines it; comments and literals are
//! not read. Unit-test modules (`tests.rs`, `tests/`) are not layers and are left out.

mod graph;
mod source;

use graph::{circles, Crate, Edges};
use std::path::Path;

/// The circles of the crate under `src`, each with the imports that make it, as text.
fn report(src: &Path) -> Vec<String> {
    let edges = Crate::read(src).expect("the sources read").edges();
    circles(&edges).iter().map(|circle| describe(circle, &edges)).collect()
}

fn describe(circle: &[std::path::PathBuf], edges: &Edges) -> String {
    let mut lines = vec![format!("{} files import each other:", circle.len())];
    for ((from, to), names) in
        edges.iter().filter(|((from, to), _)| circle.contains(from) && circle.contains(to))
    {
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        lines.push(format!("  {} -> {}: {}", from.display(), to.display(), names.join(", ")));
    }
    lines.join("\n")
}

#[test]
fn no_crate_of_the_workspace_has_an_import_cycle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let found: Vec<String> =
        ["runtime/src", "macros/src", "cli/src"].iter().flat_map(|src| report(&root.join(src))).collect();
    assert!(found.is_empty(), "import cycles:\n{}", found.join("\n"));
}

/// A crate of `files` (path, text) in a fresh directory.
fn sample(name: &str, files: &[(&str, &str)]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("module-cycles-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("a directory");
        std::fs::write(path, text).expect("written");
    }
    dir
}

#[test]
fn a_circle_is_found_through_re_exports_and_code_paths() {
    let dir = sample(
        "circle",
        &[
            ("lib.rs", "mod a;\nmod b;\npub use b::inner::Thing;\n"),
            ("a.rs", "use crate::Thing;\npub struct A;\n"),
            ("b/mod.rs", "pub mod inner;\n"),
            ("b/inner.rs", "pub struct Thing;\nfn make() -> crate::a::A { crate::a::A }\n"),
        ],
    );
    let found = report(&dir);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("a.rs -> ") && found[0].contains("inner.rs: Thing"), "{found:?}");
    assert!(found[0].contains("inner.rs -> ") && found[0].contains("a.rs: A"), "{found:?}");
}

#[test]
fn comments_strings_tests_of_one_file_and_layers_make_no_circle() {
    let dir = sample(
        "layers",
        &[
            ("lib.rs", "mod low;\nmod high;\npub use low::{Low, helper as help};\n"),
            ("low.rs", "/// See [`crate::high::High`].\npub struct Low;\npub fn helper() {}\nconst S: &str = \"crate::high::High\";\n#[cfg(test)]\nmod tests {\n    use super::*;\n    use self::inner::X;\n    mod inner { pub struct X; }\n}\n"),
            ("high.rs", "use super::{Low, help};\npub struct High(Low);\nfn f() { crate::low::helper(); }\n"),
        ],
    );
    assert!(report(&dir).is_empty(), "{:?}", report(&dir));
}
