//! Real servers nobody here wrote, graded precisely: the TypeScript reference server
//! (`@modelcontextprotocol/server-everything@2026.8.31`) and a Python SDK (`mcp==2.3.0`) server.
//! Both drop malformed lines silently (a warn under plain, a fail under --strict or the provider
//! profile) and declare no computer-mcp metadata (info under plain). Every verdict of the plain
//! profile is pinned for both, each one that is not a pass with the MCP or JSON-RPC text behind
//! it, so a change in how the runner grades them fails here, and the report at `--jobs 1` must
//! equal the pinned one (a verdict does not depend on parallelism). With `CI=true` a missing prerequisite fails the test.

use serde_json::Value;

use crate::support::{assert_same_verdicts, describe, outcome, run_json};

fn everything() -> Option<Vec<String>> {
    let cmd = testkit::prereq::require(testkit::prereq::everything_server())?;
    Some(
        testkit::prereq::argv(&cmd)
            .iter()
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

/// Every verdict of the plain profile, `(case, TypeScript server, Python SDK server)`, each with
/// the rule that justifies a verdict other than pass. Revisions: the discovery session and most
/// cases negotiate 2025-06-18; the batch cases negotiate the date they name; an `ID@DATE`
/// instance is graded on a connection of that revision (docs/conformance.md, Revisions).
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
    // 2025-06-18 basic/lifecycle makes protocolVersion required and says nothing of a request
    // without one; only T2 asks for a supported date: the kit's rule, info under plain (was
    // warn).
    ("lifecycle/initialize/missing-proposal", "info", "pass"),
    ("lifecycle/ping/before-initialize", "pass", "pass"),
    ("lifecycle/ping/after-initialize", "pass", "pass"),
    // T3's -32600 before initialize is the contract's: informational for a plain server.
    ("lifecycle/request-before-initialize", "info", "info"),
    // Neither sends a request before notifications/initialized (the TypeScript server asks
    // for roots only after it).
    ("lifecycle/initialized/no-early-requests", "pass", "pass"),
    ("lifecycle/stdout/protocol-only", "pass", "pass"),
    ("lifecycle/shutdown/stdin-eof", "pass", "pass"),
    // Both die of SIGTERM's default action (status "signal: 15", measured 2026-11-30) within
    // milliseconds: an exit, which is all a plain server owes T8; only a provider must exit 0.
    ("lifecycle/shutdown/sigterm", "pass", "pass"),
    // Offered each revision: the TypeScript server echoes the four handshake dates, the Python
    // SDK 2.3.0 server those and answers server/discover in the 2026-07-28 envelope.
    ("lifecycle/initialize/revisions", "pass", "pass"),
    // The stateless era's own rules: the TypeScript server does not speak 2026-07-28 (skip:
    // revision not supported); the Python SDK 2.3.0 server answers server/discover with every
    // required field, refuses a request without the envelope -32602, initialize on a modern
    // connection -32022 with {supported, requested}, an enveloped request on a 2025-11-25
    // connection -32600, and answers tools/list as a connection's first request.
    ("lifecycle/2026-07-28/discover", "skip", "pass"),
    ("lifecycle/2026-07-28/envelope", "skip", "pass"),
    ("lifecycle/2026-07-28/envelope-missing", "skip", "pass"),
    ("lifecycle/2026-07-28/initialize-refused", "skip", "pass"),
    (
        "lifecycle/2026-07-28/legacy-refuses-envelope",
        "skip",
        "pass",
    ),
    ("lifecycle/2026-07-28/stateless", "skip", "pass"),
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
    // JSON-RPC 2.0 §5, on every exchange of every case: both answer under the request's id.
    ("jsonrpc/response-ids", "pass", "pass"),
    ("jsonrpc/unknown-method", "pass", "pass"),
    ("jsonrpc/unknown-notification", "pass", "pass"),
    // Both SDKs drop unparseable and invalid lines silently, or read invalid UTF-8 lossily and
    // answer -32601. JSON-RPC 2.0 §5.1 answers them -32700 / -32600; T4 makes that a MUST for
    // providers, a SHOULD elsewhere (the runner's spec).
    ("jsonrpc/malformed/parse-error", "warn", "warn"),
    // Invalid UTF-8 is the kit's rule (T1's UTF-8, T4's answer): neither MCP nor JSON-RPC says
    // how to answer bytes that are no text, so it is informational under plain (was warn).
    ("jsonrpc/malformed/invalid-utf8", "info", "info"),
    ("jsonrpc/invalid/not-an-object", "warn", "warn"),
    ("jsonrpc/invalid/wrong-version", "warn", "warn"),
    ("jsonrpc/invalid/method-not-string", "warn", "warn"),
    ("jsonrpc/invalid/params-not-structured", "warn", "warn"),
    ("jsonrpc/invalid/null-id", "warn", "warn"),
    // MCP 2025-03-26 basic (Batching): implementations "MUST support receiving JSON-RPC
    // batches". Both servers negotiate 2025-03-26 when asked and drop the batch: a MUST failure.
    ("jsonrpc/batch/2025-03-26", "fail", "fail"),
    // Under 2025-06-18 and 2024-11-05 they drop a batch without any answer. Those revisions
    // have no batch and say nothing of one; rejecting it with -32600 is T5's, the kit's rule:
    // info under plain (was warn).
    ("jsonrpc/batch/rejected-2025-06-18", "info", "info"),
    ("jsonrpc/batch/rejected-2024-11-05", "info", "info"),
    // JSON-RPC 2.0 §6: an empty array is answered -32600 with id null; both drop it.
    ("jsonrpc/batch/empty", "warn", "warn"),
    // T6 bounds frames; MCP and JSON-RPC set no bound, so these are the kit's rules and
    // informational under plain (were warn). The TypeScript server exits on the 64 MiB line;
    // the Python server buffers it (~190 MiB and more) and answers the ping inside it.
    ("jsonrpc/oversized/answered", "info", "info"),
    ("jsonrpc/oversized/memory-bounded", "info", "info"),
    ("jsonrpc/long-connection", "pass", "pass"),
    // T4's liveness after bad input is the kit's rule too: info under plain (TypeScript: was
    // warn; it exits on the 64 MiB line).
    ("liveness/after-malformed", "pass", "pass"),
    ("liveness/after-oversized", "info", "pass"),
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
    // The runner calls only tools annotated readOnlyHint: true outside provider:
    // the TypeScript server has one with a required string; the Python server's tools carry no
    // annotation, so the case skips with the reason (was pass: it called `add`).
    ("tools/call/wrong-typed-arguments", "pass", "skip"),
    // The same on a 2025-11-25 connection (both support it), where SEP-1303 makes an
    // input-validation failure an isError result: the TypeScript server's is.
    (
        "tools/call/wrong-typed-arguments@2025-11-25",
        "pass",
        "skip",
    ),
    // MCP server/tools, on every tools/call result of every case: the TypeScript server's
    // isError result is a CallToolResult; the Python server is called by no case now.
    ("tools/result/shape", "pass", "skip"),
    // TOOL-4's split needs a call of a listed tool with valid arguments: none under plain.
    ("tools/result/error-split", "skip", "skip"),
    // MCP server/tools (output schema): the case's probe calls the TypeScript server's
    // read-only tools that declare an outputSchema, with arguments made from their inputSchema,
    // and their structuredContent conforms; the Python server's tools carry no readOnlyHint, so
    // nothing of it is called.
    ("tools/result/output-schema", "pass", "skip"),
    // MCP 2025-11-25 server/tools, on a 2025-11-25 connection (both support it): their tool
    // names (SEP-986) and schemas in their dialect, 2020-12 by default (SEP-1613).
    ("tools/names/2025-11-25", "pass", "pass"),
    ("tools/schema/dialect/2025-11-25", "pass", "pass"),
    // MCP 2025-11-25 schema.ts (BaseMetadata, Icons): server-everything titles its tools and
    // prompts, both list no icons; every title is a string.
    ("listings/title/2025-11-25", "pass", "pass"),
    ("listings/icons/2025-11-25", "pass", "pass"),
    ("resources/list/shape", "pass", "pass"),
    ("resources/read/listed", "pass", "pass"),
    ("resources/read/unknown", "pass", "pass"),
    // 2026-07-28: the TypeScript server answers server/discover in the envelope -32601 (not
    // supported); the Python SDK 2.3.0 server answers it, and answers the enveloped read, sent
    // with no initialize, -32602 as SEP-2164 asks.
    ("resources/read/unknown@2026-07-28", "skip", "pass"),
    // server-everything lists prompts; the Python server declares the capability and lists none.
    ("prompts/list/shape", "pass", "pass"),
    ("prompts/get/shape", "pass", "skip"),
    // MCP server/prompts (Error Handling): "Servers SHOULD return standard JSON-RPC errors for
    // common failure cases: Invalid prompt name: -32602 (Invalid params)". The TypeScript server
    // answers -32602 ("Prompt … not found"); the Python SDK 2.3.0 server answers code 0
    // ("Unknown prompt: …"): a SHOULD deviation, a warning.
    ("prompts/get/unknown", "pass", "warn"),
    // Neither logs without being asked to.
    ("logging/message-shape", "skip", "skip"),
    ("cancellation/unknown-request", "pass", "pass"),
    // No request of these servers is known to stay in flight.
    ("cancellation/in-flight/no-response", "skip", "skip"),
    // No computer-mcp metadata: informational under plain, skipped where no tool has a role.
    ("meta-risk/declared", "info", "info"),
    ("meta-risk/by-role", "skip", "skip"),
    ("meta-risk/annotations", "skip", "skip"),
    ("meta-work/declared", "info", "info"),
    ("meta-work/resource-listed", "info", "info"),
    // The work URI is not listed (meta-work/resource-listed, info), so its refused read is that
    // defect: the snapshot case is blocked by it, not graded a second time.
    ("meta-work/snapshot-shape", "skip", "skip"),
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
    let expected: Vec<(&str, &str)> = PLAIN.iter().map(|row| (row.0, pick(row))).collect();
    crate::support::assert_pinned(report, &expected);
}

/// Runs the plain profile against `server` at the default `--jobs` (8) and pins every verdict
/// with `pick`, then at `--jobs 4` and `--jobs 1` (no concurrency at all) and requires the same
/// report, modulo timings (a verdict must not depend on parallelism or load). The
/// pinned run doubles as the `--jobs 8` one: a run of the Python server is about 100
/// interpreter starts. `timeout_ms` is the runner's `--timeout-ms`.
fn graded_precisely_at_any_jobs(
    server: &[String],
    timeout_ms: &str,
    pick: fn(&(&'static str, &'static str, &'static str)) -> &'static str,
) {
    let server: Vec<&str> = server.iter().map(String::as_str).collect();
    let (out, report) = run_json(&["--timeout-ms", timeout_ms], &server);
    let report = report.unwrap_or_else(|| panic!("no report: {}", describe(&out)));
    expect_all(&report, pick);
    // Both fail the 2025-03-26 batch MUST (pinned in PLAIN), so the gate fails.
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    crate::docs::assert_matches_schema(&report);

    for jobs in ["4", "1"] {
        let other = run_json(&["--timeout-ms", timeout_ms, "--jobs", jobs], &server);
        assert_same_verdicts(jobs, (&out, &report), (&other.0, other.1), verdicts);
    }
}

#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn the_typescript_reference_server_is_graded_precisely_at_any_jobs() {
    let Some(server) = everything() else { return };
    graded_precisely_at_any_jobs(&server, "20000", |row| row.1);
}

#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn the_python_sdk_server_is_graded_precisely_at_any_jobs() {
    let Some(server) = python() else { return };
    // Each start costs the interpreter about 2 s of CPU (the SDK's import): eight at once on two
    // cores, beside the other test thread, can come near a 20 s initialize bound, which the
    // runner would rightly report as its own error (overload), not the server's.
    graded_precisely_at_any_jobs(&server, "40000", |row| row.2);
}

#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
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

/// A report without its timings: per case the verdict and every text, digits masked (elapsed
/// times, memory growth), so two runs compare equal when they graded the same way.
fn verdicts(report: &Value) -> Vec<String> {
    let mask = |v: &Value| {
        v.as_str()
            .unwrap_or("-")
            .chars()
            .map(|c| if c.is_ascii_digit() { '#' } else { c })
            .collect::<String>()
    };
    report["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|c| {
            format!(
                "{} {} {} blocked_by={} expected={} actual={} reason={}",
                c["id"].as_str().unwrap_or("?"),
                c["outcome"],
                c["level"],
                mask(&c["blocked_by"]),
                mask(&c["expected"]),
                mask(&c["actual"]),
                mask(&c["reason"])
            )
        })
        .collect()
}
