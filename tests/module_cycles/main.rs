//! No module of a crate of the workspace imports, through others, a module that imports it: the
//! layers the architecture describes are the layers the code has. Each import is followed through
//! the re-exports that hand its name on, to the file that defines it; comments and literals are
//! not read. Unit-test modules (`tests.rs`, `tests/`) are not layers and are left out. Within a
//! crate, no module takes a name through the crate root's re-exports, and the top-level modules
//! sit in the layers `ARCHITECTURE.md` draws, each importing only the layers below its own.

mod graph;
mod layers;
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

/// The imports of `src`'s modules that take a name through the crate root's re-exports, as text.
fn through_root(src: &Path) -> Vec<String> {
    let krate = Crate::read(src).expect("the sources read");
    krate.through_root().iter().map(|(file, name)| format!("  {}: {name}", file.display())).collect()
}

#[test]
fn no_module_imports_through_the_crate_root() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let found: Vec<String> = CRATES.iter().flat_map(|src| through_root(&root.join(src))).collect();
    assert!(found.is_empty(), "imports through the crate root ({}):\n{}", found.len(), found.join("\n"));
}

#[test]
fn no_crate_of_the_workspace_has_an_import_cycle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let found: Vec<String> = CRATES.iter().flat_map(|src| report(&root.join(src))).collect();
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

#[test]
fn a_name_taken_through_the_root_is_found_and_one_from_its_module_is_not() {
    let dir = sample(
        "root",
        &[
            ("lib.rs", "mod low;\nmod high;\nmod other;\npub use low::Low;\npub const HERE: u8 = 1;\n"),
            ("low.rs", "pub struct Low;\n"),
            ("high.rs", "use crate::Low;\nfn f() -> u8 { crate::HERE }\n"),
            ("other.rs", "use crate::low::Low;\nfn g(low: super::Low) -> crate::low::Low { low }\n"),
        ],
    );
    let found = through_root(&dir);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found[0].contains("high.rs: Low") && found[1].contains("other.rs: Low"), "{found:?}");
}

const CRATES: [&str; 4] = ["runtime/src", "macros/src", "local/src", "cli/src"];

#[test]
fn the_architecture_draws_the_layers_the_imports_make() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let architecture = std::fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    for dir in CRATES {
        let src = root.join(dir);
        let (edges, modules) = (layers::module_edges(&src), layers::modules(&src));
        let Some(lowest) = layers::lowest_layers(&edges, &modules) else {
            let found: Vec<String> = circles(&edges).iter().map(|circle| describe(circle, &edges)).collect();
            panic!("the top-level modules of {dir} import each other:\n{}", found.join("\n"))
        };
        let Some(drawn) = layers::drawn_layers(&architecture, dir) else {
            panic!("ARCHITECTURE.md draws no layers of {dir}; these hold:\n{}", layers::draw(&lowest))
        };
        let wrong = layers::misdrawn(&drawn, &edges, &modules);
        assert!(
            wrong.is_empty(),
            "ARCHITECTURE.md's layers of {dir} are not the code's:\n  {}\nthese hold:\n{}",
            wrong.join("\n  "),
            layers::draw(&lowest)
        );
    }
}

#[test]
fn a_drawing_with_an_import_sideways_or_up_or_a_module_missing_is_wrong() {
    let dir = sample(
        "drawn",
        &[
            ("lib.rs", "mod low;\nmod mid;\nmod high;\n"),
            ("low.rs", "pub struct Low;\n"),
            ("mid/mod.rs", "mod inner;\n"),
            ("mid/inner.rs", "use crate::low::Low;\npub struct Mid(Low);\n"),
            ("high.rs", "use crate::mid::inner::Mid;\n"),
        ],
    );
    let (edges, modules) = (layers::module_edges(&dir), layers::modules(&dir));
    let lowest = layers::lowest_layers(&edges, &modules).expect("layered");
    assert_eq!(layers::draw(&lowest), " 2 | high\n 1 | mid\n 0 | low");
    let text = |picture: &str| format!("<!-- layers: x -->\n```text\n{picture}\n```\n");
    let good = layers::drawn_layers(&text(" 2 | high\n 1 | mid\n 0 | low"), "x").expect("drawn");
    assert!(layers::misdrawn(&good, &edges, &modules).is_empty());
    let loose = layers::drawn_layers(&text(" 5 | high\n 1 | mid\n 0 | low"), "x").expect("drawn");
    assert!(layers::misdrawn(&loose, &edges, &modules).is_empty(), "gaps between layers are fine");
    let flat = layers::drawn_layers(&text(" 1 | high mid\n 0 | low"), "x").expect("drawn");
    assert_eq!(layers::misdrawn(&flat, &edges, &modules), ["high imports mid (Mid), which is not below it"]);
    let short = layers::drawn_layers(&text(" 1 | high\n 0 | mid low"), "x").expect("drawn");
    assert_eq!(layers::misdrawn(&short, &edges, &modules), ["mid imports low (Low), which is not below it"]);
    let missing = layers::drawn_layers(&text(" 1 | high\n 0 | low"), "x").expect("drawn");
    assert_eq!(layers::misdrawn(&missing, &edges, &modules), ["mid is not drawn"]);
}
