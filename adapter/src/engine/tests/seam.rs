//! PROV-1 held by the source, not by convention: the engine's code never names the providers
//! module (`crate::providers`, where claude's and Cursor's specifics live). Its tests may (they
//! build real providers to drive the engine), so test files are left out of the scan.

use std::path::{Path, PathBuf};

/// The engine's non-test source files.
fn engine_sources() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/engine");
    let mut out = Vec::new();
    let mut stack = vec![dir];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("read src/engine") {
            let p = e.expect("dir entry").path();
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            if p.is_dir() {
                // `tests/`: the engine's unit tests.
                if name != "tests" {
                    stack.push(p);
                }
            } else if name.ends_with(".rs") && name != "tests.rs" && !name.ends_with("_tests.rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Where a source text names the providers module, outside its `#[cfg(test)]` tail.
fn provider_imports(text: &str) -> Vec<String> {
    let code = text.split("#[cfg(test)]").next().unwrap_or(text);
    code.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .filter(|l| l.contains("providers::") || l.contains("crate::providers"))
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_engine_never_names_the_providers_module() {
    let files = engine_sources();
    assert!(files.len() > 5, "the scan found the engine: {files:?}");
    for f in files {
        let text = std::fs::read_to_string(&f).expect("read source");
        let hits = provider_imports(&text);
        assert!(
            hits.is_empty(),
            "PROV-1: {} names providers: {hits:?}",
            f.display()
        );
    }
}

#[test]
fn the_scan_sees_an_import_and_ignores_docs_and_test_tails() {
    assert_eq!(
        provider_imports("use crate::providers::claude::Claude;\n").len(),
        1
    );
    assert!(provider_imports("//! see `crate::providers`\nfn f() {}\n").is_empty());
    assert!(provider_imports("fn f() {}\n#[cfg(test)]\nuse crate::providers::x;\n").is_empty());
}
