//! No module cycle anywhere in the workspace: in every crate (libraries, binaries, test
//! crates), sibling modules do not use each other, directly or around a loop
//! (`testkit::modcycles` says how the modules and their edges are read).

use std::path::Path;

#[test]
fn no_crate_of_the_workspace_has_a_module_cycle() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root");
    let cycles = testkit::modcycles::workspace_cycles(repo).expect("read the workspace");
    let found: Vec<String> = cycles.iter().map(ToString::to_string).collect();
    assert!(
        found.is_empty(),
        "module cycles (move what both sides need into one module, or invert the use):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_check_reads_the_crates_it_claims_to() {
    // The reading must see this very crate's modules, or an empty check would pass.
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root");
    let krate = testkit::modcycles::load_crate(repo, &repo.join("testkit/src/lib.rs"))
        .expect("read testkit");
    let names: Vec<String> = krate.modules.keys().map(|m| m.join("::")).collect();
    for want in ["golden", "modcycles", "modcycles::tests", "standin"] {
        assert!(
            names.iter().any(|n| n == want),
            "{want} missing from {names:?}"
        );
    }
}
