//! Real servers nobody here wrote, graded precisely: the TypeScript reference server
//! (`@modelcontextprotocol/server-everything@2026.8.31`) and a Python SDK (`mcp==2.3.0`) server.
//! Both drop malformed lines silently (a warn under plain, a fail under --strict or the provider
//! profile) and declare no computer-mcp metadata (info under plain). Every verdict of the plain
//! profile is pinned for both, each one that is not a pass with the MCP or JSON-RPC text behind
//! it, so a change in how the runner grades them fails here. With `CI=true` a missing
//! prerequisite fails the test.

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

/// Every verdict of the plain profile, `(case, TypeScript server, Python SDK server)`, each with
/// the rule that justifies a verdict other than pass. Revisions: the discovery session and most
/// cases negotiate 2025-06-18; the batch cases negotiate the date they name.
const PLAIN: &[(&str, &str, &str)] = &[
    ("lifecycle/server-discover/probe", "pass", "pass"),
    ("lifecycle/initialize/result-shape", "pass", "pass"),
    ("lifecycle/initialize/version/2024-11-05", "pass", "pass"),
    ("lifecycle/initialize/version/2025-03-26", "pass", "pass"),
    ("lifecycle/initialize/version/2025-06-18", "pass", "pass"),
    ("lifecycle/initialize/unsupported-proposal", "pass", "pass"),
    ("lifecycle/initialize/older-proposal", "pass", "pass"),
    ("lifecycle/initialize/malformed-proposal", "pass", "pass"),
    // The TypeScript server answers a missing protocolVersion -32603 (internal error). MCP
    // 2025-06-18 basic/lifecycle makes protocolVersion required; JSON-RPC 2.0 §5.1 names
    // -32602 for invalid params, and T2 a supported date: a SHOULD deviation.
    ("lifecycle/initialize/missing-proposal", "warn", "pass"),
    ("lifecycle/ping/before-initialize", "pass", "pass"),
    ("lifecycle/ping/after-initialize", "pass", "pass"),
    // T3's -32600 before initialize is the contract's: informational for a plain server.
    ("lifecycle/request-before-initialize", "info", "info"),
    ("lifecycle/stdout/protocol-only", "pass", "pass"),
    ("lifecycle/shutdown/stdin-eof", "pass", "pass"),
    // Both die of SIGTERM's default action (status "signal: 15", measured 2026-11-30) within
    // milliseconds: an exit, which is all a plain server owes T8; only a provider must exit 0.
    ("lifecycle/shutdown/sigterm", "pass", "pass"),
    ("jsonrpc/ids/zero", "pass", "pass"),
    ("jsonrpc/ids/negative", "pass", "pass"),
    ("jsonrpc/ids/string", "pass", "pass"),
    ("jsonrpc/ids/empty-string", "pass", "pass"),
    // MCP basic: responses carry the request's id; JavaScript numbers hold integers only up to
    // 2^53 and the TypeScript SDK drops such requests. RFC 8259 §6 calls larger numbers not
    // interoperable, so full i64/u64 ids are T3a's (a SHOULD outside provider).
    ("jsonrpc/ids/i64-max", "warn", "pass"),
    ("jsonrpc/ids/i64-min", "warn", "pass"),
    ("jsonrpc/ids/u64-max", "warn", "pass"),
    ("jsonrpc/unknown-method", "pass", "pass"),
    ("jsonrpc/unknown-notification", "pass", "pass"),
    // Both SDKs drop unparseable and invalid lines silently, or read invalid UTF-8 lossily and
    // answer -32601. JSON-RPC 2.0 §5.1 answers them -32700 / -32600; T4 makes that a MUST for
    // providers, a SHOULD elsewhere (the runner's spec).
    ("jsonrpc/malformed/parse-error", "warn", "warn"),
    ("jsonrpc/malformed/invalid-utf8", "warn", "warn"),
    ("jsonrpc/invalid/not-an-object", "warn", "warn"),
    ("jsonrpc/invalid/wrong-version", "warn", "warn"),
    ("jsonrpc/invalid/method-not-string", "warn", "warn"),
    ("jsonrpc/invalid/params-not-structured", "warn", "warn"),
    ("jsonrpc/invalid/null-id", "warn", "warn"),
    // MCP 2025-03-26 basic (Batching): implementations "MUST support receiving JSON-RPC
    // batches". Both servers negotiate 2025-03-26 when asked and drop the batch: a MUST failure.
    ("jsonrpc/batch/2025-03-26", "fail", "fail"),
    // Under 2025-06-18 and 2024-11-05 they drop a batch without any answer: JSON-RPC 2.0 §6
    // answers a batch with an array, T5 with -32600; silence is neither (a SHOULD deviation).
    ("jsonrpc/batch/rejected-2025-06-18", "warn", "warn"),
    ("jsonrpc/batch/rejected-2024-11-05", "warn", "warn"),
    // JSON-RPC 2.0 §6: an empty array is answered -32600 with id null; both drop it.
    ("jsonrpc/batch/empty", "warn", "warn"),
    // T6 bounds frames; MCP sets no bound, so these are SHOULDs outside provider. The
    // TypeScript server exits on the 64 MiB line; the Python server buffers it (~190 MiB) and
    // answers the ping inside it.
    ("jsonrpc/oversized/answered", "warn", "warn"),
    ("jsonrpc/oversized/memory-bounded", "warn", "warn"),
    ("liveness/after-malformed", "pass", "pass"),
    ("liveness/after-oversized", "warn", "pass"),
    ("liveness/in-flight-kept", "pass", "pass"),
    ("tools/list/shape", "pass", "pass"),
    ("tools/list/pagination", "pass", "pass"),
    // MCP 2025-06-18 server/utilities/pagination: "Invalid cursors SHOULD result in an error with
    // code -32602"; both ignore the cursor and list everything.
    ("tools/list/invalid-cursor", "warn", "warn"),
    ("tools/schema/valid", "pass", "pass"),
    // TOOL-2's closed schemas are the contract's: informational.
    ("tools/schema/closed-objects", "info", "info"),
    ("tools/names/sep-986", "pass", "pass"),
    // MCP 2025-06-18 server/tools (Error Handling) lists unknown tools among protocol errors
    // (example: -32602); both answer an isError result instead. No MUST there: a warning.
    ("tools/call/unknown-tool", "warn", "warn"),
    ("tools/call/wrong-typed-arguments", "pass", "pass"),
    ("resources/list/shape", "pass", "pass"),
    ("resources/read/listed", "pass", "pass"),
    ("resources/read/unknown", "pass", "pass"),
    ("cancellation/unknown-request", "pass", "pass"),
    // No request of these servers is known to stay in flight.
    ("cancellation/in-flight/no-response", "skip", "skip"),
    // No computer-mcp metadata: informational under plain, skipped where no tool has a role.
    ("meta-risk/declared", "info", "info"),
    ("meta-risk/by-role", "skip", "skip"),
    ("meta-risk/annotations", "skip", "skip"),
    ("meta-work/declared", "info", "info"),
    ("meta-work/resource-listed", "info", "info"),
    ("meta-work/snapshot-shape", "info", "info"),
    ("meta-work/invocation-malformed", "skip", "skip"),
    ("meta-work/invocation-not-an-argument", "skip", "skip"),
    ("meta-continuation/declared", "skip", "skip"),
    ("meta-continuation/absent", "skip", "skip"),
];

