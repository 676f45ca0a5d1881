//! Writes the guide (`dynashard::guide`) from the README's quickstart and the chapters in
//! `guide/`: each chapter becomes the documentation of one module, and each Rust block a doc
//! test, set in the context the chapter gives it.
//!
//! A block's context is the HTML comment on the line before it (invisible where the Markdown is
//! rendered):
//!
//! ```text
//! <!-- guide: name=quickstart; items -->   a block of items, which later blocks can name
//! <!-- guide: in=quickstart -->            sees the items of `quickstart` (and of its context)
//! <!-- guide: args=db: Db, song: Song -->  statements, given these values
//! ```
//!
//! In the doc test, a block of items is the content of a module of its own, inside the modules of
//! its context (so its `main`, if it has one, is not the test's); statements are the body of an
//! `async fn` returning `Result<(), Box<dyn Error>>`. Every block sees `dynashard::*`,
//! `dynashard::shard::*`, serde's derives, `futures::TryStreamExt` and `std::time::Duration`.
//! Everything but the block itself is hidden. Every Rust block of the README must lie in its
//! quickstart, and every chapter file must open with its title: the build fails otherwise, so
//! that none goes uncompiled. Links between chapters (`sharding.md`, `sharding.md#cursors`)
//! become links between the guide's modules; links to files of the repository become links to
//! them on its site.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::PathBuf;

/// The chapters, by heading, and the guide module each becomes: the README's section for the
/// first, `guide/<module>.md` for the others.
const CHAPTERS: &[(&str, &str)] = &[
    ("Quickstart", "quickstart"),
    ("Using it against AWS", "aws"),
    ("Declaring tables", "tables"),
    ("Declaring entities", "entities"),
    ("Safe keys", "keys"),
    ("Operations", "operations"),
    ("Indexes", "indexes"),
    ("Queries", "queries"),
    ("Projections: hydration and views", "projections"),
    ("Sharding", "sharding"),
    ("Dynamic shard counts", "dynamic_counts"),
    ("Resharding online", "resharding"),
    ("Migrations", "migrations"),
    ("Item collections", "collections"),
    ("Change feeds (DynamoDB Streams)", "change_feeds"),
    ("AWS Lambda", "lambda"),
    ("Partition limits, emulated", "partition_limits"),
    ("Observability: capacity, hot keys, spans, heat maps", "consumption"),
    ("Backends for tests and examples", "backends"),
    ("Testing your own code against failures", "faults"),
    ("Errors", "errors"),
];

/// What every block sees.
const PRELUDE: &str = "\
use dynashard::*;
use dynashard::shard::*;
use dynashard::metadata::*;
use serde::{Deserialize, Serialize};
use futures::TryStreamExt;
use std::time::Duration;
";

/// One Rust block and its context.
#[derive(Default)]
struct Block {
    name: Option<String>,
    parent: Option<String>,
    args: String,
    items: bool,
    code: String,
}

/// Where links to files of the repository point in the docs, and where its images are read.
const REPOSITORY_FILES: &str = "https://github.com/dynashard/dynashard/blob/main/";
const REPOSITORY_IMAGES: &str = "https://raw.githubusercontent.com/dynashard/dynashard/main/";

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR")?);
    let out = PathBuf::from(std::env::var("OUT_DIR")?).join("guide");
    println!("cargo:rerun-if-changed=build.rs");
    // The README beside the manifest in a published package, else the workspace's. Only a file
    // that exists is watched: cargo runs the script again on every build for a missing one.
    let candidates = [manifest.join("README.md"), manifest.join("../README.md")];
    let found = candidates.iter().find(|path| path.exists());
    if let Some(path) = found {
        println!("cargo:rerun-if-changed={}", path.display());
    }
    let mut text = found.and_then(|path| std::fs::read_to_string(path).ok()).unwrap_or_default();
    for (heading, module) in &CHAPTERS[1..] {
        let path = manifest.join("guide").join(format!("{module}.md"));
        println!("cargo:rerun-if-changed={}", path.display());
        let chapter = std::fs::read_to_string(&path)?;
        if chapter.lines().next() != Some(&format!("# {heading}")) {
            return Err(format!("{} must open with `# {heading}`", path.display()).into());
        }
        text.push('\n');
        text.push_str(&one_level_down(&chapter));
    }
    std::fs::create_dir_all(&out)?;
    let chapters = chapters(&text);
    for (_, module) in CHAPTERS {
        let text = chapters.get(module).cloned().unwrap_or_default();
        std::fs::write(out.join(format!("{module}.md")), text)?;
    }
    Ok(())
}

