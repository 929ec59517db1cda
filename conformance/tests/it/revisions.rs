//! Revision-aware grading end to end: a server of two revisions gets both revisions' verdicts
//! in one report, a server answering a date no revision defines fails T2 with the reason,
//! `--revision` chooses what is graded, `--list` shows the cases per revision, and the
//! reference adapter's cases of the revisions it does not support say `skip: revision not
//! supported`.

use crate::support::{case, describe, outcome, run_json, runner, toy};

fn toy_str() -> String {
    toy().display().to_string()
}

#[test]
fn a_server_of_two_revisions_gets_both_revisions_verdicts_in_one_report() {
    let toy = toy_str();
    // Input validation as -32602: allowed up to 2025-06-18 (info), a deviation from 2025-11-25
    // (SEP-1303), where the instance is graded on a 2025-11-25 connection.
    let server = [
        toy.as_str(),
        "--versions",
        "2025-06-18,2025-11-25",
        "--invalid-args-protocol-error",
    ];
    let (out, report) = run_json(
        &[
            "--case",
            "tools/call/wrong-typed-arguments",
            "--case",
            "lifecycle/initialize/revisions",
        ],
        &server,
    );
    let report = report.unwrap_or_else(|| panic!("no report: {}", describe(&out)));
    let base = case(&report, "tools/call/wrong-typed-arguments");
    assert_eq!(base["revision"], "2025-06-18");
    assert_eq!(base["outcome"], "info", "{base}");
    let newer = case(&report, "tools/call/wrong-typed-arguments@2025-11-25");
    assert_eq!(newer["revision"], "2025-11-25");
    assert_eq!(newer["outcome"], "warn", "{newer}");
    assert!(
        newer["expected"].as_str().unwrap().contains("SEP-1303"),
        "{newer}"
    );
    assert_eq!(
        outcome(&report, "lifecycle/initialize/revisions"),
        "pass",
        "{}",
        describe(&out)
    );
    // The instance's transcript shows the 2025-11-25 handshake it was graded on.
    assert!(
        newer["transcript"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["dir"] == "s2c" && e["line"].as_str().unwrap().contains("\"2025-11-25\"")),
        "{newer}"
    );
    // The pretty report shows each case's revision, JUnit's suites carry it.
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines().any(
            |l| l.contains("tools/call/wrong-typed-arguments@2025-11-25")
                && l.contains("2025-11-25  SHOULD")
        ),
        "{text}"
    );
}

#[test]
fn a_server_answering_a_date_no_revision_defines_fails_t2_with_the_reason() {
    let toy = toy_str();
    let (out, report) = run_json(
        &["--case", "lifecycle/initialize/revisions"],
        &[toy.as_str(), "--answer-version", "2025-07-01"],
    );
    let report = report.unwrap_or_else(|| panic!("no report: {}", describe(&out)));
    let c = case(&report, "lifecycle/initialize/revisions");
    assert_eq!(c["outcome"], "fail", "{c}");
    assert!(c["requirement"].as_str().unwrap().starts_with("T2"));
    let actual = c["actual"].as_str().unwrap();
    assert!(
        actual.contains("answered \"2025-07-01\"") && actual.contains("no MCP revision defines"),
        "{actual}"
    );
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
}

#[test]
fn revision_chooses_what_is_graded() {
    let toy = toy_str();
    let server = [toy.as_str(), "--versions", "2025-06-18,2025-11-25"];
    let (out, report) = run_json(
        &[
            "--revision",
            "2025-11-25",
            "--case",
            "tools/call/wrong-typed-arguments",
        ],
        &server,
    );
    let report = report.unwrap_or_else(|| panic!("no report: {}", describe(&out)));
    let ids: Vec<&str> = report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["id"].as_str())
        .filter(|id| id.starts_with("tools/call/"))
        .collect();
    // 2025-06-18 is not chosen: the case is graded once, on the chosen revision, which the
    // server supports (no second instance of the same revision).
    assert_eq!(ids, ["tools/call/wrong-typed-arguments"]);
    let c = case(&report, "tools/call/wrong-typed-arguments");
    assert_eq!(c["revision"], "2025-11-25", "{c}");
    assert_eq!(c["outcome"], "pass", "{c}");

    // An unknown date is a usage error naming it, before any server starts.
    let out = runner()
        .args(["--revision", "2025-07-01", "--list"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--revision 2025-07-01"));
}

#[test]
fn list_shows_the_cases_per_revision() {
    let out = runner().arg("--list").output().unwrap();
    assert!(out.status.success(), "{}", describe(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    let line = |id: &str| {
        text.lines()
            .find(|l| l.split_whitespace().next() == Some(id))
            .unwrap_or_else(|| panic!("{id} not listed:\n{text}"))
            .to_owned()
    };
    assert!(line("resources/read/unknown@2026-07-28").contains(" 2026-07-28 "));
    assert!(line("tools/call/wrong-typed-arguments@2025-11-25").contains(" 2025-11-25 "));
    assert!(line("jsonrpc/batch/2025-03-26").contains(" 2025-03-26 "));
    assert!(line("tools/list/shape").contains(" handshake "));
    // One revision: its cases, and the rules that hold on every exchange.
    let out = runner()
        .args(["--list", "--revision", "2026-07-28"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("resources/read/unknown@2026-07-28"));
    assert!(text.contains("lifecycle/2026-07-28/discover"));
    assert!(!text.contains("tools/list/shape"), "{text}");
    assert!(
        text.lines()
            .all(|l| l.contains(" every ") || l.contains(" 2026-07-28 ")),
        "{text}"
    );
}

#[test]
fn the_reference_adapter_skips_the_revisions_it_does_not_support() {
    let (out, report) = run_json(
        &[
            "--case",
            "resources/read/unknown",
            "--case",
            "tools/call/wrong-typed-arguments",
            "--case",
            "lifecycle/initialize/revisions",
        ],
        &[],
    );
    let report = report.unwrap_or_else(|| panic!("no report: {}", describe(&out)));
    for id in [
        "resources/read/unknown@2026-07-28",
        "tools/call/wrong-typed-arguments@2025-11-25",
    ] {
        let c = case(&report, id);
        assert_eq!(c["outcome"], "skip", "{c}");
        assert_eq!(c["reason"], "revision not supported", "{c}");
    }
    for id in [
        "resources/read/unknown",
        "tools/call/wrong-typed-arguments",
        "lifecycle/initialize/revisions",
    ] {
        let c = case(&report, id);
        assert_eq!(c["outcome"], "pass", "{c}");
        assert_eq!(c["revision"], "2025-06-18", "{c}");
    }
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
}
