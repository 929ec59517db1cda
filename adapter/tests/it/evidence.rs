//! `docs/evidence.md` is what `testkit::evidence` generates from the tree:
//! which evidence class covers each contract id. BLESS=1 rewrites it, like the goldens.

use std::path::Path;

#[test]
fn docs_evidence_md_is_the_generated_coverage_by_class() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root");
    let path = repo.join("docs/evidence.md");
    let generated = testkit::evidence::generate(repo).expect("generate the evidence summary");
    // Stale: BLESS=1 cargo test -p claude-mcp-adapter --test it -- evidence:: rewrites it.
    testkit::golden::check(&path, &generated);
}

#[test]
fn every_class_covers_some_contract_id() {
    // The classes are real: each has tests citing contract ids.
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root");
    let (_, cov) = testkit::evidence::coverage(repo).expect("coverage");
    for class in testkit::evidence::Class::ALL {
        assert!(
            cov.values().any(|by| by.contains_key(&class)),
            "no test of class {class:?} cites a contract id"
        );
    }
}
