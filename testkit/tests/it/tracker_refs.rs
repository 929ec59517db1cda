//! Code and docs never point at the issue tracker: it is not in the repository, so a tracker
//! number tells a reader nothing. Say the requirement, or cite its contract id.

use std::path::{Path, PathBuf};

/// The files that may hold prose for a reader: source, build and doc files, outside `target/`,
/// `node_modules/` and hidden folders other than `.ci` (recordings and captures are data).
fn texts(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if (name.starts_with('.') && name != ".ci") || name == "target" || name == "node_modules" {
            continue;
        }
        if p.is_dir() {
            texts(&p, out);
        } else if p.extension().is_some_and(|x| {
            ["rs", "md", "toml", "yml", "yaml", "py", "mjs", "sh"]
                .contains(&x.to_string_lossy().as_ref())
        }) || p
            .parent()
            .and_then(Path::file_name)
            .is_some_and(|d| d == ".ci")
        {
            out.push(p);
        }
    }
}

/// Where `text` says "issue" (any case) then spaces and a number: the byte offsets.
fn tracker_refs(text: &str) -> Vec<usize> {
    let lower = text.to_ascii_lowercase();
    let mut found = Vec::new();
    for (at, _) in lower.match_indices("issue") {
        let rest = &lower[at + "issue".len()..];
        let rest = rest.strip_prefix('s').unwrap_or(rest);
        let after_space = rest.trim_start_matches([' ', '\t']);
        let number = after_space.strip_prefix('#').unwrap_or(after_space);
        let word_start = at == 0 || !lower.as_bytes()[at - 1].is_ascii_alphanumeric();
        if word_start
            && (after_space.len() < rest.len() || number.len() < after_space.len())
            && number.starts_with(|c: char| c.is_ascii_digit())
        {
            found.push(at);
        }
    }
    found
}

#[test]
fn no_code_or_doc_points_at_the_issue_tracker() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    texts(&root, &mut files);
    assert!(
        files.len() > 100,
        "the walk finds the sources: {}",
        files.len()
    );
    let mut found = Vec::new();
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        for at in tracker_refs(&text) {
            let line = text[..at].matches('\n').count() + 1;
            let rel = file
                .strip_prefix(&root)
                .unwrap_or(file)
                .display()
                .to_string();
            found.push(format!("{rel}:{line}"));
        }
    }
    assert!(found.is_empty(), "tracker references: {found:#?}");
}

#[test]
fn a_tracker_reference_is_found_whatever_its_case_and_spacing() {
    // Spelt in pieces, so this file holds no reference itself.
    let text = concat!(
        "see iss",
        "ue 13, Iss",
        "ue  12 item 7, iss",
        "ues 4 and 5, iss",
        "ue #6"
    );
    assert_eq!(tracker_refs(text), [4, 14, 32, 48]);
    let none = concat!(
        "tiss",
        "ue 4, the iss",
        "ue: 12, iss",
        "ue13, an iss",
        "ue of 2 kinds"
    );
    assert!(tracker_refs(none).is_empty());
}
