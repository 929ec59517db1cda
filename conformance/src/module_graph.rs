//! The crate's module graph, read from its sources: no module cycle, and the three folders
//! layered (`core` names neither gate; `mcp` and `acp` never name each other).
//!
//! Every `.rs` file under `src/` (but the binaries) is a module; an edge is a path that names
//! another module (`crate::…`, `super::…`, `self::…`, or a child by its name), taken to the
//! longest module it names. Comments are left out; test code is not (a cycle through a test is
//! still a cycle). Kept small and self-contained on purpose.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Module path (`crate::core::case`) → its source file.
fn modules(src: &Path) -> BTreeMap<String, PathBuf> {
    let mut out = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read src").flatten() {
            let path = entry.path();
            let rel = path.strip_prefix(src).expect("under src").to_path_buf();
            if path.is_dir() {
                if rel != Path::new("bin") {
                    stack.push(path);
                }
                continue;
            }
            // The binary, and this reader (its tests spell paths in strings).
            if path.extension().and_then(|e| e.to_str()) != Some("rs")
                || rel == Path::new("main.rs")
                || rel == Path::new("module_graph.rs")
            {
                continue;
            }
            let mut parts: Vec<String> = rel
                .with_extension("")
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if parts.last().is_some_and(|l| l == "mod" || l == "lib") {
                parts.pop();
            }
            let name = std::iter::once("crate".to_owned())
                .chain(parts)
                .collect::<Vec<_>>()
                .join("::");
            out.insert(name, path);
        }
    }
    out
}

/// The source without comments (line comments and doc comments), split into the file's own
/// module and its inline modules (`mod tests { … }`, one level), each with its name: an inline
/// module is a module of its own (its `super::` is the file's module).
fn code(text: &str) -> Vec<(Option<String>, String)> {
    let text = text
        .lines()
        .map(|l| match l.find("//") {
            Some(i) if !l[..i].contains('"') => &l[..i],
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n");
    let mut own = String::new();
    let mut inline = Vec::new();
    let mut rest = text.as_str();
    while let Some((at, name)) = inline_mod(rest) {
        own.push_str(&rest[..at]);
        let mut depth = 0usize;
        let mut end = rest.len();
        for (i, ch) in rest[at..].char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = at + i + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        inline.push((Some(name), rest[at..end].to_owned()));
        rest = &rest[end..];
    }
    own.push_str(rest);
    std::iter::once((None, own)).chain(inline).collect()
}

/// Where the next inline module (`mod NAME {`) starts, and its name.
fn inline_mod(text: &str) -> Option<(usize, String)> {
    let mut from = 0;
    while let Some(i) = text[from..].find("mod ") {
        let at = from + i;
        let after = &text[at + 4..];
        let name_len = after
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        let boundary = at == 0 || !text.as_bytes()[at - 1].is_ascii_alphanumeric();
        if boundary && name_len > 0 && after[name_len..].trim_start().starts_with('{') {
            return Some((at, after[..name_len].to_owned()));
        }
        from = at + 4;
    }
    None
}

/// The paths a source names: each `a::b::c` run of identifiers (a group `a::{b, c::d}` gives
/// `a::b` and `a::c::d`).
fn paths(code: &str) -> Vec<Vec<String>> {
    let bytes = code.as_bytes();
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if !ident(bytes[i]) || (i > 0 && (ident(bytes[i - 1]) || bytes[i - 1] == b':')) {
            i += 1;
            continue;
        }
        let mut segs = Vec::new();
        let mut j = i;
        loop {
            let start = j;
            while j < bytes.len() && ident(bytes[j]) {
                j += 1;
            }
            segs.push(code[start..j].to_owned());
            if code[j..].starts_with("::{") {
                let close = code[j..].find('}').map_or(code.len(), |c| j + c);
                for item in code[j + 3..close].split(',') {
                    let item: Vec<String> = item
                        .trim()
                        .split("::")
                        .map(|s| s.split_whitespace().next().unwrap_or("").to_owned())
                        .filter(|s| !s.is_empty())
                        .collect();
                    out.push(segs.iter().cloned().chain(item).collect());
                }
                j = close;
                segs.clear();
                break;
            }
            if code[j..].starts_with("::")
                && code[j + 2..].starts_with(|c: char| c.is_alphabetic() || c == '_')
            {
                j += 2;
            } else {
                break;
            }
        }
        if segs.len() > 1 {
            out.push(segs);
        }
        i = j.max(i + 1);
    }
    out
}

/// The edges of the graph: module → the modules it names.
fn graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mods = modules(src);
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (file_module, file) in &mods {
        for (inline, text) in code(&std::fs::read_to_string(file).expect("read module")) {
            let name = &match inline {
                Some(inner) => format!("{file_module}::{inner}"),
                None => file_module.clone(),
            };
            let here: Vec<&str> = name.split("::").collect();
            let targets = edges.entry(name.clone()).or_default();
            for path in paths(&text) {
                let mut base: Vec<String> = match path[0].as_str() {
                    "crate" => vec!["crate".into()],
                    "self" => here.iter().map(|s| (*s).to_owned()).collect(),
                    "super" => here[..here.len() - 1]
                        .iter()
                        .map(|s| (*s).to_owned())
                        .collect(),
                    child if mods.contains_key(&format!("{name}::{child}")) => {
                        let mut b: Vec<String> = here.iter().map(|s| (*s).to_owned()).collect();
                        b.push(child.to_owned());
                        b
                    }
                    _ => continue,
                };
                let mut rest = &path[1..];
                if path[0] == "super" {
                    while rest.first().is_some_and(|s| s == "super") {
                        base.pop();
                        rest = &rest[1..];
                    }
                }
                let mut best = base.join("::");
                for seg in rest {
                    base.push(seg.clone());
                    let candidate = base.join("::");
                    if mods.contains_key(&candidate) {
                        best = candidate;
                    } else {
                        break;
                    }
                }
                if best != *name && mods.contains_key(&best) {
                    targets.insert(best);
                }
            }
        }
    }
    edges
}

