//! Coverage is part of the verdict, in both gates: the report says what could not be graded and
//! why (grouped by reason, with the MUST cases among them and what would grade them), and
//! `--min-coverage PCT` fails a run that graded less (exit 1, said on stderr). One-defect peers:
//! the toy server marking no tool read-only (`--no-read-only-hint`) and fake-cursor-agent's
//! `auth-required` scenario (an agent that needs an account), each beside its clean twin. Runs
//! are shards (`--case`), as the rest of the fast tier.

use std::process::Command;

use serde_json::Value;

use crate::acp_agents::{fake_cursor_agent, run_acp};
use crate::support::{describe, run_json, toy};

/// The tool cases of the plain profile: the shard a server's tool calls decide.
const TOOL_SHARD: [&str; 2] = ["--case", "tools"];

/// The MCP gate on the tool shard of the toy with `flags`, and `extra` options.
fn mcp(extra: &[&str], flags: &[&str]) -> (std::process::Output, Value) {
    let toy = toy().display().to_string();
    let server: Vec<&str> = std::iter::once(toy.as_str())
        .chain(flags.iter().copied())
        .collect();
    let mut args = vec!["--timeout-ms", "3000"];
    args.extend_from_slice(&TOOL_SHARD);
    args.extend_from_slice(extra);
    let (out, report) = run_json(&args, &server);
    let report = report.unwrap_or_else(|| panic!("no report: {}", describe(&out)));
    crate::docs::assert_matches_schema(&report);
    (out, report)
}

/// The coverage group of `reason` in a report.
fn group<'a>(report: &'a Value, reason: &str) -> Option<&'a Value> {
    report["coverage"]["ungraded"]
        .as_array()
        .expect("coverage.ungraded")
        .iter()
        .find(|g| g["reason"] == reason)
}

fn strings(v: &Value) -> Vec<&str> {
    v.as_array()
        .expect("an array")
        .iter()
        .map(|s| s.as_str().expect("a string"))
        .collect()
}

