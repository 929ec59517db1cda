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

// The README's test command holds a test of every contract id (a rule the full tier alone checks
// would go unchecked in the edit-compile-test loop): `testkit::evidence::tier` reads which tests
// are fast. An id no test can check is exempt with its written reason (`NOT_TESTABLE`).
#[test]
fn every_contract_id_has_a_fast_tier_test() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root");
    let contract = std::fs::read_to_string(repo.join("docs/contract.md")).expect("contract");
    let fast = testkit::evidence::tier::fast_cited(repo).expect("fast-tier citations");
    let missing: Vec<String> = testkit::evidence::contract_ids(&contract)
        .into_iter()
        .filter(|id| !fast.contains(id))
        .filter(|id| !testkit::evidence::NOT_TESTABLE.iter().any(|(n, _)| n == id))
        .collect();
    assert!(
        missing.is_empty(),
        "contract ids no fast-tier test cites: {}",
        missing.join(", ")
    );
}