/// Asserts the report has exactly the plain profile's cases, with `pick`'s verdicts.
fn expect_all(
    report: &Value,
    pick: fn(&(&'static str, &'static str, &'static str)) -> &'static str,
) {
    let ids: Vec<&str> = report["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .filter_map(|c| c["id"].as_str())
        .collect();
    let pinned: Vec<&str> = PLAIN.iter().map(|(id, _, _)| *id).collect();
    assert_eq!(
        ids, pinned,
        "the plain catalogue changed: pin the new case's verdicts here"
    );
    let expected: Vec<(&str, &str)> = PLAIN.iter().map(|row| (row.0, pick(row))).collect();
    expect(report, &expected);
}

#[test]
fn the_typescript_reference_server_is_graded_precisely() {
    let Some(server) = everything() else { return };
    let server: Vec<&str> = server.iter().map(String::as_str).collect();
    let (out, report) = run_json(&["--timeout-ms", "20000"], &server);
    let report = report.unwrap_or_else(|| panic!("no report: {}", describe(&out)));
    expect_all(&report, |row| row.1);
    // A MUST failed (batches), so the gate fails.
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    crate::docs::assert_matches_schema(&report);
}

#[test]
fn the_python_sdk_server_is_graded_precisely() {
    let Some(server) = python() else { return };
    let server: Vec<&str> = server.iter().map(String::as_str).collect();
    let (out, report) = run_json(&["--timeout-ms", "20000"], &server);
    let report = report.unwrap_or_else(|| panic!("no report: {}", describe(&out)));
    expect_all(&report, |row| row.2);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
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
