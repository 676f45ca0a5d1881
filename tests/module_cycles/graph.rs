//! A crate's files as modules, the imports between them (each name followed through the
//! re-exports that hand it on, to the file that defines it), and the circles they make.

use super::source::{defines, inline_modules, named_paths, strip, Named};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// One source file: its module path and its stripped text.
struct File {
    path: PathBuf,
    module: Vec<String>,
    text: String,
    named: Vec<Named>,
    inline: Vec<(usize, usize)>,
}

/// The files of one crate, by module path.
pub struct Crate {
    files: Vec<File>,
    by_module: HashMap<Vec<String>, usize>,
}

/// An import of one file from another, with the names it takes.
pub type Edges = BTreeMap<(PathBuf, PathBuf), BTreeSet<String>>;

impl Crate {
    /// The crate whose sources are under `src` (`lib.rs` or `main.rs` its root; directory
    /// modules, no `#[path]`).
    pub fn read(src: &Path) -> std::io::Result<Crate> {
        let mut files = Vec::new();
        let mut stack = vec![src.to_path_buf()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir)? {
                let path = entry?.path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|extension| extension == "rs") {
                    // Unit tests are not layers: they may import what imports them. A `main.rs`
                    // beside a `lib.rs` is a crate of its own, which uses the library's face.
                    let binary = path == src.join("main.rs") && src.join("lib.rs").exists();
                    if binary || path.iter().any(|part| part == "tests" || part == "tests.rs") {
                        continue;
                    }
                    let relative = path.strip_prefix(src).unwrap_or(&path);
                    let mut module: Vec<String> = relative
                        .iter()
                        .map(|part| part.to_string_lossy().trim_end_matches(".rs").to_owned())
                        .collect();
                    if matches!(module.last().map(String::as_str), Some("mod" | "lib" | "main")) {
                        module.pop();
                    }
                    let text = strip(&std::fs::read_to_string(&path)?);
                    let (named, inline) = (named_paths(&text), inline_modules(&text));
                    files.push(File { path, module, text, named, inline });
                }
            }
        }
        files.sort_by(|a, b| a.path.cmp(&b.path));
        let by_module = files.iter().enumerate().map(|(index, file)| (file.module.clone(), index)).collect();
        Ok(Crate { files, by_module })
    }

    /// Every import between two of its files, and the names it takes. A `pub use` hands a name
    /// on (the module's face) and imports nothing: what names it is followed to where it is
    /// defined.
    pub fn edges(&self) -> Edges {
        let mut edges = Edges::new();
        for file in &self.files {
            for named in file.named.iter().filter(|named| !named.public) {
                let Some(absolute) = self.absolute(file, named) else { continue };
                let mut seen = BTreeSet::new();
                let target = self.resolve(&absolute, &mut seen);
                if let Some(target) = target.filter(|target| self.files[*target].path != file.path) {
                    let name = named.segments.last().cloned().unwrap_or_default();
                    let key = (file.path.clone(), self.files[target].path.clone());
                    edges.entry(key).or_default().insert(if named.glob { "*".into() } else { name });
                }
            }
        }
        edges
    }

    /// Every import of a module below the crate root that takes a name the root re-exports
    /// (`crate::Db`, or `super::Db` from a top-level module): the file and the name. The root's
    /// re-exports are the crate's face for its users; inside the crate a module imports the
    /// module that defines a name, so that its layer shows in its imports.
    pub fn through_root(&self) -> Vec<(PathBuf, String)> {
        let Some(root) = self.by_module.get(&Vec::new()).map(|at| &self.files[*at]) else {
            return Vec::new();
        };
        let outside =
            |named: &&Named| !root.inline.iter().any(|(start, end)| (*start..*end).contains(&named.at));
        let re_exported: BTreeSet<&str> =
            root.named.iter().filter(outside).filter_map(|named| named.binds.as_deref()).collect();
        let mut found = Vec::new();
        for file in self.files.iter().filter(|file| !file.module.is_empty()) {
            for named in file.named.iter().filter(|named| !named.public) {
                let Some(absolute) = self.absolute(file, named) else { continue };
                let Some(first) = absolute.first() else { continue };
                if !self.by_module.contains_key(std::slice::from_ref(first))
                    && re_exported.contains(first.as_str())
                {
                    found.push((file.path.clone(), first.clone()));
                }
            }
        }
        found.sort();
        found.dedup();
        found
    }

    /// The path `named` names in `file`, from the crate root; `None` for another crate's, or one
    /// inside the file's own inline modules.
    fn absolute(&self, file: &File, named: &Named) -> Option<Vec<String>> {
        let inline = file.inline.iter().filter(|(start, end)| (*start..*end).contains(&named.at)).count();
        let mut segments = named.segments.iter().map(String::as_str).peekable();
        let mut module: Vec<String> = match segments.peek().copied() {
            Some("crate") => {
                segments.next();
                Vec::new()
            }
            Some("self") => {
                if inline > 0 {
                    return None;
                }
                segments.next();
                file.module.clone()
            }
            Some("super") => {
                let mut module = file.module.clone();
                let mut inline = inline;
                while segments.peek() == Some(&"super") {
                    segments.next();
                    if inline > 0 {
                        inline -= 1;
                    } else {
                        module.pop()?;
                    }
                }
                if inline > 0 {
                    return None;
                }
                module
            }
            Some(first) => {
                // A path from the current module: a child's (or an extern crate's, not followed).
                let mut child = file.module.clone();
                child.push(first.to_owned());
                if inline > 0 || !self.by_module.contains_key(&child) {
                    return None;
                }
                file.module.clone()
            }
            None => return None,
        };
        module.extend(segments.map(str::to_owned));
        Some(module)
    }

    /// The file that defines what `path` (from the crate root) names, following the `use`
    /// declarations that hand names on; `None` when no file of the crate does.
    fn resolve(&self, path: &[String], seen: &mut BTreeSet<Vec<String>>) -> Option<usize> {
        if !seen.insert(path.to_vec()) {
            return None;
        }
        let mut module = Vec::new();
        for (index, segment) in path.iter().enumerate() {
            let mut child = module.clone();
            child.push(segment.clone());
            if self.by_module.contains_key(&child) {
                module = child;
                continue;
            }
            let file = &self.files[*self.by_module.get(&module)?];
            let rest = &path[index + 1..];
            let outside =
                |named: &&Named| !file.inline.iter().any(|(start, end)| (*start..*end).contains(&named.at));
            let bound =
                file.named.iter().filter(outside).find(|named| named.binds.as_deref() == Some(segment));
            if let Some(bound) = bound {
                let mut target = self.absolute(file, bound)?;
                target.extend(rest.iter().cloned());
                return self.resolve(&target, seen);
            }
            if defines(&file.text, segment) {
                return self.by_module.get(&module).copied();
            }
            for glob in file.named.iter().filter(outside).filter(|named| named.glob) {
                let Some(mut target) = self.absolute(file, glob) else { continue };
                target.extend(path[index..].iter().cloned());
                if let Some(found) = self.resolve(&target, seen) {
                    return Some(found);
                }
            }
            return None;
        }
        self.by_module.get(&module).copied()
    }
}

