//! `acp-conformance` against real ACP agents and the kit's fake Cursor agent: every verdict that
//! is not a pass is pinned with its rule (the case's requirement, and for fail / warn what was
//! expected and what the agent did), so a change in the gate or in a pinned agent shows here.
//! Agents that need an account get `skip` on turn cases with the agent's own answer, never
//! `fail`. With `CI=true` a missing pinned agent fails (testkit::prereq::require). ACP-GATE-1
//! (account-needing agents skip turn cases) and ACP-GATE-3 (verdicts pinned with their rules).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

use crate::support::describe;

/// The fake Cursor agent next to the runner (the workspace build puts it there).
pub fn fake_cursor_agent() -> PathBuf {
    let path = PathBuf::from(env!("CARGO_BIN_EXE_acp-conformance"))
        .parent()
        .expect("bin dir")
        .join("fake-cursor-agent");
    assert!(
        path.is_file(),
        "fake-cursor-agent is not next to the runner: build the workspace first (cargo build --workspace)"
    );
    path
}

/// Runs `acp-conformance ARGS -- AGENT` (the agent's env set on the runner, which its children
/// inherit) with a JSON report; returns the output and the parsed report.
pub fn run_acp(args: &[&str], agent: &Command) -> (Output, Value) {
    let dir = tempfile::tempdir().expect("tempdir");
    let report = dir.path().join("report.json");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_acp-conformance"));
    cmd.args(args)
        .arg("--format")
        .arg(format!("json={}", report.display()))
        .arg("--")
        .arg(agent.get_program())
        .args(agent.get_args());
    for (k, v) in agent.get_envs() {
        match v {
            Some(v) => cmd.env(k, v),
            None => cmd.env_remove(k),
        };
    }
    let out = cmd.output().expect("run acp-conformance");
    let text = std::fs::read_to_string(&report)
        .unwrap_or_else(|e| panic!("no report ({e}): {}", describe(&out)));
    let parsed: Value = serde_json::from_str(&text).expect("the JSON report parses");
    (out, parsed)
}

