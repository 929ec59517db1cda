//! Replays every fuzz corpus and every recorded finding on each `cargo test` (stable Rust):
//! each file of `fuzz/corpus/<target>/` and `fuzz/artifacts/<target>/` goes through the same
//! entry function the libFuzzer binary calls, so a regression or an old crash fails here,
//! without nightly and without libFuzzer.

use std::path::{Path, PathBuf};

fn inputs(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.file_name().is_some_and(|n| n != ".gitkeep"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_corpus_and_finding_replays_without_a_panic() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut replayed = 0;
    for (target, entry) in mcp_fuzz::TARGETS {
        let corpus = inputs(&root.join("corpus").join(target));
        assert!(!corpus.is_empty(), "fuzz/corpus/{target}/ has no seed");
        for path in corpus
            .iter()
            .chain(inputs(&root.join("artifacts").join(target)).iter())
        {
            let data = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let outcome = std::panic::catch_unwind(|| entry(&data));
            assert!(outcome.is_ok(), "{target}: {} panicked", path.display());
            replayed += 1;
        }
    }
    eprintln!("replayed {replayed} inputs");
}

#[test]
fn every_target_has_a_libfuzzer_binary() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (target, _) in mcp_fuzz::TARGETS {
        let bin = root.join("fuzz_targets").join(format!("{target}.rs"));
        assert!(bin.is_file(), "{} is missing", bin.display());
    }
}

#[test]
fn every_shipped_fake_claude_scenario_is_a_scenario_seed() {
    // The `scenario` target's seeds are the shipped scenarios, copied: a scenario added to
    // fake-claude/scenarios/ without its seed would leave its shapes out of the corpus.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let shipped = root.join("../fake-claude/scenarios");
    let seeds = root.join("corpus/scenario");
    let mut checked = 0;
    for path in inputs(&shipped) {
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        let seed = seeds.join(stem);
        let want = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(
            std::fs::read(&seed).ok().as_deref(),
            Some(want.as_slice()),
            "{} is not a seed: cp {} {}",
            path.display(),
            path.display(),
            seed.display()
        );
        checked += 1;
    }
    assert!(checked > 0, "no scenario in {}", shipped.display());
}
