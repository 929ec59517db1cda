//! Which contract ids the fast tier's tests cite: the README's test command must hold at least
//! one test of every id (the full tier, `CMK_FULL=1`, adds the real peers and the whole-gate
//! matrices; it must not be the only evidence of a rule).
//!
//! A test file is cut into items: a `#[test]` function from the comments and attributes that
//! lead it, or a test-generating macro call at the top level of a `tests/` file (`mutant!(…)`),
//! each up to where the next item's leading block begins. An item is full tier when its head
//! carries the tier's marker (`cfg_attr(not(cmk_full), ignore …)`, a plain `#[ignore]`, or a
//! macro row's `full_tier`). A fast item cites what its text cites; a `tests/` file's text
//! before its first item (its module docs and shared helpers) counts when the file has a fast
//! item. The conformance catalogue counts whole: its cases run against the reference adapter in
//! the fast tier's default-target test.

use std::collections::BTreeSet;
use std::io;
use std::path::Path;

/// Whether `line` opens a test: a `#[test]`-like attribute, or (in a `tests/` file) a macro
/// call at column 0 that generates tests.
fn opens_item(line: &str, in_tests: bool) -> bool {
    let t = line.trim_start();
    if t.starts_with("#[test]") || t.starts_with("#[tokio::test") {
        return true;
    }
    if !in_tests || line.starts_with(char::is_whitespace) {
        return false;
    }
    let Some((name, rest)) = line.split_once('!') else {
        return false;
    };
    name != "macro_rules"
        && !name.is_empty()
        && name.chars().all(|c| c.is_ascii_lowercase() || c == '_')
        && matches!(rest.trim_start().chars().next(), Some('(' | '{'))
}

/// Whether `line` belongs to the block that leads an item (comments and attributes, not the
/// module's own `//!` docs).
fn leads(line: &str) -> bool {
    let t = line.trim_start();
    (t.starts_with("//") && !t.starts_with("//!")) || t.starts_with("#[")
}

/// Whether an item whose text is `item` is full tier: its head (the lines before its `fn`, or a
/// macro row's first two lines) carries the tier's marker.
fn full_tier(item: &[&str]) -> bool {
    let end = item
        .iter()
        .position(|l| l.contains("fn "))
        .map_or(item.len().min(2), |i| i + 1);
    item[..end].iter().any(|l| {
        let t = l.trim_start();
        (t.starts_with("#[") && (t.contains("cmk_full") || t.starts_with("#[ignore")))
            || t.contains("full_tier")
    })
}

/// The text of `text` (the file at repository-relative `rel`) that the fast tier runs: its fast
/// items, and its text before the first item when it is a `tests/` file with a fast item.
#[must_use]
pub fn fast_text(rel: &str, text: &str) -> String {
    if rel.starts_with("conformance/src/mcp/catalogue/") {
        return text.to_owned();
    }
    let in_tests = rel.contains("/tests/");
    let lines: Vec<&str> = text.lines().collect();
    let mut starts = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if opens_item(line, in_tests) {
            let mut s = i;
            while s > 0 && leads(lines[s - 1]) {
                s -= 1;
            }
            if starts.last().is_none_or(|&last| s > last) {
                starts.push(s);
            }
        }
    }
    let mut out = String::new();
    let mut any_fast = false;
    for (n, &s) in starts.iter().enumerate() {
        let e = starts.get(n + 1).copied().unwrap_or(lines.len());
        let item = &lines[s..e];
        if !full_tier(item) {
            any_fast = true;
            out.push_str(&item.join("\n"));
            out.push('\n');
        }
    }
    if in_tests && any_fast {
        let first = starts.first().copied().unwrap_or(lines.len());
        out.push_str(&lines[..first].join("\n"));
    }
    out
}

/// The contract ids that some fast-tier test of the repository at `repo` cites.
pub fn fast_cited(repo: &Path) -> io::Result<BTreeSet<String>> {
    let contract = std::fs::read_to_string(repo.join("docs/contract.md"))?;
    let ids = super::contract_ids(&contract);
    let known: BTreeSet<&str> = ids.iter().map(String::as_str).collect();
    let mut out = BTreeSet::new();
    for file in super::test_files(repo)? {
        if file.extension().is_none_or(|x| x != "rs") {
            continue;
        }
        let rel = file
            .strip_prefix(repo)
            .unwrap_or(&file)
            .to_string_lossy()
            .into_owned();
        let text = std::fs::read_to_string(&file)?;
        out.extend(super::cited(&fast_text(&rel, &text), &known));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "//! Module docs: T1.\n\
        use x;\n\
        \n\
        // T2: a fast test.\n\
        #[test]\n\
        fn fast() { check(\"T3\"); }\n\
        \n\
        // T4: a full-tier test.\n\
        #[test]\n\
        #[cfg_attr(not(cmk_full), ignore = \"full tier: CMK_FULL=1\")]\n\
        fn slow() { check(\"T5\"); }\n\
        \n\
        mutant!(full_tier a_row, \"T6\", [\"x\"]);\n\
        // T7\n\
        mutant!(b_row, \"T8\", [\"x\"]);\n\
        #[test]\n\
        #[ignore = \"opt-in\"]\n\
        fn opt_in() { check(\"T9\"); }\n";

    fn ids(text: &str) -> BTreeSet<String> {
        let known: BTreeSet<&str> = ["T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8", "T9"]
            .into_iter()
            .collect();
        crate::evidence::cited(text, &known)
    }

    #[test]
    fn only_fast_items_and_the_prologue_of_a_tests_file_count() {
        let got = ids(&fast_text("x/tests/it/a.rs", FILE));
        let want: BTreeSet<String> = ["T1", "T2", "T3", "T7", "T8"]
            .into_iter()
            .map(str::to_owned)
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn a_src_file_counts_only_its_tests_and_no_macro_rows() {
        // In `src/` the prologue is product code and a top-level macro call is no test.
        let got = ids(&fast_text("x/src/a.rs", FILE));
        let want: BTreeSet<String> = ["T2", "T3"].into_iter().map(str::to_owned).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn a_file_with_only_full_tier_tests_counts_nothing() {
        let text = "//! T1\n#[test]\n#[cfg_attr(not(cmk_full), ignore = \"x\")]\nfn a() {}\n";
        assert!(ids(&fast_text("x/tests/it/a.rs", text)).is_empty());
    }
}