/// Every verdict that is not a pass, by case id.
pub fn non_pass(report: &Value) -> BTreeMap<String, String> {
    report["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .filter(|c| c["outcome"] != "pass")
        .map(|c| {
            (
                c["id"].as_str().expect("id").to_owned(),
                c["outcome"].as_str().expect("outcome").to_owned(),
            )
        })
        .collect()
}

/// Asserts the non-pass verdicts are exactly `want`, each with its rule: a requirement, and
/// expected / actual for fail, warn and info, a reason for skip.
#[track_caller]
pub fn assert_pinned(report: &Value, want: &[(&str, &str)]) {
    let want: BTreeMap<String, String> = want
        .iter()
        .map(|(i, o)| ((*i).to_owned(), (*o).to_owned()))
        .collect();
    let got = non_pass(report);
    assert_eq!(
        got,
        want,
        "non-pass verdicts differ; cases:\n{}",
        serde_json::to_string_pretty(
            &report["cases"]
                .as_array()
                .expect("cases")
                .iter()
                .filter(|c| c["outcome"] != "pass")
                .map(
                    |c| serde_json::json!({"id": c["id"], "outcome": c["outcome"],
                "actual": c["actual"], "reason": c["reason"]})
                )
                .collect::<Vec<_>>()
        )
        .unwrap_or_default()
    );
    for c in report["cases"].as_array().expect("cases") {
        let id = &c["id"];
        assert!(
            c["requirement"].as_str().is_some_and(|r| !r.is_empty()),
            "{id} has no rule"
        );
        match c["outcome"].as_str() {
            Some("fail" | "warn" | "info") => assert!(
                c["expected"].is_string() && c["actual"].is_string(),
                "{id}: a {} without expected / actual",
                c["outcome"]
            ),
            Some("skip") => assert!(c["reason"].is_string(), "{id}: a skip without reason"),
            _ => {}
        }
    }
    assert_eq!(report["protocol"], "acp");
    assert_eq!(report["runner"]["name"], "acp-conformance");
    assert_eq!(report["profile"], "agent");
    crate::docs::assert_matches_schema(report);
}

/// Asserts every skip of `ids` says the agent needs an account.
#[track_caller]
pub fn assert_account_skips(report: &Value, ids: &[&str]) {
    for id in ids {
        let reason = crate::support::case(report, id)["reason"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        assert!(
            reason.contains("-32000") && reason.contains("needs an account"),
            "{id}: {reason}"
        );
    }
}

/// The verdicts every agent that accepts everything gets on the SHOULD rules most real agents do
/// not keep (content it did not advertise is `info`: the MUST there is the client's).
const LENIENT_SESSION_NEW: [(&str, &str); 1] = [("session/new/relative-cwd", "warn")];

#[test]
fn the_fake_cursor_agent_shows_cursors_deviations_as_warnings() {
    // `--jobs 8`: the fake costs no CPU, each case waits out its ~0.5 s idle exit (Cursor's).
    let (out, report) = run_acp(&["--jobs", "8"], &{
        let mut c = Command::new(fake_cursor_agent());
        c.arg("acp").env_remove("FAKE_CURSOR_SCENARIO");
        c
    });
    let mut want = vec![
        // Cursor's documented deviations: cursor/* methods and no exit on EOF after a turn.
        ("extensions/method-names", "warn"),
        ("exit/eof-after-turn", "warn"),
        // Silence on malformed input (documented), lenient session/new (the fake's choice).
        ("jsonrpc/malformed/parse-error", "warn"),
        ("session/new/missing-mcp-servers", "warn"),
        ("content/audio/unadvertised", "info"),
        ("content/resource/unadvertised", "info"),
        // Not applicable to the default turn or the fake's capabilities.
        ("session/load/advertised", "skip"),
        ("prompt/tool-call-shape", "skip"),
        ("cancel/mid-turn", "skip"),
        ("cancel/pending-permission", "skip"),
        ("permission/request-shape", "skip"),
        ("permission/selected-accepted", "skip"),
        ("permission/cancelled-accepted", "skip"),
        ("content/image/unadvertised", "skip"),
        ("content/audio/advertised", "skip"),
        ("content/resource/advertised", "skip"),
        ("capabilities/fs-requests", "skip"),
        ("capabilities/terminal-requests", "skip"),
    ];
    want.extend(LENIENT_SESSION_NEW);
    assert_pinned(&report, &want);
    let c = crate::support::case(&report, "extensions/method-names");
    assert!(
        c["actual"]
            .as_str()
            .unwrap_or_default()
            .contains("cursor/update_todos")
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "warnings only: {}",
        describe(&out)
    );
}

#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn the_typescript_sdk_example_agent_keeps_the_turn_going_after_a_cancelled_permission() {
    let agent = testkit::require_prereq!(testkit::prereq::acp_ts_example_agent());
    let (out, report) = run_acp(&["--jobs", "2"], &agent);
    let mut want = vec![
        // The example answers end_turn when a permission request pending at the cancel is
        // answered cancelled (its simulateTurn returns normally): docs prompt-turn#cancellation.
        ("cancel/pending-permission", "fail"),
        ("jsonrpc/malformed/parse-error", "warn"),
        ("content/image/unadvertised", "info"),
        ("content/audio/unadvertised", "info"),
        ("content/resource/unadvertised", "info"),
        ("session/set-mode", "skip"),
        ("session/set-mode-unknown", "skip"),
        ("session/load/advertised", "skip"),
        ("content/image/advertised", "skip"),
        ("content/audio/advertised", "skip"),
        ("content/resource/advertised", "skip"),
        ("capabilities/fs-requests", "skip"),
        ("capabilities/terminal-requests", "skip"),
    ];
    want.extend(LENIENT_SESSION_NEW);
    assert_pinned(&report, &want);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
}

#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn the_python_sdk_echo_agent_echoes_an_unsupported_protocol_version() {
    let agent = testkit::require_prereq!(testkit::prereq::acp_python_echo_agent());
    let (out, report) = run_acp(&["--jobs", "2"], &agent);
    let mut want = vec![
        // It answers initialize with the version proposed, 999 included.
        ("initialize/version-newer", "fail"),
        // It answers an unknown _ method with a null result, and accepts session/load unasked.
        ("jsonrpc/unknown-ext-method", "warn"),
        ("session/load/unadvertised", "warn"),
        ("jsonrpc/malformed/parse-error", "warn"),
        ("content/image/unadvertised", "info"),
        ("content/audio/unadvertised", "info"),
        ("content/resource/unadvertised", "info"),
        ("session/set-mode", "skip"),
        ("session/set-mode-unknown", "skip"),
        ("session/load/advertised", "skip"),
        ("prompt/tool-call-shape", "skip"),
        ("cancel/mid-turn", "skip"),
        ("cancel/pending-permission", "skip"),
        ("permission/request-shape", "skip"),
        ("permission/selected-accepted", "skip"),
        ("permission/cancelled-accepted", "skip"),
        ("content/image/advertised", "skip"),
        ("content/audio/advertised", "skip"),
        ("content/resource/advertised", "skip"),
        ("capabilities/fs-requests", "skip"),
        ("capabilities/terminal-requests", "skip"),
    ];
    want.extend(LENIENT_SESSION_NEW);
    assert_pinned(&report, &want);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
}

