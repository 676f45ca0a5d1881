//! Reading a Rust source file as far as its imports go: comments and literals blanked out, the
//! `use` declarations as paths with the names they bind, the paths written in code, and the
//! inline modules each position lies in.

/// One path a file names: where it is, its segments (`crate`, `super` and `self` included), and
/// the name it binds in the module (`None`: a path in code, or a glob).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Named {
    pub at: usize,
    pub segments: Vec<String>,
    pub binds: Option<String>,
    pub glob: bool,
    /// A `pub` (or `pub(...)`) `use`: a name the module hands on, not one it uses.
    pub public: bool,
}

/// `text` with comments, string and character literals replaced by spaces (lines kept), so that
/// nothing in them reads as a path.
pub fn strip(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    let blank = |out: &mut String, c: char| out.push(if c == '\n' { '\n' } else { ' ' });
    while at < chars.len() {
        let c = chars[at];
        let next = chars.get(at + 1).copied();
        if c == '/' && next == Some('/') {
            while at < chars.len() && chars[at] != '\n' {
                at += 1;
                out.push(' ');
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while at < chars.len() {
                if chars[at] == '/' && chars.get(at + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    at += 2;
                } else if chars[at] == '*' && chars.get(at + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    at += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, chars[at]);
                    at += 1;
                }
            }
        } else if c == 'r' && (next == Some('#') || next == Some('"')) && !ident_char(prev(&chars, at)) {
            // A raw string: r"..." or r#"..."#.
            let mut hashes = 0;
            let mut end = at + 1;
            while chars.get(end) == Some(&'#') {
                hashes += 1;
                end += 1;
            }
            if chars.get(end) != Some(&'"') {
                out.push(c);
                at += 1;
                continue;
            }
            end += 1;
            loop {
                match chars.get(end) {
                    None => break,
                    Some('"') if (1..=hashes).all(|n| chars.get(end + n) == Some(&'#')) => {
                        end += 1 + hashes;
                        break;
                    }
                    _ => end += 1,
                }
            }
            for &skipped in &chars[at..end.min(chars.len())] {
                blank(&mut out, skipped);
            }
            at = end;
        } else if c == '"' {
            out.push(' ');
            at += 1;
            while at < chars.len() && chars[at] != '"' {
                if chars[at] == '\\' {
                    blank(&mut out, chars[at]);
                    at += 1;
                }
                if at < chars.len() {
                    blank(&mut out, chars[at]);
                    at += 1;
                }
            }
            out.push(' ');
            at += 1;
        } else if c == '\'' {
            // A character literal ('a', '\n', '\u{1F600}'), or a lifetime ('a), kept.
            let end = if next == Some('\\') {
                (at + 2..chars.len()).find(|&end| chars[end] == '\'').map(|end| end + 1)
            } else if chars.get(at + 2) == Some(&'\'') {
                Some(at + 3)
            } else {
                None
            };
            match end {
                Some(end) => {
                    for &skipped in &chars[at..end] {
                        blank(&mut out, skipped);
                    }
                    at = end;
                }
                None => {
                    out.push(c);
                    at += 1;
                }
            }
        } else {
            out.push(c);
            at += 1;
        }
    }
    out
}

fn prev(chars: &[char], at: usize) -> char {
    if at == 0 {
        ' '
    } else {
        chars[at - 1]
    }
}

fn ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The spans of the inline modules (`mod name { ... }`) of stripped `text`.
pub fn inline_modules(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut spans = Vec::new();
    let mut open: Vec<(usize, usize)> = Vec::new(); // (start, depth it opened at)
    let mut depth = 0usize;
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'{' => {
                if opens_module(text, at) {
                    open.push((at, depth));
                }
                depth += 1;
            }
            b'}' => {
                depth = depth.saturating_sub(1);
                if open.last().is_some_and(|(_, opened)| *opened == depth) {
                    if let Some((start, _)) = open.pop() {
                        spans.push((start, at));
                    }
                }
            }
            _ => {}
        }
        at += 1;
    }
    spans
}

/// Whether the `{` at `at` opens an inline module: `mod name {`.
fn opens_module(text: &str, at: usize) -> bool {
    let before = text[..at].trim_end();
    let name_start = before.rfind(|c: char| !ident_char(c)).map_or(0, |index| index + 1);
    let keyword = before[..name_start].trim_end();
    name_start < before.len()
        && keyword.ends_with("mod")
        && !keyword[..keyword.len() - 3].ends_with(ident_char)
}