/// `chapter` with every heading one level lower, as a section of the README reads.
fn one_level_down(chapter: &str) -> String {
    let mut fenced = false;
    let mut text = String::new();
    for line in chapter.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        }
        if !fenced && line.starts_with('#') {
            text.push('#');
        }
        text.push_str(line);
        text.push('\n');
    }
    text
}

/// The guide's chapters, by module.
fn chapters(text: &str) -> BTreeMap<&'static str, String> {
    let lines: Vec<&str> = text.lines().collect();
    let named = named_blocks(&lines);
    let mut chapters = BTreeMap::new();
    let mut current: Option<&'static str> = None;
    let (mut fence, mut directive): (Option<Block>, Option<&str>) = (None, None);
    for line in lines {
        if let Some(block) = fence.as_mut() {
            if line.trim() == "```" {
                let block = fence.take().unwrap_or_default();
                let text = chapters.entry(current.unwrap_or("")).or_insert_with(String::new);
                text.push_str(&doc_test(&block, &named));
            } else {
                block.code.push_str(line);
                block.code.push('\n');
            }
            continue;
        }
        if let Some(title) = line.strip_prefix("## ") {
            current = CHAPTERS.iter().find(|(heading, _)| *heading == title).map(|(_, module)| *module);
            if let Some(module) = current {
                chapters.insert(module, format!("# {title}\n"));
            }
            continue;
        }
        if let Some(settings) =
            line.trim().strip_prefix("<!-- guide:").and_then(|rest| rest.strip_suffix("-->"))
        {
            directive = Some(settings);
            continue;
        }
        if line.trim() == "```rust" {
            if current.is_none() {
                panic!(
                    "a Rust block outside the guide's chapters (in the README, only the quickstart has them)"
                );
            }
            fence = Some(parse_directive(directive.take().unwrap_or("")));
            continue;
        }
        let Some(module) = current else { continue };
        let text = chapters.entry(module).or_insert_with(String::new);
        match line.strip_prefix("###") {
            Some(rest) => text.push_str(&format!("##{rest}")),
            None if line == "```" && !in_other_fence(text) => text.push_str("```text"),
            None => text.push_str(&links(line)),
        }
        text.push('\n');
    }
    chapters.remove("");
    chapters
}

/// Whether `text` ends inside a fenced block that is not Rust (its closing fence comes next).
fn in_other_fence(text: &str) -> bool {
    text.lines().filter(|line| line.starts_with("```")).count() % 2 == 1
}

