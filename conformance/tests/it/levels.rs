//! Grades at the specification's own level. MCP: one-defect toy servers whose only deviation is
//! a rule no MCP or JSON-RPC text makes a MUST; each run asserts the exact set of non-passing
//! verdicts under plain (the profile without the provider's metadata), the level the case is
//! graded at, and that the provider profile, whose contract does make it a MUST, still fails it.
//! ACP: a rule is graded on the party the specification binds, at its own level (an unknown
//! method's code, against the one-defect agent `unknown_method_agent.py`), and the kit's Cursor
//! policy only under the `cursor` client profile.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::support::{case, describe, run_json, toy};

fn toy_with(flags: &[&str]) -> Vec<String> {
    std::iter::once(toy().display().to_string())
        .chain(flags.iter().map(|f| (*f).to_owned()))
        .collect()
}

/// Runs `args` against the toy with `flags`; the report must exist.
fn run(args: &[&str], flags: &[&str]) -> (std::process::Output, Value) {
    let server = toy_with(flags);
    let server: Vec<&str> = server.iter().map(String::as_str).collect();
    let mut all = vec!["--timeout-ms", "3000"];
    all.extend_from_slice(args);
    let (out, report) = run_json(&all, &server);
    let report = report.unwrap_or_else(|| panic!("no report: {}", describe(&out)));
    crate::docs::assert_matches_schema(&report);
    (out, report)
}

/// `(id, outcome, level)` of every case whose outcome is fail, warn, info or error.
fn findings(report: &Value) -> BTreeSet<(String, String, String)> {
    report["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .filter(|c| {
            ["fail", "warn", "info", "error"]
                .iter()
                .any(|o| c["outcome"] == *o)
        })
        .map(|c| {
            let s = |k: &str| c[k].as_str().unwrap_or_default().to_owned();
            (s("id"), s("outcome"), s("level"))
        })
        .collect()
}

