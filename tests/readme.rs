//! Every Rust code block of README.md compiles.
//!
//! The blocks are put together into one program and compiled with trybuild. Each block becomes a
//! module of its own; an HTML comment on the line before a block (invisible where the README is
//! rendered) places it:
//!
//! ```text
//! <!-- readme: name=quickstart -->            the module's name, for later blocks to name
//! <!-- readme: in=quickstart -->              a module inside `quickstart`: its items are in scope
//! <!-- readme: items -->                      items (declarations), not statements
//! <!-- readme: args=db: Db, song: Song -->    statements, given these values
//! ```
//!
//! Settings are separated by `;`. A block of items is the module's content, so blocks inside it
//! see its declarations; any other block is the body of an `async fn` returning
//! `Result<(), Box<dyn Error>>` (items may appear in a body too). Every module sees
//! `dynashard::*`, `dynashard::shard::*`, serde's derives, `futures::TryStreamExt` and
//! `std::time::Duration`, as the README's readers would have imported them.

use std::collections::BTreeMap;
use std::fmt::Write;

/// One Rust block of the README and where its comment places it.
struct Block {
    name: String,
    parent: Option<String>,
    args: Option<String>,
    items: bool,
    line: usize,
    code: String,
}

fn blocks(readme: &str) -> Vec<Block> {
    let lines: Vec<&str> = readme.lines().collect();
    let mut blocks = Vec::new();
    let mut index = 0;
    while index < lines.len() {
        if lines[index].trim() != "```rust" {
            index += 1;
            continue;
        }
        let start = index + 1;
        let mut end = start;
        while end < lines.len() && lines[end].trim() != "```" {
            end += 1;
        }
        let directive = index
            .checked_sub(1)
            .and_then(|previous| lines[previous].trim().strip_prefix("<!-- readme:"))
            .and_then(|rest| rest.strip_suffix("-->"))
            .unwrap_or("");
        let mut block = Block {
            name: format!("block_line_{start}"),
            parent: None,
            args: None,
            items: false,
            line: start,
            code: lines[start..end].join("\n"),
        };
        for setting in directive.split(';').map(str::trim).filter(|setting| !setting.is_empty()) {
            if setting == "items" {
                block.items = true;
                continue;
            }
            let (key, value) = setting.split_once('=').unwrap_or_else(|| panic!("line {index}: `{setting}`"));
            match key.trim() {
                "name" => block.name = value.trim().to_owned(),
                "in" => block.parent = Some(value.trim().to_owned()),
                "args" => block.args = Some(value.trim().to_owned()),
                other => panic!("README line {index}: unknown setting `{other}`"),
            }
        }
        blocks.push(block);
        index = end + 1;
    }
    blocks
}

fn emit(out: &mut String, block: &Block, children: &BTreeMap<String, Vec<&Block>>) {
    let _ = writeln!(out, "// README.md, line {}", block.line);
    let _ = writeln!(out, "#[allow(unused_imports)] mod {} {{", block.name);
    let _ = writeln!(out, "use super::*;");
    if block.items {
        let _ = writeln!(out, "{}", block.code);
    } else {
        let args = block.args.as_deref().unwrap_or("");
        let _ = writeln!(
            out,
            "pub async fn block({args}) -> ::std::result::Result<(), Box<dyn ::std::error::Error>> {{"
        );
        let _ = writeln!(out, "{}\n#[allow(unreachable_code)] Ok(())\n}}", block.code);
    }
    for child in children.get(&block.name).into_iter().flatten() {
        emit(out, child, children);
    }
    let _ = writeln!(out, "}}");
}

#[test]
fn readme_code_blocks_compile() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).expect("README.md");
    let blocks = blocks(&readme);
    assert!(blocks.len() >= 10, "found only {} Rust blocks", blocks.len());
    let mut children: BTreeMap<String, Vec<&Block>> = BTreeMap::new();
    for block in &blocks {
        if let Some(parent) = &block.parent {
            assert!(
                blocks.iter().any(|other| &other.name == parent),
                "line {}: no block `{parent}`",
                block.line
            );
            children.entry(parent.clone()).or_default().push(block);
        }
    }
    let mut program = String::from(
        "#![allow(warnings)]\n\
         #[allow(unused_imports)] use dynashard::*;\n\
         #[allow(unused_imports)] use dynashard::shard::*;\n\
         #[allow(unused_imports)] use serde::{Deserialize, Serialize};\n\
         #[allow(unused_imports)] use futures::TryStreamExt;\n\
         #[allow(unused_imports)] use std::time::Duration;\n\
         fn main() {}\n",
    );
    for block in blocks.iter().filter(|block| block.parent.is_none()) {
        emit(&mut program, block, &children);
    }
    // Range boundaries files are named as in the examples: `data/...` next to the program.
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("readme");
    std::fs::create_dir_all(dir.join("data")).expect("create the program's directory");
    let boundaries = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/data/album_boundaries_21.json");
    std::fs::copy(boundaries, dir.join("data/album_boundaries_21.json")).expect("copy the boundaries");
    let path = dir.join("readme_blocks.rs");
    std::fs::write(&path, program).expect("write the README's program");
    // No debug info in trybuild's own project, wherever the target directory is (see tests/ui.rs).
    std::env::set_var("CARGO_PROFILE_DEV_DEBUG", "false");
    trybuild::TestCases::new().pass(&path);
}