/// Links to chapters (`sharding.md`, `sharding.md#cursors`, `#sharding`, the README's
/// `#quickstart`) become links to the guide's modules, other in-page links their text, and links
/// to files of the repository links to them on its site.
fn links(line: &str) -> String {
    let mut line = line.to_owned();
    let mut from = 0;
    while let Some(start) = line[from..].find("](").map(|at| at + from) {
        let Some(length) = line[start..].find(')') else { break };
        let target = line[start + 2..start + length].to_owned();
        let (file, anchor) = target.split_once('#').unwrap_or((&target, ""));
        let file = file.trim_start_matches("../../");
        let chapter = |name: &str| CHAPTERS.iter().find(|(_, module)| format!("{module}.md") == name);
        let by_anchor = || CHAPTERS.iter().find(|(heading, _)| anchor_of(heading) == anchor);
        let module = match file {
            "" | "README.md" => by_anchor(),
            name => chapter(name),
        };
        let replacement = match module {
            Some((_, module)) => Some(format!("](crate::guide::{module})")),
            None if file.is_empty() => None,
            None if target.contains("://") => Some(format!("]({target})")),
            None if line[..start].rfind('[').is_some_and(|open| line[..open].ends_with('!')) => {
                Some(format!("]({REPOSITORY_IMAGES}{file})"))
            }
            None => Some(format!("]({REPOSITORY_FILES}{file})")),
        };
        match replacement {
            Some(replacement) => {
                line.replace_range(start..start + length + 1, &replacement);
                from = start + replacement.len();
            }
            None => {
                let Some(open) = line[..start].rfind('[') else { break };
                let text = line[open + 1..start].to_owned();
                line.replace_range(open..start + length + 1, &text);
                from = open + text.len();
            }
        }
    }
    line
}

/// GitHub's anchor of a heading.
fn anchor_of(heading: &str) -> String {
    heading
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// Every named block of items, by name.
fn named_blocks(lines: &[&str]) -> BTreeMap<String, Block> {
    let mut named = BTreeMap::new();
    let mut index = 0;
    while index < lines.len() {
        if lines[index].trim() != "```rust" {
            index += 1;
            continue;
        }
        let directive = index
            .checked_sub(1)
            .and_then(|previous| lines[previous].trim().strip_prefix("<!-- guide:"))
            .and_then(|rest| rest.strip_suffix("-->"))
            .unwrap_or("");
        let mut block = parse_directive(directive);
        index += 1;
        while index < lines.len() && lines[index].trim() != "```" {
            block.code.push_str(lines[index]);
            block.code.push('\n');
            index += 1;
        }
        if let Some(name) = block.name.clone() {
            named.insert(name, block);
        }
        index += 1;
    }
    named
}

fn parse_directive(settings: &str) -> Block {
    let mut block = Block::default();
    for setting in settings.split(';').map(str::trim).filter(|setting| !setting.is_empty()) {
        match setting.split_once('=') {
            None if setting == "items" => block.items = true,
            Some(("name", value)) => block.name = Some(value.trim().to_owned()),
            Some(("in", value)) => block.parent = Some(value.trim().to_owned()),
            Some(("args", value)) => block.args = value.trim().to_owned(),
            _ => panic!("guide: unknown block setting `{setting}`"),
        }
    }
    block
}

/// The doc test of `block`: its context hidden around it.
fn doc_test(block: &Block, named: &BTreeMap<String, Block>) -> String {
    let mut context = Vec::new();
    let mut parent = block.parent.as_deref();
    while let Some(name) = parent {
        let Some(outer) = named.get(name) else { panic!("guide: no block is named `{name}`") };
        context.push((name, outer));
        parent = outer.parent.as_deref();
    }
    context.reverse();
    let mut text = String::from("```rust,no_run\n");
    let hide = |text: &mut String, code: &str| {
        for line in code.lines() {
            let _ = writeln!(text, "# {line}");
        }
    };
    hide(&mut text, PRELUDE);
    hide(&mut text, "fn main() {}");
    for (name, outer) in &context {
        hide(&mut text, &format!("mod {name} {{\nuse super::*;"));
        hide(&mut text, &outer.code);
    }
    if block.items {
        hide(&mut text, "mod block {\nuse super::*;");
        text.push_str(&block.code);
        hide(&mut text, "}");
    } else {
        hide(
            &mut text,
            &format!("async fn example({}) -> Result<(), Box<dyn std::error::Error>> {{", block.args),
        );
        text.push_str(&block.code);
        hide(&mut text, "Ok(())\n}");
    }
    for _ in &context {
        hide(&mut text, "}");
    }
    text.push_str("```\n");
    text
}