/// The paths stripped `text` names: those of its `use` declarations and those in code that start
/// with `crate`, `super` or `self`.
pub fn named_paths(text: &str) -> Vec<Named> {
    let mut found = Vec::new();
    let mut uses: Vec<(usize, usize)> = Vec::new();
    for (start, _) in text.match_indices("use") {
        let before = text[..start].chars().next_back().unwrap_or(' ');
        let after = text[start + 3..].chars().next().unwrap_or(' ');
        if ident_char(before) || !after.is_whitespace() {
            continue;
        }
        let Some(length) = text[start..].find(';') else { continue };
        let tree = &text[start + 3..start + length];
        uses.push((start, start + length));
        let mut trees = Vec::new();
        use_tree(tree, Vec::new(), &mut trees);
        let line = text[..start].rsplit_once('\n').map_or(&text[..start], |(_, line)| line);
        let public = line.trim_start().starts_with("pub");
        for (segments, binds, glob) in trees {
            found.push(Named { at: start, segments, binds, glob, public });
        }
    }
    for root in ["crate::", "super::", "self::"] {
        for (start, _) in text.match_indices(root) {
            let before = text[..start].chars().next_back().unwrap_or(' ');
            if ident_char(before)
                || before == ':'
                || uses.iter().any(|(from, to)| (*from..*to).contains(&start))
            {
                continue;
            }
            let segments = code_path(&text[start..]);
            found.push(Named { at: start, segments, binds: None, glob: false, public: false });
        }
    }
    found
}

/// The segments of the path at the start of `text` (`crate::a::b::C`), up to the first thing
/// that is not a segment.
fn code_path(text: &str) -> Vec<String> {
    let mut segments = Vec::new();
    let mut rest = text;
    loop {
        let end = rest.find(|c: char| !ident_char(c)).unwrap_or(rest.len());
        if end == 0 {
            break;
        }
        segments.push(rest[..end].to_owned());
        rest = &rest[end..];
        match rest.strip_prefix("::") {
            Some(more) => rest = more,
            None => break,
        }
    }
    segments
}

/// The paths of the use tree `tree` under `prefix`: each with the name it binds, or a glob.
fn use_tree(tree: &str, prefix: Vec<String>, out: &mut Vec<(Vec<String>, Option<String>, bool)>) {
    let tree = tree.trim();
    if let Some(inner) = tree.strip_prefix('{').and_then(|rest| rest.strip_suffix('}')) {
        for part in split_top(inner) {
            use_tree(part, prefix.clone(), out);
        }
        return;
    }
    match tree.find("::") {
        Some(index) if !tree[..index].contains('{') => {
            let mut prefix = prefix;
            prefix.push(tree[..index].trim().to_owned());
            use_tree(&tree[index + 2..], prefix, out);
        }
        _ if tree == "*" => out.push((prefix, None, true)),
        _ if tree.is_empty() => {}
        _ => {
            let (path, alias) = match tree.split_once(" as ") {
                Some((path, alias)) => (path.trim(), Some(alias.trim())),
                None => (tree, None),
            };
            let mut segments = prefix;
            if path != "self" {
                segments.push(path.to_owned());
            }
            let binds = alias.unwrap_or_else(|| segments.last().map_or("", String::as_str)).to_owned();
            out.push((segments, (binds != "_").then_some(binds), false));
        }
    }
}

/// `text` split at its commas outside braces.
fn split_top(text: &str) -> Vec<&str> {
    let (mut parts, mut depth, mut start) = (Vec::new(), 0, 0);
    for (index, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&text[start..index]);
                start = index + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

/// Whether stripped `text` defines an item named `name` itself.
pub fn defines(text: &str, name: &str) -> bool {
    const KINDS: [&str; 10] =
        ["fn", "struct", "enum", "trait", "type", "const", "static", "union", "mod", "macro_rules!"];
    text.match_indices(name).any(|(start, _)| {
        let after = text[start + name.len()..].chars().next().unwrap_or(' ');
        if ident_char(after) || text[..start].chars().next_back().is_some_and(ident_char) {
            return false;
        }
        let before = text[..start].trim_end();
        KINDS.iter().any(|kind| {
            before.ends_with(kind)
                && !before[..before.len() - kind.len()].chars().next_back().is_some_and(ident_char)
        })
    })
}
