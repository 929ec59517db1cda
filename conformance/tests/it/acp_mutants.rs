//! One-defect mutant agents: scenarios of fake-cursor-agent (`mutant-*.json`), each differing
//! from `conformance-clean` by one deliberate defect. Each must fail (or, for a SHOULD, warn)
//! exactly its own case; every other case keeps the clean scenario's verdict or gets better (a
//! case that was not applicable may now apply and pass).

use std::collections::BTreeMap;
use std::process::Command;

use serde_json::Value;

use crate::acp_agents::{fake_cursor_agent, non_pass, run_acp};

fn verdicts(scenario: &str) -> (Option<i32>, BTreeMap<String, String>, Value) {
    let mut agent = Command::new(fake_cursor_agent());
    agent.arg("acp").env("FAKE_CURSOR_SCENARIO", scenario);
    let (out, report) = run_acp(&["--jobs", "3", "--timeout-ms", "20000"], &agent);
    let all: BTreeMap<String, String> = report["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|c| {
            (
                c["id"].as_str().expect("id").to_owned(),
                c["outcome"].as_str().expect("outcome").to_owned(),
            )
        })
        .collect();
    (out.status.code(), all, report)
}

fn rank(outcome: &str) -> u8 {
    match outcome {
        "pass" => 0,
        "skip" | "info" => 1,
        "warn" => 2,
        _ => 3,
    }
}

const MUTANTS: &[(&str, &str, &str)] = &[
    ("mutant-bad-stop-reason", "prompt/stop-reason", "fail"),
    (
        "mutant-update-missing-content",
        "prompt/update-shape",
        "fail",
    ),
    (
        "mutant-tool-call-missing-id",
        "prompt/tool-call-shape",
        "fail",
    ),
    ("mutant-stdout-garbage", "stdout/protocol-only", "fail"),
    (
        "mutant-fs-unadvertised",
        "capabilities/unadvertised-fs-terminal",
        "fail",
    ),
    (
        "mutant-permission-no-kind",
        "permission/request-shape",
        "fail",
    ),
    ("mutant-meta-outside", "extensions/meta-only", "warn"),
    ("mutant-slow-cancel", "cancel/mid-turn", "fail"),
    // Defects on `terminal-use` (the fixture below): both stay clean elsewhere.
    (
        "mutant-terminal-unadvertised",
        "capabilities/unadvertised-fs-terminal",
        "fail",
    ),
    (
        "mutant-terminal-unreleased",
        "capabilities/terminal-requests",
        "fail",
    ),
];

/// The fixture that uses terminals correctly when (and only when) they are advertised passes
/// the terminal case and is nowhere worse than `conformance-clean`.
#[test]
fn the_terminal_fixture_passes_the_terminal_case() {
    let (_, clean, _) = verdicts("conformance-clean");
    let (code, got, report) = verdicts("terminal-use");
    assert_eq!(
        got.get("capabilities/terminal-requests")
            .map(String::as_str),
        Some("pass"),
        "{}",
        crate::support::case(&report, "capabilities/terminal-requests")
    );
    let worse: Vec<String> = got
        .iter()
        .filter(|(id, o)| rank(o) > rank(&clean[id.as_str()]))
        .map(|(id, o)| format!("{id}: {} -> {o}", clean[id.as_str()]))
        .collect();
    assert!(worse.is_empty(), "terminal-use worsens {worse:?}");
    assert_eq!(code, Some(0));
}

#[test]
fn each_mutant_fails_exactly_its_own_case() {
    let (_, clean, clean_report) = verdicts("conformance-clean");
    // The reference has no defect of its own beyond the fake's code-level choices (warnings).
    assert!(
        !non_pass(&clean_report)
            .values()
            .any(|o| o == "fail" || o == "error"),
        "conformance-clean fails: {:?}",
        non_pass(&clean_report)
    );
    for (scenario, own, outcome) in MUTANTS {
        let (code, got, report) = verdicts(scenario);
        assert_eq!(
            got.get(*own).map(String::as_str),
            Some(*outcome),
            "{scenario}: {own}: {}",
            crate::support::case(&report, own)
        );
        let worse: Vec<String> = got
            .iter()
            .filter(|(id, o)| id.as_str() != *own && rank(o) > rank(&clean[id.as_str()]))
            .map(|(id, o)| format!("{id}: {} -> {o}", clean[id.as_str()]))
            .collect();
        assert!(worse.is_empty(), "{scenario} also worsens {worse:?}");
        let rule = crate::support::case(&report, own);
        assert!(rule["requirement"].is_string() && rule["actual"].is_string());
        assert_eq!(
            code,
            Some(if *outcome == "fail" { 1 } else { 0 }),
            "{scenario}"
        );
    }
}

/// Containment: a terminal the agent never releases, running a command that backgrounds a
/// grandchild, is killed by group, so nothing of it outlives the run (that the case's end does
/// it, not only the runner's exit, is the unit test `release_and_the_cases_end_kill_what_still_runs`).
#[test]
fn a_terminal_left_running_and_its_grandchild_do_not_outlive_the_run() {
    let marker = format!("{}", 40_000 + std::process::id() % 20_000);
    let dir = tempfile::tempdir().expect("dir");
    let scenario = dir.path().join("leak.json");
    let create = serde_json::json!({"request": {"method": "terminal/create", "params": {
        "sessionId": "{{session_id}}", "command": "sh",
        "args": ["-c", format!("sleep {marker} & sleep {marker}")]}}});
    std::fs::write(
        &scenario,
        serde_json::json!({"kind": "injection", "description": "test-only", "steps": [
            {"capability": {"terminal": [create], "*": []}},
            {"answer": {"stopReason": "end_turn"}}]})
        .to_string(),
    )
    .expect("write");
    let mut agent = Command::new(fake_cursor_agent());
    agent.arg("acp").env("FAKE_CURSOR_SCENARIO", &scenario);
    let (_, report) = run_acp(&["--case", "capabilities/terminal-requests"], &agent);
    let case = crate::support::case(&report, "capabilities/terminal-requests");
    assert_eq!(case["outcome"], "fail", "{case}");
    assert!(
        case["actual"]
            .as_str()
            .unwrap_or_default()
            .contains("never released")
    );
    let needle = format!("sleep\0{marker}");
    let survivors: Vec<String> = std::fs::read_dir("/proc")
        .expect("/proc")
        .filter_map(|e| std::fs::read(e.ok()?.path().join("cmdline")).ok())
        .map(|c| String::from_utf8_lossy(&c).into_owned())
        .filter(|c| c.contains(&needle))
        .collect();
    assert!(survivors.is_empty(), "survived the case: {survivors:?}");
}
