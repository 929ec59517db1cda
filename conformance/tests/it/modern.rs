//! The stateless era's cases (MCP 2026-07-28) end to end: a clean server of both eras passes
//! each, a server with one defect fails exactly that defect's case, the reference adapter
//! (handshake revisions only) says `skip: revision not supported` for each, and a server of the
//! stateless era alone is graded, its handshake-era cases skipped, instead of "would not start".

use crate::support::{case, describe, example, run_json};

/// The cases of the stateless era.
const CASES: [&str; 6] = [
    "lifecycle/2026-07-28/discover",
    "lifecycle/2026-07-28/envelope",
    "lifecycle/2026-07-28/envelope-missing",
    "lifecycle/2026-07-28/initialize-refused",
    "lifecycle/2026-07-28/legacy-refuses-envelope",
    "lifecycle/2026-07-28/stateless",
];

/// The modern toy server example (built beside the toy server).
fn modern_toy() -> String {
    example("modern_toy_server").display().to_string()
}

/// Each stateless-era case's outcome against the modern toy started with `server_args`.
fn outcomes(server_args: &[&str]) -> Vec<(String, String)> {
    let toy = modern_toy();
    let mut server = vec![toy.as_str()];
    server.extend_from_slice(server_args);
    let (out, report) = run_json(&["--case", "lifecycle/2026-07-28/*"], &server);
    let report = report.unwrap_or_else(|| panic!("no report: {}", describe(&out)));
    CASES
        .iter()
        .map(|id| {
            let c = case(&report, id);
            assert_eq!(c["revision"], "2026-07-28", "{c}");
            (
                id.to_string(),
                c["outcome"].as_str().unwrap_or("?").to_owned(),
            )
        })
        .collect()
}

#[test]
fn a_clean_server_of_both_eras_passes_every_stateless_case() {
    for (id, outcome) in outcomes(&[]) {
        assert_eq!(outcome, "pass", "{id}");
    }
}

#[test]
fn each_defect_fails_exactly_its_case() {
    let defects = [
        ("discover-shape", "lifecycle/2026-07-28/discover", "fail"),
        ("envelope-once", "lifecycle/2026-07-28/envelope", "fail"),
        (
            "missing-envelope-accepted",
            "lifecycle/2026-07-28/envelope-missing",
            "info",
        ),
        (
            "initialize-no-data",
            "lifecycle/2026-07-28/initialize-refused",
            "info",
        ),
        (
            "legacy-accepts-envelope",
            "lifecycle/2026-07-28/legacy-refuses-envelope",
            "info",
        ),
        ("stateful", "lifecycle/2026-07-28/stateless", "fail"),
    ];
    for (defect, failing, verdict) in defects {
        for (id, outcome) in outcomes(&["--defect", defect]) {
            let want = if id == failing { verdict } else { "pass" };
            assert_eq!(outcome, want, "--defect {defect}: {id}");
        }
    }
}

#[test]
fn the_reference_adapter_skips_the_stateless_cases() {
    let (out, report) = run_json(&["--case", "lifecycle/2026-07-28/*"], &[]);
    let report = report.unwrap_or_else(|| panic!("no report: {}", describe(&out)));
    for id in CASES {
        let c = case(&report, id);
        assert_eq!(c["outcome"], "skip", "{c}");
        assert_eq!(c["reason"], "revision not supported", "{c}");
    }
}

#[test]
fn a_server_of_the_stateless_era_alone_is_graded_not_refused() {
    // It refuses initialize with -32022 even as a connection's first request: discovery falls
    // back to server/discover in the envelope instead of "would not start" (exit 2).
    let toy = modern_toy();
    let (out, report) = run_json(&[], &[toy.as_str(), "--only-modern"]);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let report = report.unwrap_or_else(|| panic!("no report: {}", describe(&out)));
    for id in CASES {
        let c = case(&report, id);
        if id == "lifecycle/2026-07-28/legacy-refuses-envelope" {
            assert_eq!(c["reason"], "no handshake revision supported", "{c}");
        } else {
            assert_eq!(c["outcome"], "pass", "{c}");
        }
    }
    assert_eq!(
        case(&report, "lifecycle/initialize/revisions")["outcome"],
        "pass"
    );
    for id in [
        "tools/list/shape",
        "lifecycle/initialize/version/2025-06-18",
        "resources/read/unknown",
    ] {
        let c = case(&report, id);
        assert_eq!(c["outcome"], "skip", "{c}");
        assert_eq!(c["reason"], "revision not supported", "{c}");
    }
}
