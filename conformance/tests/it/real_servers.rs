//! Real servers nobody here wrote, graded precisely: the TypeScript reference server
//! (`@modelcontextprotocol/server-everything@2026.8.31`) and a Python SDK (`mcp==2.3.0`) server.
//! Both drop malformed lines silently (a warn under plain, a fail under --strict or the provider
//! profile) and declare no computer-mcp metadata (info under plain). A change in how the runner
//! grades them fails here. With `CI=true` a missing prerequisite fails the test.

use serde_json::Value;

use crate::support::{describe, outcome, run_json};

fn everything() -> Option<Vec<String>> {
    let cmd = testkit::prereq::require(testkit::prereq::everything_server())?;
    Some(
        std::iter::once(cmd.get_program())
            .chain(cmd.get_args())
            .map(|s| s.to_string_lossy().into_owned())
            .collect(),
    )
}

fn python() -> Option<Vec<String>> {
    let python = testkit::prereq::require(testkit::prereq::python_mcp())?;
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/python_server.py");
    Some(vec![
        python.display().to_string(),
        script.display().to_string(),
    ])
}

fn expect(report: &Value, expected: &[(&str, &str)]) {
    let wrong: Vec<String> = expected
        .iter()
        .filter(|(id, want)| outcome(report, id) != *want)
        .map(|(id, want)| {
            let c = crate::support::case(report, id);
            format!(
                "{id}: {} instead of {want} (expected {:?}, actual {:?}, reason {:?})",
                c["outcome"], c["expected"], c["actual"], c["reason"]
            )
        })
        .collect();
    assert!(wrong.is_empty(), "grading changed:\n{}", wrong.join("\n"));
}

/// Verdicts both SDK servers share under the plain profile.
const SHARED: &[(&str, &str)] = &[
    ("lifecycle/initialize/result-shape", "pass"),
    ("lifecycle/initialize/version/2025-06-18", "pass"),
    ("lifecycle/initialize/unsupported-proposal", "pass"),
    ("lifecycle/ping/after-initialize", "pass"),
    ("lifecycle/stdout/protocol-only", "pass"),
    ("jsonrpc/ids/zero", "pass"),
    ("jsonrpc/ids/string", "pass"),
    ("jsonrpc/unknown-method", "pass"),
    ("jsonrpc/unknown-notification", "pass"),
    // Real SDK servers drop bad lines silently: a SHOULD deviation under plain.
    ("jsonrpc/malformed/parse-error", "warn"),
    ("jsonrpc/invalid/not-an-object", "warn"),
    ("jsonrpc/invalid/wrong-version", "warn"),
    ("jsonrpc/batch/rejected-2025-06-18", "warn"),
    ("jsonrpc/oversized/answered", "warn"),
    ("jsonrpc/oversized/memory-bounded", "warn"),
    ("liveness/after-malformed", "pass"),
    ("tools/list/shape", "pass"),
    ("tools/schema/valid", "pass"),
    ("tools/call/unknown-tool", "warn"),
    ("tools/call/wrong-typed-arguments", "pass"),
    ("resources/list/shape", "pass"),
    ("resources/read/listed", "pass"),
    ("cancellation/unknown-request", "pass"),
    // No computer-mcp metadata: informational under plain, never a failure.
    ("meta-risk/declared", "info"),
    ("meta-work/declared", "info"),
    ("meta-work/resource-listed", "info"),
    ("meta-continuation/declared", "skip"),
];

#[test]
fn the_typescript_reference_server_is_graded_precisely() {
    let Some(server) = everything() else { return };
    let server: Vec<&str> = server.iter().map(String::as_str).collect();
    let (out, report) = run_json(&["--timeout-ms", "20000"], &server);
    let report = report.unwrap_or_else(|| panic!("no report: {}", describe(&out)));
    expect(&report, SHARED);
    expect(
        &report,
        &[
            // JavaScript numbers lose integers beyond 2^53: such ids are dropped.
            ("jsonrpc/ids/u64-max", "warn"),
            // 2025-03-26 requires receiving batches; this server negotiates it and drops them.
            ("jsonrpc/batch/2025-03-26", "fail"),
            // It exits on a 64 MiB line.
            ("liveness/after-oversized", "warn"),
        ],
    );
    // A MUST failed (batches), so the gate fails.
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert!(report["summary"]["info"].as_u64().unwrap() >= 3);
}

#[test]
fn the_python_sdk_server_is_graded_precisely() {
    let Some(server) = python() else { return };
    let server: Vec<&str> = server.iter().map(String::as_str).collect();
    let (out, report) = run_json(&["--timeout-ms", "20000"], &server);
    let report = report.unwrap_or_else(|| panic!("no report: {}", describe(&out)));
    expect(&report, SHARED);
    expect(
        &report,
        &[
            ("jsonrpc/ids/u64-max", "pass"),
            // The SDK switches the connection to the stateless revision on server/discover.
            ("lifecycle/server-discover/probe", "pass"),
            ("liveness/after-oversized", "pass"),
            ("resources/read/unknown", "pass"),
        ],
    );
    crate::docs::assert_matches_schema(&report);
}

#[test]
fn a_silent_drop_by_a_real_server_fails_under_strict_and_the_provider_profile() {
    let Some(server) = python() else { return };
    let server: Vec<&str> = server.iter().map(String::as_str).collect();
    let case = [
        "--case",
        "jsonrpc/malformed/parse-error",
        "--timeout-ms",
        "20000",
    ];
    let (out, report) = run_json(&[&case[..], &["--strict"]].concat(), &server);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert_eq!(
        outcome(&report.unwrap(), "jsonrpc/malformed/parse-error"),
        "fail"
    );
    let (out, report) = run_json(&[&case[..], &["--profile", "provider"]].concat(), &server);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert_eq!(
        outcome(&report.unwrap(), "jsonrpc/malformed/parse-error"),
        "fail"
    );
}
