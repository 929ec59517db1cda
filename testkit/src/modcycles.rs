//! Module cycles inside a crate: which sibling modules use each other, directly or around a
//! loop. The workspace's test (`tests/it/module_cycles.rs`) runs [`workspace_cycles`] and fails on
//! any, so the layering stays what the compiler cannot check across one crate's modules.
//!
//! The reading is lexical, which is enough for this code base's style: a module's edges are the
//! `crate::…`, `super::…` and `self::…` paths in its code (comments, strings and character
//! literals removed; `use` groups such as `crate::{a, b::C}` expanded), each resolved to the
//! deepest module it names. A module using an item of an ancestor or a descendant is not an
//! edge (a parent declares its children and they use its items); an edge between two other
//! modules is lifted to the two siblings under their nearest common ancestor, so `a::x` using
//! `b::y` is the edge `a → b`. A cycle is a strongly connected group of two or more siblings.
//! An item re-exported by an ancestor (`crate::Item` defined in `crate::a`) counts as the
//! ancestor's, so it can hide an edge; say such paths through the defining module.

use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::path::{Path, PathBuf};

/// A module path inside one crate: `[]` is the crate root, `["engine", "driver"]` its child's
/// child.
pub type ModPath = Vec<String>;

/// One crate's modules and their code: each module's own text (inline child modules are
/// modules of their own).
#[derive(Debug, Default)]
pub struct Crate {
    /// The crate's name for reports (its root file).
    pub name: String,
    /// Every module's code (comments, strings and literals blanked).
    pub modules: BTreeMap<ModPath, String>,
}

/// A cycle: the crate, the parent module and the siblings that reach each other.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cycle {
    /// The crate's root file.
    pub krate: String,
    /// The modules in the cycle, as `a::b` paths, sorted.
    pub modules: Vec<String>,
}

impl std::fmt::Display for Cycle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.krate, self.modules.join(" <-> "))
    }
}

/// Every module cycle in the crates of the workspace at `repo`: each member's `src/lib.rs`,
/// `src/main.rs`, `src/bin/*.rs` and `tests/*/main.rs`, with the modules they declare.
pub fn workspace_cycles(repo: &Path) -> io::Result<Vec<Cycle>> {
    let mut out = Vec::new();
    for root in crate_roots(repo)? {
        let krate = load_crate(repo, &root)?;
        out.extend(cycles(&krate));
    }
    Ok(out)
}

fn crate_roots(repo: &Path) -> io::Result<Vec<PathBuf>> {
    let manifest = std::fs::read_to_string(repo.join("Cargo.toml"))?;
    let members = manifest
        .split_once("members")
        .and_then(|(_, rest)| rest.split_once('['))
        .and_then(|(_, rest)| rest.split_once(']'))
        .map(|(list, _)| list)
        .unwrap_or_default();
    let mut roots = Vec::new();
    for member in members.split(',').map(|m| m.trim().trim_matches('"')) {
        if member.is_empty() {
            continue;
        }
        let dir = repo.join(member);
        for rel in ["src/lib.rs", "src/main.rs"] {
            let p = dir.join(rel);
            if p.is_file() {
                roots.push(p);
            }
        }
        for sub in ["src/bin", "tests"] {
            let Ok(entries) = std::fs::read_dir(dir.join(sub)) else {
                continue;
            };
            for e in entries {
                let p = e?.path();
                if p.extension().is_some_and(|x| x == "rs") {
                    roots.push(p);
                } else if p.join("main.rs").is_file() {
                    roots.push(p.join("main.rs"));
                }
            }
        }
    }
    roots.sort();
    Ok(roots)
}

/// Reads the crate whose root file is `root`, following `mod name;` declarations (and
/// `#[path = "…"]`).
pub fn load_crate(repo: &Path, root: &Path) -> io::Result<Crate> {
    let mut krate = Crate {
        name: root
            .strip_prefix(repo)
            .unwrap_or(root)
            .display()
            .to_string(),
        ..Crate::default()
    };
    let mut todo = vec![(Vec::new(), root.to_path_buf())];
    while let Some((path, file)) = todo.pop() {
        let raw = std::fs::read_to_string(&file)?;
        let paths = path_attributes(&raw);
        let text = blank(&raw);
        // A file `x.rs` keeps its children in `x/`; `mod.rs`, `lib.rs`, `main.rs` in their
        // own directory.
        let dir = match file.file_stem().and_then(|s| s.to_str()) {
            Some("mod" | "lib" | "main") => file.parent().map(Path::to_path_buf),
            _ => file.with_extension("").into(),
        }
        .unwrap_or_default();
        let (own, inline, declared) = split_inline(&text);
        krate.modules.insert(path.clone(), own);
        for (name, code) in inline {
            let mut p = path.clone();
            p.push(name);
            krate.modules.insert(p, code);
        }
        for name in declared {
            let mut p = path.clone();
            p.push(name.clone());
            let child = match paths.get(&name) {
                Some(rel) => file.parent().unwrap_or(Path::new(".")).join(rel),
                None if dir.join(format!("{name}.rs")).is_file() => dir.join(format!("{name}.rs")),
                None => dir.join(&name).join("mod.rs"),
            };
            if child.is_file() {
                todo.push((p, child));
            }
        }
    }
    Ok(krate)
}

