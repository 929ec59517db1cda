//! The default target end to end: `mcp-conformance --strict` with no server command checks the
//! reference adapter (both tool families) wired to fake-claude and fake-cursor-agent under the
//! provider profile, and every MUST passes, the Cursor family's run lifecycle included (C-PROV-3):
//! each `…@cursor` instance must pass, never skip. RUNNER-1: the default target is found next to
//! the runner; RUNNER-10: the `runs/*` cases drive fake-claude on the adapter's PATH.
//! Both binaries must sit next to the runner (`cargo build --workspace`, as the README's main
//! command does); a missing one is a failure, since CI always builds them.

use std::path::PathBuf;

use crate::support::{describe, run_json};

fn sibling(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_mcp-conformance"))
        .parent()
        .expect("bin dir")
        .join(name)
}

#[test]
fn the_reference_adapter_passes_every_must_of_the_provider_profile() {
    for bin in ["claude-mcp-adapter", "fake-claude", "fake-cursor-agent"] {
        assert!(
            sibling(bin).is_file(),
            "{bin} is not next to the runner: build the workspace first (cargo build --workspace)"
        );
    }
    let (out, report) = run_json(&["--strict"], &[]);
    let report = report.unwrap_or_else(|| panic!("no report: {}", describe(&out)));
    assert_eq!(report["profile"], "provider");
    assert_eq!(report["drive_fake"], true);
    assert_eq!(report["server"]["builtin"], true);
    let failed: Vec<String> = report["cases"]
        .as_array()
        .unwrap()
        .iter()
        // A skip is accepted only outside the Cursor family (stale-cursor's timing skip, say);
        // every Cursor instance exists because fake-cursor-agent plays it, so it must pass.
        .filter(|c| {
            let cursor = c["id"].as_str().is_some_and(|id| id.ends_with("@cursor"));
            c["outcome"] != "pass" && (cursor || c["outcome"] != "skip")
        })
        .map(|c| {
            format!(
                "{} {}: expected {:?}, actual {:?}, reason {:?}",
                c["outcome"], c["id"], c["expected"], c["actual"], c["reason"]
            )
        })
        .collect();
    assert!(failed.is_empty(), "not conformant:\n{}", failed.join("\n"));
    let cursor: Vec<&str> = report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["id"].as_str()?.strip_suffix("@cursor"))
        .collect();
    assert_eq!(
        cursor,
        mcp_conformance::mcp::catalogue::families::CURSOR,
        "the Cursor family's run lifecycle ran, case by case"
    );
    // Pinned here too, so a case dropped from the Cursor family is a reviewed change (the run
    // lifecycle runs against each tool family).
    assert_eq!(
        cursor,
        [
            "runs/run/succeeded",
            "runs/run/result-shape",
            "runs/run/stderr-noise",
            "runs/outcome/error-subtype",
            "runs/outcome/missing-final",
            "runs/bounds/oversized-final",
            "runs/bounds/huge-final",
            "runs/bounds/oversized-event",
            "runs/bounds/event-buffer",
            "runs/events/stale-cursor",
            "runs/run/detach",
            "runs/read/failed-run-read-succeeds",
            "runs/list/retained",
            "runs/cancel/cancelled",
            "runs/cancel/already-settled",
            "runs/release/active",
            "runs/release/settled",
            "runs/capacity/active-limit",
            "runs/progress",
            "runs/eof/cancels-runs",
            "runs/sigterm/cancels-runs",
            "runs/args/prompt-empty",
            "runs/args/permission-bypass",
            "runs/args/unknown-argument",
        ]
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    crate::docs::assert_matches_schema(&report);
}