/// The findings of the conformant toy under plain: the contract's rules it does not follow,
/// all informational.
fn clean_findings() -> BTreeSet<(String, String, String)> {
    let (out, report) = run(&[], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    findings(&report)
}

/// The whole plain suite against the toy with `flags` adds exactly `expected` to the clean
/// toy's findings, exits `code`, and each expected case's Expected cites `cites`.
fn plain_adds(flags: &[&str], expected: &[(&str, &str, &str)], code: i32, cites: &str) {
    let clean = clean_findings();
    let (out, report) = run(&[], flags);
    let added: BTreeSet<(String, String, String)> =
        findings(&report).difference(&clean).cloned().collect();
    let want: BTreeSet<(String, String, String)> = expected
        .iter()
        .map(|(i, o, l)| ((*i).to_owned(), (*o).to_owned(), (*l).to_owned()))
        .collect();
    assert_eq!(added, want, "{}", describe(&out));
    assert_eq!(out.status.code(), Some(code), "{}", describe(&out));
    for (id, _, _) in expected {
        let c = case(&report, id);
        let text = format!("{} {}", c["requirement"], c["expected"]);
        assert!(text.contains(cites), "{id} does not cite {cites:?}: {c}");
    }
}

/// Under the provider profile the contract makes each of `ids` a MUST: each fails.
fn provider_fails(flags: &[&str], ids: &[&str]) {
    let mut args = vec!["--profile", "provider", "--no-drive-fake"];
    for id in ids {
        args.extend(["--case", id]);
    }
    let (out, report) = run(&args, flags);
    for id in ids {
        let c = case(&report, id);
        assert_eq!(
            (c["outcome"].as_str(), c["level"].as_str()),
            (Some("fail"), Some("MUST")),
            "{id}: {c}"
        );
    }
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
}

#[test]
fn an_unknown_method_answered_with_code_0_warns_outside_the_provider_profile() {
    // JSON-RPC 2.0 §5.1 defines -32601 with no MUST; only T3 requires it. The discover probe,
    // which meets the same code, is the kit's own rule: info under plain.
    let flags = ["--unknown-method-code", "0"];
    plain_adds(
        &flags,
        &[
            ("jsonrpc/unknown-method", "warn", "SHOULD"),
            ("lifecycle/server-discover/probe", "info", "INFO"),
        ],
        0,
        "-32601",
    );
    provider_fails(
        &flags,
        &["jsonrpc/unknown-method", "lifecycle/server-discover/probe"],
    );
}

#[test]
fn an_unknown_method_left_unanswered_still_fails_outside_the_provider_profile() {
    // "When a rpc call is made, the Server MUST reply with a Response" (JSON-RPC 2.0 §5).
    let (out, report) = run(
        &["--case", "jsonrpc/unknown-method"],
        &["--hang-method", "conformance/no-such-method"],
    );
    let c = case(&report, "jsonrpc/unknown-method");
    assert_eq!(c["outcome"], "fail", "{c}");
    assert!(
        c["expected"]
            .as_str()
            .is_some_and(|e| e.contains("JSON-RPC 2.0 §5")),
        "{c}"
    );
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
}

#[test]
fn a_server_discover_probe_answered_with_another_code_is_info_under_plain() {
    let flags = ["--discover-code", "-32602"];
    plain_adds(
        &flags,
        &[("lifecycle/server-discover/probe", "info", "INFO")],
        0,
        "T3",
    );
    provider_fails(&flags, &["lifecycle/server-discover/probe"]);
}

#[test]
fn a_missing_protocol_version_refused_with_another_code_is_info_under_plain() {
    let flags = ["--missing-proposal-code", "-32603"];
    plain_adds(
        &flags,
        &[("lifecycle/initialize/missing-proposal", "info", "INFO")],
        0,
        "T2",
    );
    provider_fails(&flags, &["lifecycle/initialize/missing-proposal"]);
}

#[test]
fn a_batch_left_unanswered_under_a_revision_without_batches_is_info_under_plain() {
    let flags = ["--drop-batches"];
    plain_adds(
        &flags,
        &[
            ("jsonrpc/batch/rejected-2025-06-18", "info", "INFO"),
            ("jsonrpc/batch/rejected-2024-11-05", "info", "INFO"),
        ],
        0,
        "T5",
    );
    provider_fails(
        &flags,
        &[
            "jsonrpc/batch/rejected-2025-06-18",
            "jsonrpc/batch/rejected-2024-11-05",
        ],
    );
}

#[test]
fn an_agent_accepting_content_it_did_not_advertise_is_info_not_a_warning() {
    // conformance-clean accepts every content block and advertises neither audio nor embedded
    // context. The MUST is the client's ("The Client MUST adapt its interface according to
    // PromptCapabilities", schema PromptRequest.prompt): the agent is only reported on.
    let mut agent = std::process::Command::new(crate::acp_agents::fake_cursor_agent());
    agent
        .arg("acp")
        .env("FAKE_CURSOR_SCENARIO", "conformance-clean");
    let (out, report) = crate::acp_agents::run_acp(&["--strict", "--case", "content"], &agent);
    for id in [
        "content/audio/unadvertised",
        "content/resource/unadvertised",
    ] {
        let c = case(&report, id);
        assert_eq!(
            (c["outcome"].as_str(), c["level"].as_str()),
            (Some("info"), Some("INFO")),
            "{id}: {c}"
        );
        assert!(
            c["requirement"]
                .as_str()
                .is_some_and(|r| r.contains("The Client MUST adapt")),
            "{c}"
        );
    }
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
}

#[test]
fn the_cursor_policy_cases_are_listed_only_under_the_cursor_profile() {
    let list = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_acp-conformance"))
            .args(args)
            .output()
            .expect("run");
        assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let any = list(&["--client", "--list"]);
    let cursor = list(&["--client", "--profile", "cursor", "--list"]);
    for id in [
        "client/permission-never-allow-always",
        "client/no-unprompted-authenticate",
    ] {
        assert!(!any.contains(id), "{id} graded for any client:\n{any}");
        assert!(cursor.contains(id), "{id} missing under cursor:\n{cursor}");
    }
    assert!(any.contains("client/supports-request-permission"), "{any}");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_acp-conformance"))
        .args(["--client", "--profile", "editor", "--list"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
}

/// The one-defect ACP agent of `unknown_method_agent.py` with `flags`.
fn unknown_method_agent(flags: &[&str]) -> std::process::Command {
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/unknown_method_agent.py");
    let mut agent = std::process::Command::new("python3");
    agent.arg(script).args(flags);
    agent
}

#[test]
fn an_agent_answering_an_unknown_method_with_code_0_warns() {
    // JSON-RPC 2.0 §5.1 defines -32601 "Method not found" with no MUST, and no ACP text
    // requires it: another code is a SHOULD deviation, as under MCP's plain profile.
    let (out, report) = crate::acp_agents::run_acp(
        &["--case", "jsonrpc/unknown-method"],
        &unknown_method_agent(&["--code", "0"]),
    );
    let c = case(&report, "jsonrpc/unknown-method");
    assert_eq!(
        (c["outcome"].as_str(), c["level"].as_str()),
        (Some("warn"), Some("SHOULD")),
        "{c}"
    );
    for text in [&c["requirement"], &c["expected"]] {
        assert!(
            text.as_str()
                .is_some_and(|t| t.contains("Method not found")),
            "{c}"
        );
    }
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    // The clean twin passes.
    let (out, report) = crate::acp_agents::run_acp(
        &["--case", "jsonrpc/unknown-method"],
        &unknown_method_agent(&[]),
    );
    assert_eq!(case(&report, "jsonrpc/unknown-method")["outcome"], "pass");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
}

#[test]
fn an_agent_leaving_an_unknown_method_unanswered_still_fails() {
    // "When a rpc call is made, the Server MUST reply with a Response" (JSON-RPC 2.0 §5).
    let (out, report) = crate::acp_agents::run_acp(
        &["--case", "jsonrpc/unknown-method", "--timeout-ms", "2000"],
        &unknown_method_agent(&["--silent"]),
    );
    let c = case(&report, "jsonrpc/unknown-method");
    assert_eq!(
        (c["outcome"].as_str(), c["level"].as_str()),
        (Some("fail"), Some("MUST")),
        "{c}"
    );
    assert!(
        c["expected"]
            .as_str()
            .is_some_and(|e| e.contains("JSON-RPC 2.0 §5")),
        "{c}"
    );
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
}