/// `#[path = "file"] mod name;` pairs of a file's raw text, by module name.
fn path_attributes(raw: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut rest = raw;
    while let Some(at) = rest.find("#[path = \"") {
        rest = &rest[at + "#[path = \"".len()..];
        let Some((file, after)) = rest.split_once('"') else {
            break;
        };
        let name: String = after
            .split_once("mod ")
            .map(|(_, n)| n.trim_start())
            .unwrap_or_default()
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        out.insert(name, file.to_owned());
        rest = after;
    }
    out
}

/// The cycles among sibling modules of `krate`.
#[must_use]
pub fn cycles(krate: &Crate) -> Vec<Cycle> {
    let known: BTreeSet<&ModPath> = krate.modules.keys().collect();
    let mut edges: BTreeMap<ModPath, BTreeSet<ModPath>> = BTreeMap::new();
    for (from, code) in &krate.modules {
        for target in references(from, code) {
            let to = deepest_module(&target, &known);
            let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
            // Ancestor or descendant (or itself): not an edge.
            if common == from.len() || common == to.len() {
                continue;
            }
            edges
                .entry(from[..=common].to_vec())
                .or_default()
                .insert(to[..=common].to_vec());
        }
    }
    strongly_connected(&edges)
        .into_iter()
        .filter(|group| group.len() > 1)
        .map(|group| Cycle {
            krate: krate.name.clone(),
            modules: group.iter().map(|m| m.join("::")).collect(),
        })
        .collect()
}

/// The longest prefix of `path` that is a module (the crate root at worst).
fn deepest_module(path: &[String], known: &BTreeSet<&ModPath>) -> ModPath {
    (0..=path.len())
        .rev()
        .map(|n| path[..n].to_vec())
        .find(|p| known.contains(p))
        .unwrap_or_default()
}

/// The absolute paths `code` (of module `from`) names through `crate::`, `super::`, `self::`.
fn references(from: &[String], code: &str) -> Vec<ModPath> {
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let starts_word = i == 0 || !is_ident(bytes[i - 1]) && bytes[i - 1] != b':';
        let rest = &code[i..];
        let base = if !starts_word {
            None
        } else if rest.starts_with("crate::") {
            Some((Vec::new(), "crate::".len()))
        } else if rest.starts_with("super::") || rest.starts_with("self::") {
            let mut base = from.to_vec();
            let mut n = 0;
            loop {
                if code[i + n..].starts_with("super::") {
                    base.pop();
                    n += "super::".len();
                } else if code[i + n..].starts_with("self::") {
                    n += "self::".len();
                } else {
                    break;
                }
            }
            Some((base, n))
        } else {
            None
        };
        match base {
            Some((base, n)) => {
                let used = expand(&code[i + n..], &base, &mut out);
                i += n + used.max(1);
            }
            None => i += 1,
        }
    }
    out
}