/// The turn cases an agent that needs an account skips.
const ACCOUNT_SKIPS: &[&str] = &[
    "session/several-prompts",
    "prompt/stop-reason",
    "prompt/update-shape",
    "prompt/tool-call-shape",
    "cancel/mid-turn",
    "cancel/pending-permission",
    "permission/request-shape",
    "permission/selected-accepted",
    "permission/cancelled-accepted",
    "extensions/method-names",
    "extensions/meta-only",
    "exit/eof-after-turn",
    "content/resource-link",
    "content/image/advertised",
    "content/audio/unadvertised",
    "content/resource/advertised",
    "capabilities/unadvertised-fs-terminal",
    "capabilities/fs-requests",
    "capabilities/terminal-requests",
];

/// The two Claude adapters start a Node process and a Claude Code child per case: one of them at
/// a time keeps a shared machine from turning their session start into case timeouts. One test
/// runs them one after the other: two tests taking turns through a lock held a test thread idle
/// for the whole first run (minutes), while other tests could have used it.
#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn the_claude_adapters_without_credentials_skip_every_turn_case_with_their_answer() {
    claude_agent_acp_skips_every_turn_case_with_its_answer();
    claude_code_acp_skips_every_turn_case_with_its_answer();
}

fn claude_agent_acp_skips_every_turn_case_with_its_answer() {
    let home = tempfile::tempdir().expect("home");
    let mut agent = testkit::require_prereq!(testkit::prereq::acp_claude_agent(
        "http://127.0.0.1:9",
        home.path()
    ));
    agent
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("ANTHROPIC_BASE_URL");
    let (out, report) = run_acp(&["--jobs", "2", "--timeout-ms", "30000"], &agent);
    let mut want: Vec<(&str, &str)> = ACCOUNT_SKIPS.iter().map(|i| (*i, "skip")).collect();
    want.extend(CLAUDE_EXTRA);
    assert_pinned(&report, &want);
    assert_account_skips(&report, ACCOUNT_SKIPS);
    assert_eq!(
        out.status.code(),
        Some(0),
        "claude-agent-acp: {}",
        describe(&out)
    );
}

fn claude_code_acp_skips_every_turn_case_with_its_answer() {
    let home = tempfile::tempdir().expect("home");
    let agent = testkit::require_prereq!(testkit::prereq::acp_claude_code(home.path()));
    let (out, report) = run_acp(&["--jobs", "2", "--timeout-ms", "30000"], &agent);
    let mut want: Vec<(&str, &str)> = ACCOUNT_SKIPS.iter().map(|i| (*i, "skip")).collect();
    want.extend(CLAUDE_EXTRA);
    assert_pinned(&report, &want);
    assert_account_skips(&report, ACCOUNT_SKIPS);
    assert_eq!(
        out.status.code(),
        Some(0),
        "claude-code-acp: {}",
        describe(&out)
    );
}