/// The strongly connected components with more than one module (Tarjan's algorithm).
fn cycles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct State<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on.insert(v);
        let edges = s.edges;
        for w in edges.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low[v];
                s.low.insert(v, lv.min(lw));
            } else if s.on.contains(w) {
                let iw = s.index[w];
                let lv = s.low[v];
                s.low.insert(v, lv.min(iw));
            }
        }
        if s.low[v] == s.index[v] {
            let mut scc = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on.remove(w);
                scc.push(w.to_owned());
                if w == v {
                    break;
                }
            }
            if scc.len() > 1 {
                scc.sort();
                s.out.push(scc);
            }
        }
    }
    let mut s = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in edges.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.out
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

#[test]
fn no_module_names_a_module_that_names_it_back() {
    let edges = graph(&src());
    let found = cycles(&edges);
    // Each cycle with the edges inside it, to show where to cut.
    let shown: Vec<Vec<String>> = found
        .iter()
        .map(|scc| {
            let mut inside = Vec::new();
            for from in scc {
                for to in edges.get(from).into_iter().flatten() {
                    if scc.contains(to) {
                        inside.push(format!("{from} -> {to}"));
                    }
                }
            }
            inside
        })
        .collect();
    assert!(found.is_empty(), "module cycles: {shown:#?}");
}

#[test]
fn core_names_neither_gate_and_the_gates_never_name_each_other() {
    let edges = graph(&src());
    let top = |m: &str| m.split("::").nth(1).unwrap_or("").to_owned();
    let mut wrong = Vec::new();
    for (from, tos) in &edges {
        for to in tos {
            let (f, t) = (top(from), top(to));
            let allowed = f == t || t == "core" || f.is_empty();
            if !allowed {
                wrong.push(format!("{from} -> {to}"));
            }
        }
    }
    assert!(wrong.is_empty(), "layering broken: {wrong:#?}");
}

#[test]
fn the_reader_sees_cycles_and_paths() {
    let mut edges = BTreeMap::new();
    edges.insert("a".to_owned(), BTreeSet::from(["b".to_owned()]));
    edges.insert("b".to_owned(), BTreeSet::from(["c".to_owned()]));
    edges.insert("c".to_owned(), BTreeSet::from(["a".to_owned()]));
    edges.insert("d".to_owned(), BTreeSet::from(["a".to_owned()]));
    assert_eq!(cycles(&edges), vec![vec!["a", "b", "c"]]);
    let p =
        paths("use crate::core::{case::Case, model};\nlet x = super::super::y::z(); a.b::<T>()");
    assert!(p.contains(&vec![
        "crate".into(),
        "core".into(),
        "case".into(),
        "Case".into()
    ]));
    assert!(p.contains(&vec!["crate".into(), "core".into(), "model".into()]));
    assert!(p.contains(&vec![
        "super".into(),
        "super".into(),
        "y".into(),
        "z".into()
    ]));
    let c = code("use super::a;\n#[cfg(test)]\nmod tests {\n    use super::b; // super::c\n}\n");
    assert_eq!(
        c,
        vec![
            (None, "use super::a;\n#[cfg(test)]\n".to_owned()),
            (
                Some("tests".to_owned()),
                "mod tests {\n    use super::b; \n}".to_owned()
            ),
        ]
    );
}