/// Expands the path tail at the start of `s` (segments, maybe a `{…}` group) under `base`,
/// returning how many bytes it used.
fn expand(s: &str, base: &[String], out: &mut Vec<ModPath>) -> usize {
    let bytes = s.as_bytes();
    let mut path = base.to_vec();
    let mut i = 0;
    loop {
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        if i < bytes.len() && bytes[i] == b'{' {
            let close = matching(s, i);
            for item in split_top(&s[i + 1..close]) {
                expand(item, &path, out);
            }
            return close + 1;
        }
        let start = i;
        while i < bytes.len() && is_ident(bytes[i]) {
            i += 1;
        }
        if i > start {
            path.push(s[start..i].to_owned());
        }
        if s[i..].starts_with("::") {
            i += 2;
        } else {
            out.push(path);
            return i;
        }
    }
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The index of the `}` matching the `{` at `open` (the end of `s` when unmatched).
fn matching(s: &str, open: usize) -> usize {
    let mut depth = 0;
    for (i, b) in s.bytes().enumerate().skip(open) {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
    }
    s.len()
}

/// `a, b::{c, d}, e` split at top-level commas.
fn split_top(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, b) in s.bytes().enumerate() {
        match b {
            b'{' => depth += 1,
            b'}' => depth -= 1,
            b',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

/// The file's own code, its inline modules (`mod tests { … }`, one level, with their code) and
/// its `mod name;` declarations. Inline modules inside inline modules stay in their parent.
fn split_inline(code: &str) -> (String, Vec<(String, String)>, Vec<String>) {
    let mut own = String::with_capacity(code.len());
    let mut inline = Vec::new();
    let mut declared = Vec::new();
    let mut i = 0;
    while i < code.len() {
        let rest = &code[i..];
        let at_word = i == 0 || !is_ident(code.as_bytes()[i - 1]);
        if at_word && let Some(after) = rest.strip_prefix("mod ") {
            let name: String = after
                .trim_start()
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            let skip = after.len() - after.trim_start().len() + name.len();
            let tail = after[skip..].trim_start();
            if !name.is_empty() && tail.starts_with(';') {
                declared.push(name);
                let used = "mod ".len() + skip + (after[skip..].len() - tail.len()) + 1;
                own.push_str(&rest[..used]);
                i += used;
                continue;
            }
            if !name.is_empty() && tail.starts_with('{') {
                let open = i + "mod ".len() + skip + (after[skip..].len() - tail.len());
                let close = matching(code, open);
                inline.push((name, code[open + 1..close].to_owned()));
                i = (close + 1).min(code.len());
                continue;
            }
        }
        let ch = rest.chars().next().unwrap_or(' ');
        own.push(ch);
        i += ch.len_utf8();
    }
    (own, inline, declared)
}

/// `code` with comments, string, byte-string, raw-string and character literals replaced by
/// spaces (line breaks kept), so braces and paths inside them are not read as code.
#[must_use]
pub fn blank(code: &str) -> String {
    let b = code.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    let space = |out: &mut Vec<u8>, s: &[u8]| {
        out.extend(s.iter().map(|&c| if c == b'\n' { b'\n' } else { b' ' }));
    };
    while i < b.len() {
        let rest = &b[i..];
        let end = if rest.starts_with(b"//") {
            rest.iter().position(|&c| c == b'\n').unwrap_or(rest.len())
        } else if rest.starts_with(b"/*") {
            find(rest, b"*/").map_or(rest.len(), |e| e + 2)
        } else if let Some(n) = raw_string_len(rest) {
            n
        } else if rest[0] == b'"' {
            string_len(rest)
        } else if rest[0] == b'\'' {
            char_len(rest).unwrap_or(0)
        } else {
            0
        };
        if end > 0 {
            space(&mut out, &rest[..end]);
            i += end;
        } else {
            out.push(rest[0]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// `r"…"`, `r#"…"#`, `br"…"` at the start of `s` (not after an identifier character).
fn raw_string_len(s: &[u8]) -> Option<usize> {
    let start = if s.starts_with(b"br") {
        2
    } else if s.starts_with(b"r") {
        1
    } else {
        return None;
    };
    let hashes = s[start..].iter().take_while(|&&c| c == b'#').count();
    if s.get(start + hashes) != Some(&b'"') {
        return None;
    }
    let body = start + hashes + 1;
    let mut close = vec![b'"'];
    close.extend(std::iter::repeat_n(b'#', hashes));
    find(&s[body..], &close).map(|e| body + e + close.len())
}

fn string_len(s: &[u8]) -> usize {
    let mut i = 1;
    while i < s.len() {
        match s[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    s.len()
}

/// A character literal (`'a'`, `'\n'`, `'{'`), not a lifetime.
fn char_len(s: &[u8]) -> Option<usize> {
    if s.get(1) == Some(&b'\\') {
        let close = s[2..].iter().position(|&c| c == b'\'')?;
        return Some(close + 3);
    }
    // One UTF-8 character, then the closing quote.
    let width = match s.get(1)? {
        c if *c < 0x80 => 1,
        c if *c >= 0xF0 => 4,
        c if *c >= 0xE0 => 3,
        _ => 2,
    };
    (s.get(1 + width) == Some(&b'\'')).then_some(width + 2)
}

/// Tarjan's strongly connected components of `edges`.
fn strongly_connected(edges: &BTreeMap<ModPath, BTreeSet<ModPath>>) -> Vec<Vec<ModPath>> {
    struct State<'a> {
        edges: &'a BTreeMap<ModPath, BTreeSet<ModPath>>,
        index: BTreeMap<&'a ModPath, (usize, usize)>,
        stack: Vec<&'a ModPath>,
        on_stack: BTreeSet<&'a ModPath>,
        next: usize,
        out: Vec<Vec<ModPath>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a ModPath) {
        s.index.insert(v, (s.next, s.next));
        s.next += 1;
        s.stack.push(v);
        s.on_stack.insert(v);
        for w in s.edges.get(v).into_iter().flatten() {
            if !s.index.contains_key(w) {
                visit(s, w);
                let low_w = s.index[w].1;
                let e = s.index.get_mut(v).map(|e| &mut e.1);
                if let Some(low) = e {
                    *low = (*low).min(low_w);
                }
            } else if s.on_stack.contains(w) {
                let idx_w = s.index[w].0;
                if let Some(e) = s.index.get_mut(v) {
                    e.1 = e.1.min(idx_w);
                }
            }
        }
        let (idx, low) = s.index[v];
        if idx == low {
            let mut group = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                group.push(w.clone());
                if w == v {
                    break;
                }
            }
            group.sort();
            s.out.push(group);
        }
    }
    let mut s = State {
        edges,
        index: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        next: 0,
        out: Vec::new(),
    };
    let nodes: BTreeSet<&ModPath> = edges.keys().chain(edges.values().flatten()).collect();
    for v in nodes {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn krate(mods: &[(&str, &str)]) -> Crate {
        Crate {
            name: "test".into(),
            modules: mods
                .iter()
                .map(|(p, code)| {
                    let path = p
                        .split("::")
                        .filter(|s| !s.is_empty())
                        .map(str::to_owned)
                        .collect();
                    (path, blank(code))
                })
                .collect(),
        }
    }

    #[test]
    fn two_siblings_using_each_other_are_a_cycle() {
        let k = krate(&[
            ("", "mod a; mod b;"),
            ("a", "use crate::b::Thing;"),
            ("b", "use super::a::{Other, More};"),
        ]);
        assert_eq!(
            cycles(&k),
            vec![Cycle {
                krate: "test".into(),
                modules: vec!["a".into(), "b".into()],
            }]
        );
    }

    #[test]
    fn a_loop_through_a_third_module_and_nested_children_is_found() {
        let k = krate(&[
            ("", ""),
            ("a", ""),
            ("a::x", "use crate::b::y::Y;"),
            ("b", ""),
            ("b::y", "fn f() { crate::c::g(); }"),
            ("c", "use crate::{a::x, d};"),
            ("d", ""),
        ]);
        let found = cycles(&k);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].modules, vec!["a", "b", "c"]);
    }

    #[test]
    fn parents_children_comments_and_strings_are_not_edges() {
        let k = krate(&[
            ("", "mod a; mod b; use a::A; pub struct Root;"),
            ("a", "use crate::Root; use super::b::B;"),
            (
                "b",
                "// crate::a::A\nconst S: &str = \"crate::a::A\"; const C: char = '{'; fn f<'x>() {}",
            ),
            ("b::inner", "use super::super::b::B; use self::deeper::D;"),
        ]);
        assert_eq!(cycles(&k), Vec::new());
    }

    #[test]
    fn inline_modules_are_modules_of_their_own() {
        let (own, inline, declared) = split_inline(&blank(
            "mod a;\n#[cfg(test)]\nmod tests {\n    use super::*;\n    fn f() { if x { } }\n}\nfn after() {}\n",
        ));
        assert_eq!(declared, vec!["a".to_owned()]);
        assert_eq!(inline.len(), 1);
        assert_eq!(inline[0].0, "tests");
        assert!(inline[0].1.contains("use super::*;"));
        assert!(own.contains("fn after()"));
        assert!(!own.contains("use super::*"));
    }

    #[test]
    fn blanking_keeps_lines_and_code() {
        let text = "let s = r#\"{\"#; // }\nlet c = '\\'';\nlet t = b\"}\";";
        let b = blank(text);
        assert_eq!(b.lines().count(), text.lines().count());
        assert!(!b.contains('{') && !b.contains('}'));
        assert!(b.contains("let c ="));
    }
}
