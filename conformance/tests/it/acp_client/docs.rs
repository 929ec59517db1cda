//! The client-mode docs name every case with its level and the profiles that grade it, so the
//! page cannot drift from the catalogue.

use std::path::PathBuf;

#[test]
fn every_client_mode_case_is_documented_with_its_level_and_profiles() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/acp-conformance-client.md");
    let doc = std::fs::read_to_string(&path).expect("docs/acp-conformance-client.md");
    for c in mcp_conformance::acp::client::CASES {
        let profiles = if c.levels.cursor_only {
            "cursor"
        } else {
            "client, cursor"
        };
        let row = format!("| `{}` | {} | {profiles} |", c.id, c.levels.name());
        assert!(
            doc.contains(&row),
            "{} lacks the row {row:?}",
            path.display()
        );
    }
}
