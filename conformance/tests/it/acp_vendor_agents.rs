//! `acp-conformance` against two vendors' ACP agents run with no credentials: Google's Gemini CLI
//! (`@google/gemini-cli` 0.61.0, `--acp`) and Zed's Codex adapter (`@zed-industries/codex-acp`
//! 0.16.0), both pinned by testkit. Each runs with a scrubbed `HOME` in a tempdir, none of its
//! vendor's keys, and proxied HTTP pointed at a closed loopback port; neither gets a session
//! without an account (`session/new` answers `-32000`), so no model is ever reached. The
//! handshake and the JSON-RPC cases are graded, every case that needs a session is skipped
//! with the agent's own answer (the coverage says how many), and the real defects found are
//! pinned as findings under their own rules.

use serde_json::Value;

use crate::acp_agents::{assert_account_skips, assert_pinned, run_acp};
use crate::support::{case, describe};
use crate::verdicts::{NEED_A_SESSION, SESSION_NEW_CWD};

/// The cases skipped when `session/new` itself asks for an account: everything that needs a
/// session.
fn no_session_skips() -> Vec<&'static str> {
    SESSION_NEW_CWD
        .iter()
        .chain(NEED_A_SESSION)
        .copied()
        .collect()
}

/// The verdicts of an agent whose `session/new` asks for an account before anything else: the
/// account skips plus `findings`.
#[track_caller]
fn assert_verdicts(report: &Value, findings: &[(&str, &str)]) {
    let skips = no_session_skips();
    let mut want: Vec<(&str, &str)> = skips.iter().map(|i| (*i, "skip")).collect();
    want.extend(findings);
    assert_pinned(report, &want);
    assert_account_skips(report, &skips);
}

/// The handshake graded (initialize's answer; session/new's auth-required answer is what every
/// skip quotes) and the coverage stated: `graded` of the 43 applicable MUST / SHOULD cases, the
/// `ungraded` rest all for want of an account.
#[track_caller]
fn assert_coverage(report: &Value, graded: u64, ungraded: u64) {
    for id in [
        "initialize/protocol-version",
        "initialize/auth-methods",
        "initialize/agent-capabilities",
        "stdout/protocol-only",
    ] {
        assert_eq!(case(report, id)["outcome"], "pass", "{id}");
    }
    let coverage = &report["coverage"];
    let reasons = coverage["ungraded"].as_array().expect("ungraded");
    assert_eq!(reasons.len(), 1, "{coverage}");
    assert_eq!(reasons[0]["reason"], "account", "{coverage}");
    assert_eq!(reasons[0]["count"], ungraded, "{coverage}");
    assert_eq!(coverage["applicable"], 43, "{coverage}");
    assert_eq!(coverage["graded"], graded, "{coverage}");
}

#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn codex_acp_answers_a_notification_and_cannot_read_a_negative_id() {
    let home = tempfile::tempdir().expect("home");
    let agent = testkit::require_prereq!(testkit::prereq::acp_codex(home.path()));
    let (out, report) = run_acp(&["--jobs", "2"], &agent);
    assert_verdicts(
        &report,
        &[
            // It answers an unknown notification with a -32601 error response (no id).
            ("jsonrpc/unknown-notification", "fail"),
            // A request under id -7 is answered -32700 Parse error with no id: its ids are
            // unsigned, where JSON-RPC and ACP's RequestId (int64) allow any integer.
            ("jsonrpc/ids/negative", "fail"),
            // A line that is not JSON gets -32700 with no id at all (JSON-RPC: id null).
            ("jsonrpc/malformed/parse-error", "warn"),
            // It does not exit on stdin EOF.
            ("exit/eof-idle", "warn"),
        ],
    );
    let notice = case(&report, "jsonrpc/unknown-notification")["actual"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        notice.contains("answered") && notice.contains("-32601"),
        "{notice}"
    );
    let negative = case(&report, "jsonrpc/ids/negative")["actual"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(negative.contains("Parse error"), "{negative}");
    assert_coverage(&report, 17, 26);
    assert_eq!(out.status.code(), Some(1), "codex-acp: {}", describe(&out));
}

#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn gemini_cli_answers_malformed_session_new_with_internal_errors() {
    let home = tempfile::tempdir().expect("home");
    let agent = testkit::require_prereq!(testkit::prereq::acp_gemini_cli(home.path()));
    // Node loading a 100 MB bundle per case: 2 s to initialize unloaded, far more on a loaded
    // 2-core machine.
    let (out, report) = run_acp(&["--jobs", "2", "--timeout-ms", "40000"], &agent);
    // session/new's argument checks run before its credential check, so two session/new cases
    // are graded where codex-acp skips them.
    let graded = [
        "session/new/relative-cwd",
        "session/new/missing-mcp-servers",
    ];
    let skips: Vec<&str> = no_session_skips()
        .into_iter()
        .filter(|i| !graded.contains(i))
        .collect();
    let mut want: Vec<(&str, &str)> = skips.iter().map(|i| (*i, "skip")).collect();
    want.extend([
        // A relative cwd is resolved against the agent's own cwd and refused -32603 "Directory
        // does not exist", not -32602; a missing mcpServers is -32603 "Internal error" (its
        // schema check), not -32602.
        ("session/new/relative-cwd", "warn"),
        ("session/new/missing-mcp-servers", "warn"),
        // A line that is not JSON gets no answer at all.
        ("jsonrpc/malformed/parse-error", "warn"),
    ]);
    assert_pinned(&report, &want);
    assert_account_skips(&report, &skips);
    for id in graded {
        let actual = case(&report, id)["actual"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        assert!(actual.contains("-32603"), "{id}: {actual}");
    }
    assert_coverage(&report, 18, 25);
    assert_eq!(out.status.code(), Some(0), "gemini-cli: {}", describe(&out));
}
