//! The layers of a crate's top-level modules: the imports between them, the layering they admit
//! (each module one above the highest it imports), and the layer pictures `ARCHITECTURE.md` draws.

use super::graph::{Crate, Edges};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The imports between the top-level modules of the crate under `src` (its root left out: it
/// declares and re-exports), with the names each takes.
pub fn module_edges(src: &Path) -> Edges {
    let edges = Crate::read(src).expect("the sources read").edges();
    let top = |path: &Path| -> Option<std::path::PathBuf> {
        let relative = path.strip_prefix(src).ok()?;
        let first = relative.iter().next()?.to_string_lossy().trim_end_matches(".rs").to_owned();
        (relative.iter().count() > 1 || !matches!(first.as_str(), "lib" | "main")).then(|| first.into())
    };
    let mut modules = Edges::new();
    for ((from, to), names) in &edges {
        if let (Some(from), Some(to)) = (top(from), top(to)) {
            if from != to {
                modules.entry((from, to)).or_default().extend(names.iter().cloned());
            }
        }
    }
    modules
}

/// The lowest layering `edges` admit: layer 0 imports nothing, each other module sits one above
/// the highest it imports. `None` when the modules import each other in a circle.
pub fn lowest_layers(edges: &Edges, modules: &BTreeSet<String>) -> Option<Vec<Vec<String>>> {
    let mut layer: BTreeMap<String, usize> = BTreeMap::new();
    for _ in 0..=modules.len() {
        let mut changed = false;
        for module in modules {
            let below = edges
                .keys()
                .filter(|(from, _)| from.to_string_lossy() == module.as_str())
                .map(|(_, to)| layer.get(to.to_string_lossy().as_ref()).map_or(0, |at| at + 1))
                .max()
                .unwrap_or(0);
            if layer.get(module) != Some(&below) {
                layer.insert(module.clone(), below);
                changed = true;
            }
        }
        if !changed {
            let mut layers = vec![Vec::new(); layer.values().max().map_or(0, |top| top + 1)];
            for (module, at) in layer {
                layers[at].push(module);
            }
            return Some(layers);
        }
    }
    None
}

/// The layer picture of `crate_dir` in `architecture`: the fenced block after the line
/// `<!-- layers: crate_dir -->`, one layer a line from the top, each line's modules after a `|`.
pub fn drawn_layers(architecture: &str, crate_dir: &str) -> Option<Vec<Vec<String>>> {
    let marker = format!("<!-- layers: {crate_dir} -->");
    let after = architecture.split_once(&marker)?.1;
    let block = after.split_once("```")?.1.split_once('\n')?.1.split_once("```")?.0;
    let mut layers: Vec<Vec<String>> = block
        .lines()
        .filter_map(|line| line.split_once('|'))
        .map(|(_, modules)| modules.split_whitespace().map(str::to_owned).collect())
        .collect();
    layers.reverse();
    Some(layers)
}

/// What is wrong with `drawn` as a layering of `edges` over `modules`: a module missing or drawn
/// twice, an import of a module in the same layer or one above.
pub fn misdrawn(drawn: &[Vec<String>], edges: &Edges, modules: &BTreeSet<String>) -> Vec<String> {
    let mut at = BTreeMap::new();
    let mut found = Vec::new();
    for (layer, names) in drawn.iter().enumerate() {
        for name in names {
            if at.insert(name.clone(), layer).is_some() {
                found.push(format!("{name} is drawn twice"));
            }
        }
    }
    for module in modules.iter().filter(|module| !at.contains_key(*module)) {
        found.push(format!("{module} is not drawn"));
    }
    for module in at.keys().filter(|module| !modules.contains(*module)) {
        found.push(format!("{module} is drawn but is no module"));
    }
    for ((from, to), names) in edges {
        let (from, to) = (from.to_string_lossy(), to.to_string_lossy());
        if let (Some(high), Some(low)) = (at.get(from.as_ref()), at.get(to.as_ref())) {
            if high <= low {
                let names: Vec<&str> = names.iter().map(String::as_str).collect();
                found.push(format!("{from} imports {to} ({}), which is not below it", names.join(", ")));
            }
        }
    }
    found
}

/// The top-level modules of the crate under `src`.
pub fn modules(src: &Path) -> BTreeSet<String> {
    std::fs::read_dir(src)
        .expect("the sources list")
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.is_dir() || path.extension().is_some_and(|extension| extension == "rs"))
        .filter_map(|path| Some(path.file_name()?.to_string_lossy().trim_end_matches(".rs").to_owned()))
        .filter(|name| !matches!(name.as_str(), "lib" | "main" | "tests"))
        .collect()
}

/// `layers` drawn as `ARCHITECTURE.md` draws them, the top layer first.
pub fn draw(layers: &[Vec<String>]) -> String {
    let lines: Vec<String> =
        layers.iter().enumerate().rev().map(|(at, names)| format!("{at:>2} | {}", names.join(" "))).collect();
    lines.join("\n")
}