#[test]
fn a_server_that_marks_no_tool_read_only_names_the_must_rules_left_ungraded() {
    let (out, report) = mcp(&["--min-coverage", "90"], &["--no-read-only-hint"]);
    // Nothing it did was wrong: the run fails on coverage alone.
    assert_eq!(report["summary"]["failed"], 0, "{}", describe(&out));
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert_eq!(report["exit_code"], 1);
    let coverage = &report["coverage"];
    assert_eq!(coverage["met"], false, "{coverage}");
    assert_eq!(coverage["min_percent"], 90.0);
    assert!(coverage["percent"].as_f64().expect("percent") < 90.0);
    let tools = group(&report, "no-safe-tool").expect("a no-safe-tool group");
    assert_eq!(
        strings(&tools["must"]),
        ["tools/result/shape", "tools/result/output-schema"],
        "{tools}"
    );
    assert!(strings(&tools["cases"]).contains(&"tools/call/wrong-typed-arguments"));
    assert!(
        tools["remedy"]
            .as_str()
            .expect("remedy")
            .contains("--allow-tool-calls"),
        "{tools}"
    );
    for id in strings(&tools["cases"]) {
        let c = crate::support::case(&report, id);
        assert_eq!(
            (c["outcome"].as_str(), c["ungraded"].as_str()),
            (Some("skip"), Some("no-safe-tool")),
            "{c}"
        );
    }
    // The pretty report and stderr say it in words.
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("not graded, no-safe-tool: 3 (2 MUST)")
            && stdout.contains("MUST: tools/result/shape, tools/result/output-schema"),
        "{stdout}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("mcp-conformance: gate failed: coverage:")
            && stderr.contains("below --min-coverage 90")
            && stderr.contains("no-safe-tool"),
        "{stderr}"
    );
    // Calling the tool, as the remedy says, grades them.
    let (out, report) = mcp(
        &["--min-coverage", "90", "--allow-tool-calls"],
        &["--no-read-only-hint"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert!(group(&report, "no-safe-tool").is_none(), "{report}");
}

#[test]
fn the_clean_server_meets_a_full_coverage_bound_and_junit_shows_the_shortfall() {
    let (out, report) = mcp(&["--min-coverage", "100"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(report["coverage"]["met"], true);
    assert_eq!(report["coverage"]["percent"], 100.0);
    // JUnit: the shortfall is a failure of its own test case.
    let dir = tempfile::tempdir().expect("tempdir");
    let junit = dir.path().join("junit.xml");
    let out = crate::support::runner()
        .args(["--timeout-ms", "3000", "--min-coverage", "95"])
        .args(TOOL_SHARD)
        .arg("--format")
        .arg(format!("junit={}", junit.display()))
        .arg("--")
        .arg(toy())
        .arg("--no-read-only-hint")
        .output()
        .expect("run the runner");
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let xml = std::fs::read_to_string(&junit).expect("junit.xml");
    assert!(
        xml.contains("<testsuite name=\"coverage\" tests=\"1\" failures=\"1\"")
            && xml.contains("type=\"min-coverage\""),
        "{xml}"
    );
}

/// fake-cursor-agent in `scenario`, with no credentials.
fn agent(scenario: &str) -> Command {
    let mut agent = Command::new(fake_cursor_agent());
    agent
        .arg("acp")
        .env("FAKE_CURSOR_SCENARIO", scenario)
        .env_remove("CURSOR_API_KEY");
    agent
}

/// The ACP shard that needs a session: what an agent without an account cannot show.
const SESSION_SHARD: [&str; 6] = [
    "--case",
    "initialize",
    "--case",
    "session",
    "--case",
    "prompt",
];

#[test]
fn an_agent_that_needs_an_account_says_so_and_fails_a_coverage_bound() {
    let mut args = vec!["--jobs", "8", "--min-coverage", "90", "--format", "pretty"];
    args.extend_from_slice(&SESSION_SHARD);
    let (out, report) = run_acp(&args, &agent("auth-required"));
    crate::docs::assert_matches_schema(&report);
    assert_eq!(report["summary"]["failed"], 0, "{}", describe(&out));
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert_eq!(report["coverage"]["met"], false);
    let account = group(&report, "account").expect("an account group");
    let must = strings(&account["must"]);
    assert!(
        must.contains(&"session/new/absolute-cwd") && must.contains(&"prompt/stop-reason"),
        "{account}"
    );
    assert!(
        account["remedy"]
            .as_str()
            .expect("remedy")
            .contains("needs an account"),
        "{account}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("not graded, account:"), "{stdout}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("acp-conformance: gate failed: coverage:") && stderr.contains("account"),
        "{stderr}"
    );
}

// RUNNER-12: an agent whose turns exercise every case of the shard meets a 100 % bound.
#[test]
fn the_clean_agent_meets_a_full_coverage_bound() {
    let args = [
        "--jobs",
        "8",
        "--min-coverage",
        "100",
        "--case",
        "initialize",
        "--case",
        "session",
    ];
    let (out, report) = run_acp(&args, &agent("conformance-clean"));
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(report["coverage"]["met"], true, "{}", report["coverage"]);
    assert!(group(&report, "account").is_none());
}

// RUNNER-12: a turn that never does what a case grades leaves that rule ungraded, not "not
// applicable":
// the clean scenario's turn is three chunks and end_turn, with no tool call, so the tool-call
// shape's MUST is `not-exercised`, counted against the coverage (a 100 % bound fails), and
// nothing else is.
#[test]
fn a_turn_without_a_tool_call_leaves_the_tool_call_rule_not_exercised() {
    let mut args = vec!["--jobs", "8", "--min-coverage", "100"];
    args.extend_from_slice(&SESSION_SHARD);
    let (out, report) = run_acp(&args, &agent("conformance-clean"));
    crate::docs::assert_matches_schema(&report);
    assert_eq!(report["summary"]["failed"], 0, "{}", describe(&out));
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert_eq!(report["coverage"]["met"], false, "{}", report["coverage"]);
    let gap = group(&report, "not-exercised").expect("a not-exercised group");
    assert_eq!(strings(&gap["must"]), ["prompt/tool-call-shape"], "{gap}");
    assert!(
        gap["remedy"]
            .as_str()
            .expect("remedy")
            .contains("never did what these grade"),
        "{gap}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("1 not-exercised (1 MUST)"), "{stderr}");
}

#[test]
fn a_coverage_bound_that_is_no_percentage_is_a_usage_error() {
    for runner in [
        env!("CARGO_BIN_EXE_mcp-conformance"),
        env!("CARGO_BIN_EXE_acp-conformance"),
    ] {
        for bad in ["abc", "-1", "101"] {
            let out = Command::new(runner)
                .args(["--min-coverage", bad, "--", "true"])
                .output()
                .expect("run the runner");
            assert_eq!(out.status.code(), Some(2), "{bad}: {}", describe(&out));
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(
                stderr.contains("--min-coverage") && stderr.contains("percentage from 0 to 100"),
                "{bad}: {stderr}"
            );
        }
    }
}