/// The circles of `edges`: each set of two files or more that import each other, in order.
pub fn circles(edges: &Edges) -> Vec<Vec<PathBuf>> {
    let nodes: BTreeSet<&PathBuf> = edges.keys().flat_map(|(from, to)| [from, to]).collect();
    let nodes: Vec<&PathBuf> = nodes.into_iter().collect();
    let index: HashMap<&PathBuf, usize> = nodes.iter().enumerate().map(|(at, node)| (*node, at)).collect();
    let mut next: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    for (from, to) in edges.keys() {
        next[index[from]].push(index[to]);
    }
    // Tarjan's strongly connected components.
    struct Search {
        next: Vec<Vec<usize>>,
        order: Vec<Option<usize>>,
        low: Vec<usize>,
        stack: Vec<usize>,
        on_stack: Vec<bool>,
        counter: usize,
        found: Vec<Vec<usize>>,
    }
    fn visit(search: &mut Search, node: usize) {
        search.order[node] = Some(search.counter);
        search.low[node] = search.counter;
        search.counter += 1;
        search.stack.push(node);
        search.on_stack[node] = true;
        for at in 0..search.next[node].len() {
            let to = search.next[node][at];
            match search.order[to] {
                None => {
                    visit(search, to);
                    search.low[node] = search.low[node].min(search.low[to]);
                }
                Some(order) if search.on_stack[to] => search.low[node] = search.low[node].min(order),
                Some(_) => {}
            }
        }
        if Some(search.low[node]) == search.order[node] {
            let mut component = Vec::new();
            while let Some(top) = search.stack.pop() {
                search.on_stack[top] = false;
                component.push(top);
                if top == node {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort_unstable();
                search.found.push(component);
            }
        }
    }
    let count = nodes.len();
    let mut search = Search {
        next,
        order: vec![None; count],
        low: vec![0; count],
        stack: Vec::new(),
        on_stack: vec![false; count],
        counter: 0,
        found: Vec::new(),
    };
    for node in 0..count {
        if search.order[node].is_none() {
            visit(&mut search, node);
        }
    }
    let mut circles: Vec<Vec<PathBuf>> = search
        .found
        .into_iter()
        .map(|component| component.into_iter().map(|at| nodes[at].clone()).collect())
        .collect();
    circles.sort();
    circles
}