/// The verdicts of both Claude adapters (claude-agent-acp 0.23.1, claude-code-acp 0.16.2) beyond
/// the account skips: they agree on every case.
const CLAUDE_EXTRA: [(&str, &str); 7] = [
    // A relative cwd is answered -32603 "Query closed before response received", not -32602.
    ("session/new/relative-cwd", "warn"),
    ("jsonrpc/malformed/parse-error", "warn"),
    // loadSession is advertised, but a session without a turn has nothing stored to load.
    ("session/load/advertised", "info"),
    ("session/load/unadvertised", "skip"),
    ("content/image/unadvertised", "skip"),
    ("content/audio/advertised", "skip"),
    ("content/resource/unadvertised", "skip"),
];

#[test]
fn client_mode_runs_from_the_binary_with_the_same_report_formats() {
    let dir = tempfile::tempdir().expect("tempdir");
    let json = dir.path().join("client.json");
    let junit = dir.path().join("client.xml");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_acp-conformance"));
    // Four clients at once: client mode runs one at a time unless `--jobs` is given, and the
    // verdicts do not depend on it (GATE-LOAD).
    cmd.args(["--client", "--cancel", "sigint", "--jobs", "4", "--format"])
        .arg(format!("json={}", json.display()))
        .arg("--format")
        .arg(format!("junit={}", junit.display()))
        .arg("--");
    cmd.args(crate::acp_client::script_client(&["--think-ms", "1500"]));
    let out = cmd.output().expect("run");
    let report: Value = serde_json::from_str(
        &std::fs::read_to_string(&json).unwrap_or_else(|e| panic!("{e}: {}", describe(&out))),
    )
    .expect("json");
    assert_eq!(report["protocol"], "acp");
    assert_eq!(report["profile"], "client");
    // The well-behaved script client passes every client case (as in acp_client::mutants).
    assert_eq!(non_pass(&report), BTreeMap::new(), "{}", describe(&out));
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    crate::docs::assert_matches_schema(&report);
    let xml = std::fs::read_to_string(&junit).expect("junit");
    assert!(xml.contains("<testsuites name=\"acp-conformance\""));
}

#[test]
fn the_listing_names_every_case_with_its_level() {
    let out = Command::new(env!("CARGO_BIN_EXE_acp-conformance"))
        .arg("--list")
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    for c in mcp_conformance::acp::all() {
        assert!(text.contains(c.id), "{} missing from --list", c.id);
    }
    assert_eq!(out.status.code(), Some(0));
}

// GATE-LOAD-1: an agent whose later instances never initialize (only discovery's did): every
// case that starts one is the runner's error naming the likely cause, never a failure of what
// the case checks, and stderr says it once rather than blaming the machine case by case.
#[test]
fn an_agent_that_initializes_only_as_its_first_instance_is_said_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut agent = Command::new(fake_cursor_agent());
    agent
        .arg("acp")
        .env("FAKE_CURSOR_SCENARIO", "conformance-clean")
        .env("FAKE_CURSOR_INITIALIZE_ONLY_FIRST", dir.path());
    let shard = [
        "initialize/protocol-version",
        "jsonrpc/ids/zero",
        "session/new/absolute-cwd",
    ];
    let mut args = vec!["--timeout-ms", "1000"];
    for id in shard {
        args.extend(["--case", id]);
    }
    let (out, report) = run_acp(&args, &agent);
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    let errors: Vec<&str> = report["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .filter(|c| c["outcome"] == "error")
        .map(|c| c["id"].as_str().expect("id"))
        .collect();
    for id in shard {
        assert!(errors.contains(&id), "{id}: {}", non_pass(&report).len());
    }
    assert!(
        !report["cases"]
            .as_array()
            .expect("cases")
            .iter()
            .any(|c| c["outcome"] == "fail"),
        "{:?}",
        non_pass(&report)
    );
    for id in &errors {
        let reason = crate::support::case(&report, id)["reason"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        assert!(
            reason.contains("works only as its first instance"),
            "{id}: {reason}"
        );
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let once = format!(
        "no agent a case started answered initialize ({} case(s) gave up",
        errors.len()
    );
    assert_eq!(stderr.matches(&once).count(), 1, "{stderr}");
    assert!(!stderr.contains("probably overloaded"), "{stderr}");
}
