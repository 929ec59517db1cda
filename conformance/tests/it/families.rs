//! Tool families (C-PROV-3): a server listing `claude.run…` and `cursor.run…` has each family's
//! run lifecycle graded against that family's own tools and fake (fake-cursor-agent on the
//! server's PATH as `cursor-agent`), instances of the other families named `ID@FAMILY`.

use crate::mutants::adapter;
use crate::support::{case, describe, outcome, run_json};

fn fake_claude() -> String {
    std::path::PathBuf::from(env!("CARGO_BIN_EXE_mcp-conformance"))
        .with_file_name("fake-claude")
        .display()
        .to_string()
}

#[test]
fn a_family_instance_is_selected_by_its_id_and_graded_on_its_own_family() {
    let (out, report) = run_json(&["--case", "runs/run/succeeded@cursor"], &[]);
    let report = report.unwrap_or_else(|| panic!("no report: {}", describe(&out)));
    // Besides the cross-cutting cases every shard keeps, only the instance ran.
    let crosscut: Vec<&str> = mcp_conformance::mcp::catalogue::all()
        .iter()
        .filter(|c| c.needs.crosscut())
        .map(|c| c.id)
        .collect();
    let ids: Vec<&str> = report["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .filter_map(|c| c["id"].as_str())
        .filter(|id| !crosscut.contains(id))
        .collect();
    assert_eq!(ids, ["runs/run/succeeded@cursor"], "{}", describe(&out));
    assert_eq!(outcome(&report, "runs/run/succeeded@cursor"), "pass");
    // The instance's transcript shows the Cursor family's tool and fake-cursor-agent's selector.
    let transcript = case(&report, "runs/run/succeeded@cursor")["transcript"].to_string();
    assert!(transcript.contains("cursor.run"), "{transcript}");
    assert!(transcript.contains("scenario: default"), "{transcript}");
}

#[test]
fn a_wrong_cursor_agent_fails_only_the_cursor_familys_runs() {
    // fake-claude is no ACP agent: every run of the Cursor family fails (its version is not
    // the pinned cursor-agent's), while the claude family and the argument checks, which start
    // no run, still pass.
    let fake = fake_claude();
    let (out, report) = run_json(
        &[
            "--fake-cursor-agent",
            &fake,
            "--case",
            "runs/run/succeeded",
            "--case",
            "runs/args/prompt-empty",
        ],
        &[],
    );
    let report = report.unwrap_or_else(|| panic!("no report: {}", describe(&out)));
    assert_eq!(outcome(&report, "runs/run/succeeded"), "pass");
    assert_eq!(outcome(&report, "runs/run/succeeded@cursor"), "fail");
    assert_eq!(outcome(&report, "runs/args/prompt-empty@cursor"), "pass");
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
}

#[test]
fn a_server_with_only_the_cursor_family_is_graded_as_cursor() {
    let adapter = adapter();
    let (out, report) = run_json(
        &[
            "--drive-fake",
            "--profile",
            "provider",
            "--case",
            "tools/catalogue/roles",
            "--case",
            "runs/run/succeeded",
            "--case",
            "runs/run/hooks-before-init",
        ],
        &[&adapter, "--provider", "cursor"],
    );
    let report = report.unwrap_or_else(|| panic!("no report: {}", describe(&out)));
    assert_eq!(outcome(&report, "tools/catalogue/roles"), "pass");
    assert_eq!(outcome(&report, "runs/run/succeeded"), "pass");
    let hooks = case(&report, "runs/run/hooks-before-init");
    assert_eq!(hooks["outcome"], "skip", "{hooks}");
    assert!(
        hooks["reason"]
            .as_str()
            .is_some_and(|r| r.contains("fake-cursor-agent")),
        "{hooks}"
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
}

#[test]
fn a_fake_given_on_the_command_line_must_be_an_executable() {
    // A typo in --fake-cursor-agent is a usage error (exit 2) naming the flag, never a run of
    // skips or failures blamed on the server.
    let out = crate::support::runner()
        .args(["--fake-cursor-agent", "/nonexistent/fake-cursor-agent"])
        .output()
        .expect("run the runner");
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr
            .contains("--fake-cursor-agent /nonexistent/fake-cursor-agent: not an executable file"),
        "{stderr}"
    );
}
