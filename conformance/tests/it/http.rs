//! `mcp-conformance --url` against the HTTP toy server on loopback: the clean server passes
//! every case that applies over Streamable HTTP (the catalogue's, over sessions, and the
//! transport's own HTTP-1..10) and the stdio-only ones are skipped as not applicable; each
//! `--defect` fails exactly the case of its rule (an endless SSE stream and an oversized event
//! included: bounded and reported, never a hang); `--url` and a server command exclude each
//! other.

use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt as _;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::docs::assert_matches_schema;
use crate::support::runner;

/// An HTTP server under test (the toy, or a real one), killed when dropped.
pub struct Server {
    pub child: Child,
    pub url: String,
}

/// Kills the server's whole process group (each server starts in one of its own: the toy here,
/// the real ones through `testkit::listen::spawn_listening`), then reaps the leader.
impl Drop for Server {
    fn drop(&mut self) {
        testkit::procs::kill_group(self.child.id());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn toy_http(defect: Option<&str>) -> Server {
    toy_http_with(&[], defect)
}

/// The toy with `flags` (`--only-2025-06-18`) before `--defect`.
pub fn toy_http_with(flags: &[&str], defect: Option<&str>) -> Server {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_mcp-conformance"))
        .parent()
        .expect("bin dir")
        .join("examples")
        .join("http_toy_server");
    let mut cmd = Command::new(&bin);
    cmd.process_group(0).args(flags);
    if let Some(d) = defect {
        cmd.args(["--defect", d]);
    }
    let mut child = cmd
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{}: {e} (cargo test builds examples)", bin.display()));
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("the URL line");
    let url = line.trim().to_owned();
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    Server { child, url }
}

/// Runs the gate on `url` (every case); the exit code and each case's id → outcome.
pub fn grade(url: &str) -> (Option<i32>, Vec<(String, String)>, Value) {
    grade_cases(url, &[])
}

/// Runs the gate on `url` with `--case` globs; the exit code and each case's id → outcome.
pub fn grade_cases(url: &str, globs: &[&str]) -> (Option<i32>, Vec<(String, String)>, Value) {
    grade_cases_with(url, globs, &[])
}

/// [`grade_cases`] with more arguments (`--revision DATE`).
pub fn grade_cases_with(
    url: &str,
    globs: &[&str],
    extra: &[&str],
) -> (Option<i32>, Vec<(String, String)>, Value) {
    let dir = tempfile::tempdir().expect("tempdir");
    let report = dir.path().join("report.json");
    let mut cmd = runner();
    cmd.args(["--url", url, "--timeout-ms", "3000", "--format"])
        .arg(format!("json={}", report.display()));
    for g in globs {
        cmd.args(["--case", g]);
    }
    cmd.args(extra);
    let out = cmd.output().expect("run the runner");
    let text = std::fs::read_to_string(&report).unwrap_or_else(|_| {
        panic!(
            "no report; stderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let json: Value = serde_json::from_str(&text).expect("the report parses");
    let outcomes = json["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|c| {
            (
                c["id"].as_str().unwrap_or("").to_owned(),
                c["outcome"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    (out.status.code(), outcomes, json)
}

/// The outcome of case `id` in `outcomes`.
fn outcome_of<'a>(outcomes: &'a [(String, String)], id: &str) -> &'a str {
    outcomes
        .iter()
        .find(|(c, _)| c == id)
        .map_or("absent", |(_, o)| o.as_str())
}

#[test]
fn the_clean_http_server_passes_every_case_that_applies_over_http() {
    let toy = toy_http(None);
    let (code, outcomes, json) = grade(&toy.url);
    assert_matches_schema(&json);
    // Nothing fails, warns or errs: what does not pass does not apply (skip) or is the kit's
    // information (the toy supports one revision).
    let off: Vec<_> = outcomes
        .iter()
        .filter(|(_, o)| !matches!(o.as_str(), "pass" | "skip" | "info"))
        .collect();
    assert!(off.is_empty(), "{off:?}");
    // The transport's own cases (HTTP-1..10), 2025-11-25's on a session of it.
    let transport: Vec<_> = outcomes
        .iter()
        .filter(|(id, _)| id.starts_with("transport/http/"))
        .collect();
    assert_eq!(transport.len(), 12, "{transport:?}");
    assert!(transport.iter().all(|(_, o)| o == "pass"), "{transport:?}");
    // The catalogue's cases over sessions of the endpoint: the handshake (T2), ping, ids
    // (T3a), the id rule on every exchange (JSON-RPC 2.0 §5), bad input answered (T4), listing.
    for id in [
        "lifecycle/initialize/result-shape",
        "lifecycle/initialize/version/2025-06-18",
        "lifecycle/initialize/unsupported-proposal",
        "lifecycle/ping/after-initialize",
        "jsonrpc/ids/string",
        "jsonrpc/ids/u64-max",
        "jsonrpc/response-ids",
        "jsonrpc/unknown-method",
        "jsonrpc/unknown-notification",
        "jsonrpc/malformed/parse-error",
        "jsonrpc/invalid/wrong-version",
        "jsonrpc/invalid/null-id",
        "jsonrpc/batch/empty",
        "jsonrpc/long-connection",
        "liveness/after-malformed",
        "liveness/in-flight-kept",
        "tools/list/shape",
        "tools/list/invalid-cursor",
        "tools/call/unknown-tool",
        "cancellation/unknown-request",
    ] {
        assert_eq!(outcome_of(&outcomes, id), "pass", "{id}");
    }
    // Stdio's own rules do not apply (T1 stdout, T8 EOF and signals, T6 lines): said so.
    for id in mcp_conformance::mcp::transport::STDIO_ONLY
        .iter()
        .map(|(id, _)| *id)
        .filter(|id| !id.starts_with("runs/"))
    {
        let case = json["cases"]
            .as_array()
            .and_then(|c| c.iter().find(|c| c["id"] == id))
            .unwrap_or_else(|| panic!("{id} in the report"));
        assert_eq!(case["outcome"], "skip", "{id}");
        assert!(
            case["reason"]
                .as_str()
                .is_some_and(|r| r.starts_with("not applicable over Streamable HTTP")),
            "{case}"
        );
    }
    // HTTP-4: the toy requires a session, so what it does before initialize is not observable.
    assert_eq!(
        outcome_of(&outcomes, "lifecycle/ping/before-initialize"),
        "skip"
    );
    assert_eq!(code, Some(0));
}

/// The non-pass verdicts of the transport's cases under `--defect NAME`: exactly the case of
/// its rule, and the cases its defect removes the precondition of (`skip`, blocked by it).
pub const HTTP_DEFECTS: &[(&str, &[(&str, &str)])] = &[
    // HTTP-8: the 2025-11-25 instance is blocked by the base case (one defect, one verdict).
    (
        "no-origin-check",
        &[
            ("transport/http/origin/foreign", "fail"),
            ("transport/http/origin/foreign@2025-11-25", "skip"),
        ],
    ),
    // HTTP-3
    ("notify-200", &[("transport/http/post/accepted", "fail")]),
    // HTTP-4 (a SHOULD: a warning)
    (
        "session-optional",
        &[("transport/http/session/required", "warn")],
    ),
    // HTTP-4
    (
        "unknown-session-ok",
        &[("transport/http/session/unknown", "fail")],
    ),
    // HTTP-9
    (
        "session-id-space",
        &[("transport/http/session/id-charset", "fail")],
    ),
    // HTTP-5
    ("delete-keeps", &[("transport/http/session/delete", "fail")]),
    // HTTP-6
    ("get-wrong", &[("transport/http/get/stream", "fail")]),
    // HTTP-7
    (
        "any-version",
        &[("transport/http/protocol-version/unsupported", "fail")],
    ),
    // HTTP-2, on 2025-11-25 as well: graded once, by the 2025-06-18 case (the priming event
    // before the oversized one is still graded: it primes)
    (
        "oversized-sse",
        &[
            ("transport/http/post/answer", "fail"),
            ("transport/http/post/answer@2025-11-25", "skip"),
        ],
    ),
    (
        "no-jsonrpc",
        &[
            ("transport/http/post/answer", "fail"),
            ("transport/http/post/answer@2025-11-25", "skip"),
        ],
    ),
    // HTTP-2: no SSE stream to look for a priming event in either (blocked by the answer case)
    (
        "wrong-content-type",
        &[
            ("transport/http/post/answer", "fail"),
            ("transport/http/post/answer@2025-11-25", "skip"),
            ("transport/http/sse/priming/2025-11-25", "skip"),
        ],
    ),
];

// T4 over Streamable HTTP: a body that is no JSON refused 400 with a text body gets no
// JSON-RPC parse error, and the report says what the transport answered (the line was not
// dropped silently).
#[test]
fn a_bad_line_refused_with_a_text_body_is_reported_as_refused() {
    let toy = toy_http(Some("parse-error-text"));
    let (_, outcomes, report) = grade_cases(&toy.url, &["jsonrpc/malformed/parse-error"]);
    assert_ne!(
        outcome_of(&outcomes, "jsonrpc/malformed/parse-error"),
        "pass"
    );
    let case = crate::support::case(&report, "jsonrpc/malformed/parse-error");
    let actual = case["actual"].as_str().unwrap_or_default();
    assert!(
        actual
            .contains("no JSON-RPC answer: the transport refused the POST: HTTP 400 (text/plain)")
            && actual.contains("the body is not JSON")
            && !actual.contains("dropped silently"),
        "{actual}"
    );
}

// The stateless era over Streamable HTTP on a server that refuses what does not match its
// MCP-Protocol-Version header -32020 HeaderMismatch, as the 2026-07-28 transport says (and rmcp
// does): a body without the envelope under the era's header, an enveloped request on a
// handshake session. Both refusals are the transport's and pass (envelope-missing once took
// only -32602 there and gave info).
#[test]
fn a_modern_http_server_refusing_header_mismatches_passes_the_stateless_cases() {
    let toy = toy_http_with(&["--modern"], None);
    let (code, outcomes, _) = grade_cases(&toy.url, &["lifecycle/2026-07-28/*"]);
    for (id, want) in [
        ("lifecycle/2026-07-28/discover", "pass"),
        ("lifecycle/2026-07-28/envelope", "pass"),
        ("lifecycle/2026-07-28/envelope-missing", "pass"),
        // No connection is modern over HTTP (every POST names its revision).
        ("lifecycle/2026-07-28/initialize-refused", "skip"),
        ("lifecycle/2026-07-28/legacy-refuses-envelope", "pass"),
        ("lifecycle/2026-07-28/stateless", "pass"),
    ] {
        assert_eq!(outcome_of(&outcomes, id), want, "{id}");
    }
    assert_eq!(code, Some(0));
}

#[test]
fn each_http_defect_fails_exactly_its_rule() {
    for (defect, expected) in HTTP_DEFECTS {
        let toy = toy_http(Some(defect));
        let (code, outcomes, _) = grade_cases(&toy.url, &["transport/**"]);
        assert_non_pass(&outcomes, expected, defect);
        assert_eq!(code, Some(exit_code(expected)), "--defect {defect}");
    }
}

/// Asserts that the cases not passing are exactly `expected` (case, outcome), in report order.
pub fn assert_non_pass(outcomes: &[(String, String)], expected: &[(&str, &str)], what: &str) {
    let off: Vec<(&str, &str)> = outcomes
        .iter()
        .filter(|(_, o)| o != "pass")
        .map(|(c, o)| (c.as_str(), o.as_str()))
        .collect();
    assert_eq!(off, expected, "{what}");
}

/// The gate's exit code for these non-pass verdicts: 1 when one fails.
pub fn exit_code(expected: &[(&str, &str)]) -> i32 {
    i32::from(expected.iter().any(|(_, o)| *o == "fail"))
}

// HTTP-1 (bounded reads), graded under HTTP-2.
#[test]
fn an_endless_sse_stream_is_bounded_by_the_case_deadline_and_reported() {
    let toy = toy_http(Some("endless-sse"));
    let started = Instant::now();
    let (code, outcomes, json) = grade_cases(&toy.url, &["transport/**"]);
    // One case timeout (3 s) and the scheduler's margin, not a hang.
    assert!(started.elapsed() < Duration::from_secs(30));
    // The 2025-11-25 stream neither answers nor has an event to grade for priming: blocked by
    // the answer case.
    assert_non_pass(
        &outcomes,
        &[
            ("transport/http/post/answer", "fail"),
            ("transport/http/post/answer@2025-11-25", "skip"),
            ("transport/http/sse/priming/2025-11-25", "skip"),
        ],
        "endless-sse",
    );
    let case = json["cases"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["id"] == "transport/http/post/answer"))
        .expect("the answer case");
    assert!(
        case["actual"]
            .as_str()
            .is_some_and(|a| a.contains("still open at the case's deadline")),
        "{case}"
    );
    assert_eq!(code, Some(1));
}

#[test]
fn url_and_a_server_command_exclude_each_other() {
    let out = runner()
        .args(["--url", "http://127.0.0.1:9/mcp", "--", "true"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("exclude each other"));
    let out = runner()
        .args(["--url", "http://127.0.0.1:9/mcp", "--drive-fake"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("apply to a server command"));
    // The catalogue runs over the endpoint, so --revision and --allow-tool-calls apply: no usage
    // error (exit 2 all the same: nothing listens there).
    let out = runner()
        .args([
            "--url",
            "http://127.0.0.1:9/mcp",
            "--revision",
            "2025-06-18",
            "--allow-tool-calls",
        ])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("apply to a server command"), "{stderr}");
    assert!(stderr.contains("Connection refused"), "{stderr}");
    let out = runner()
        .args(["--url", "https://127.0.0.1:9/mcp"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not an http:// URL"));
}

/// The CI script with `GATE_URL`: the HTTP cases run against the endpoint, reports written;
/// with a server command as well it refuses (exit 2).
#[test]
fn the_ci_gate_script_takes_an_http_endpoint() {
    let toy = toy_http(Some("no-origin-check"));
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.ci/gate");
    let dir = tempfile::tempdir().expect("tempdir");
    let run = |env: &[(&str, &str)]| {
        let mut cmd = Command::new(&script);
        cmd.env("GATE_RUNNER", env!("CARGO_BIN_EXE_mcp-conformance"))
            .env("GATE_REPORT_DIR", dir.path())
            .env_remove("GATE_SERVER_COMMAND")
            .env_remove("GITHUB_OUTPUT");
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.output().expect("run .ci/gate")
    };
    let out = run(&[("GATE_URL", &toy.url)]);
    assert_eq!(out.status.code(), Some(1));
    let report: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("report.json")).expect("report.json"),
    )
    .expect("parses");
    let failed: Vec<&str> = report["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .filter(|c| c["outcome"] == "fail")
        .filter_map(|c| c["id"].as_str())
        .collect();
    assert_eq!(failed, ["transport/http/origin/foreign"]);
    let junit = std::fs::read_to_string(dir.path().join("junit.xml")).expect("junit.xml");
    assert!(junit.contains("transport/http/origin/foreign"));
    let out = run(&[("GATE_URL", &toy.url), ("GATE_SERVER_COMMAND", "true")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("GATE_URL checks the server"));
}
