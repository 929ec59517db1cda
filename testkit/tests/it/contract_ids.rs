//! Every contract id cited in the repository's code and docs is defined in `docs/contract.md`
//! (code cites `C-*` ids instead of restating their text, and an id the contract does not
//! define fails here). An id is a token of a defined id's prefix followed by its number
//! (`RUN-8`, `C-T6a`, `T2`, `META-WORK-5`); the contract's own lines define them
//! (`- **ID** …`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use testkit::evidence::{contract_ids, split_id};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The ids the contract defines (`testkit::evidence`: one id grammar for the generator of
/// docs/evidence.md and for this check).
fn defined(contract: &str) -> BTreeSet<String> {
    contract_ids(contract).into_iter().collect()
}

/// The files that may cite ids: tracked Rust and Markdown files outside `target/`.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') || name == "target" || name == "node_modules" {
            continue;
        }
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs" || x == "md") {
            out.push(p);
        }
    }
}

#[test]
fn every_cited_contract_id_is_defined_in_the_contract() {
    let contract_path = root().join("docs/contract.md");
    let contract = std::fs::read_to_string(&contract_path).expect("docs/contract.md");
    let ids = defined(&contract);
    assert!(
        ids.len() > 100,
        "the contract defines its ids: {}",
        ids.len()
    );
    let prefixes: BTreeSet<&str> = ids.iter().filter_map(|i| Some(split_id(i)?.0)).collect();
    let mut files = Vec::new();
    sources(&root(), &mut files);
    let mut undefined: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        let rel = file
            .strip_prefix(root())
            .unwrap_or(file)
            .display()
            .to_string();
        for (n, line) in text.lines().enumerate() {
            let tokens = line.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'));
            for token in tokens.map(|t| t.trim_matches('-')) {
                let Some((prefix, _)) = split_id(token) else {
                    continue;
                };
                if prefixes.contains(prefix) && !ids.contains(token) {
                    undefined
                        .entry(token.to_owned())
                        .or_default()
                        .push(format!("{rel}:{}", n + 1));
                }
            }
        }
    }
    assert!(
        undefined.is_empty(),
        "ids cited but not defined in docs/contract.md: {undefined:#?}"
    );
}

#[test]
fn an_undefined_id_is_caught() {
    let ids = defined("- **RUN-8** x\n- **C-T6a** y\n- **T2** z\n- **X-PAGE** w\n");
    assert_eq!(
        ids.iter().map(String::as_str).collect::<Vec<_>>(),
        ["C-T6a", "RUN-8", "T2", "X-PAGE"]
    );
    assert_eq!(split_id("RUN-9"), Some(("RUN-", "9")));
    assert_eq!(split_id("UTF-8"), Some(("UTF-", "8")));
}
