//! A real server on the official Rust SDK, graded precisely: `rust-mcp-server@0.4.1` from
//! crates.io (rmcp 3.1.0 in its lock file; pinned and built on first use by
//! `testkit::prereq::rust_mcp_server`), over stdio and over Streamable HTTP on loopback, under
//! the plain profile. Every verdict is pinned, each one that is not a pass with the MCP or
//! JSON-RPC text behind it and what the server put on the wire; over stdio the report at
//! `--jobs 1` must equal the one at the default `--jobs` (a verdict does not depend on
//! parallelism). With `CI=true` a missing prerequisite fails the test.

use serde_json::Value;

use crate::http::{Server, grade};
use crate::support::{
    assert_outcomes_pinned, assert_pinned, assert_same_verdicts, case, describe, run_json,
};

fn rmcp_server() -> Option<Vec<String>> {
    let cmd = testkit::prereq::require(testkit::prereq::rust_mcp_server())?;
    Some(
        testkit::prereq::argv(&cmd)
            .iter()
            .map(|s| s.to_string_lossy().into_owned())
            .collect(),
    )
}

/// The id-less error rmcp 3.1.0 writes for a message it cannot read as a request.
const ID_LESS: &str = r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid request"}}"#;

/// Every verdict of the plain profile on rust-mcp-server 0.4.1 over stdio. Revisions as in
/// tests/it/real_servers.rs: it supports the four handshake dates and 2026-07-28.
const PLAIN: &[(&str, &str)] = &[
    ("lifecycle/server-discover/probe", "pass"),
    ("lifecycle/initialize/result-shape", "pass"),
    ("lifecycle/initialize/version/2024-11-05", "pass"),
    ("lifecycle/initialize/version/2025-03-26", "pass"),
    ("lifecycle/initialize/version/2025-06-18", "pass"),
    ("lifecycle/initialize/unsupported-proposal", "pass"),
    ("lifecycle/initialize/older-proposal", "pass"),
    ("lifecycle/initialize/malformed-proposal", "pass"),
    // It exits with status 1 on an initialize without protocolVersion (rmcp cannot read the
    // request). MCP's initialize requires the field and says nothing of a request without it;
    // T2's answer is the kit's rule: info under plain.
    ("lifecycle/initialize/missing-proposal", "info"),
    ("lifecycle/ping/before-initialize", "pass"),
    ("lifecycle/ping/after-initialize", "pass"),
    // It exits with status 1 when a connection's first request is tools/list: T3's -32600 is
    // the contract's, informational for a plain server.
    ("lifecycle/request-before-initialize", "info"),
    ("lifecycle/initialized/no-early-requests", "pass"),
    // T1 (MCP 2025-06-18 basic/transports: "The server MUST NOT write anything to its stdout
    // that is not a valid MCP message"): to a JSON scalar, to "jsonrpc": "1.0", to a non-string
    // method, to scalar params, to an empty array and to a batch it writes ID_LESS, an error
    // with no id at all. JSON-RPC 2.0 §5: a response's id "is REQUIRED" and "MUST be Null" when
    // the request's id could not be read; the 2025-06-18 schema's JSONRPCError requires it too.
    // Graded once, on the first exchange that showed it (rmcp's id-less errors).
    ("lifecycle/stdout/protocol-only", "fail"),
    ("lifecycle/shutdown/stdin-eof", "pass"),
    ("lifecycle/shutdown/sigterm", "pass"),
    ("lifecycle/initialize/revisions", "pass"),
    // rmcp 3.1.0 speaks the stateless era: server/discover in the envelope answers every
    // required field, enveloped requests are served, a request without the envelope is -32602,
    // and tools/list is answered as a connection's first request with the same tools on two
    // connections (in another order each time: rmcp lists them in a hash map's order, which
    // MCP allows; the case compared them in order and failed it, a false MUST fail).
    ("lifecycle/2026-07-28/discover", "pass"),
    ("lifecycle/2026-07-28/envelope", "pass"),
    ("lifecycle/2026-07-28/envelope-missing", "pass"),
    // It answers initialize on a connection opened by an enveloped server/discover (a 2025-06-18
    // result), and a request in the envelope on a 2025-11-25 connection, where the Python SDK
    // 2.3.0 refuses both. Those rules are that SDK's behaviour, no specification text at hand:
    // informational (they warned, a SHOULD with no text behind it: false).
    ("lifecycle/2026-07-28/initialize-refused", "info"),
    ("lifecycle/2026-07-28/legacy-refuses-envelope", "info"),
    ("lifecycle/2026-07-28/stateless", "pass"),
    ("jsonrpc/ids/zero", "pass"),
    ("jsonrpc/ids/negative", "pass"),
    ("jsonrpc/ids/string", "pass"),
    ("jsonrpc/ids/empty-string", "pass"),
    ("jsonrpc/ids/i64-max", "pass"),
    ("jsonrpc/ids/i64-min", "pass"),
    // T3a (a SHOULD outside provider): rmcp's ids are i64, and a ping with id 2^64-1, a valid
    // JSON-RPC integer id, is dropped without an answer.
    ("jsonrpc/ids/u64-max", "warn"),
    ("jsonrpc/response-ids", "pass"),
    ("jsonrpc/unknown-method", "pass"),
    ("jsonrpc/unknown-notification", "pass"),
    // JSON-RPC 2.0 §5.1 answers a line that is no JSON -32700 with id null; rmcp drops it (T4,
    // a SHOULD outside provider), and drops invalid UTF-8 too (the kit's rule: info).
    ("jsonrpc/malformed/parse-error", "warn"),
    ("jsonrpc/malformed/invalid-utf8", "info"),
    // T4 (SHOULD outside provider; JSON-RPC 2.0 §5): each is answered -32600 but with no id
    // (ID_LESS), where the id was the request's (71, 72, 73) or null (a scalar).
    ("jsonrpc/invalid/not-an-object", "warn"),
    ("jsonrpc/invalid/wrong-version", "warn"),
    ("jsonrpc/invalid/method-not-string", "warn"),
    ("jsonrpc/invalid/params-not-structured", "warn"),
    // A request with id null is dropped without an answer.
    ("jsonrpc/invalid/null-id", "warn"),
    // MCP 2025-03-26 basic (Batching): implementations "MUST support receiving JSON-RPC
    // batches". Negotiated 2025-03-26, it answers the batch with one ID_LESS: a MUST failure.
    ("jsonrpc/batch/2025-03-26", "fail"),
    // Under 2025-06-18 and 2024-11-05 it refuses a batch with -32600, as T5 asks.
    ("jsonrpc/batch/rejected-2025-06-18", "pass"),
    ("jsonrpc/batch/rejected-2024-11-05", "pass"),
    // JSON-RPC 2.0 §6: an empty array is answered -32600 with id null; it omits the id.
    ("jsonrpc/batch/empty", "warn"),
    // T6's bound is the kit's: it answers the ping inside a 64 MiB line and grows ~120 MiB.
    ("jsonrpc/oversized/answered", "info"),
    ("jsonrpc/oversized/memory-bounded", "info"),
    ("jsonrpc/long-connection", "pass"),
    ("liveness/after-malformed", "pass"),
    ("liveness/after-oversized", "pass"),
    ("liveness/in-flight-kept", "pass"),
    ("tools/list/shape", "pass"),
    ("tools/list/pagination", "pass"),
    // MCP 2025-06-18 server/utilities/pagination: "Invalid cursors SHOULD result in an error with
    // code -32602"; it ignores the cursor and lists everything.
    ("tools/list/invalid-cursor", "warn"),
    ("tools/schema/valid", "pass"),
    // TOOL-2's closed schemas are the contract's: informational.
    ("tools/schema/closed-objects", "info"),
    ("tools/names/sep-986", "pass"),
    // MCP server/tools (Error Handling) lists unknown tools among protocol errors (example
    // -32602, JSON-RPC's Invalid params); rmcp answers -32600, JSON-RPC's code for "not a valid
    // Request object", which the request was. TOOL-3, a SHOULD: a warning.
    ("tools/call/unknown-tool", "warn"),
    // None of its tools is annotated readOnlyHint (they run cargo): the runner calls none, so
    // the cases on call results skip, and the coverage line says so.
    ("tools/call/wrong-typed-arguments", "skip"),
    ("tools/call/wrong-typed-arguments@2025-11-25", "skip"),
    ("tools/result/shape", "skip"),
    ("tools/result/error-split", "skip"),
    ("tools/result/output-schema", "skip"),
    ("tools/names/2025-11-25", "pass"),
    ("tools/schema/dialect/2025-11-25", "pass"),
    ("listings/title/2025-11-25", "pass"),
    ("listings/icons/2025-11-25", "pass"),
    // It declares tools only: no resources, no prompts.
    ("resources/list/shape", "skip"),
    ("resources/read/listed", "skip"),
    ("resources/read/unknown", "skip"),
    ("resources/read/unknown@2026-07-28", "skip"),
    ("prompts/list/shape", "skip"),
    ("prompts/get/shape", "skip"),
    ("prompts/get/unknown", "skip"),
    ("logging/message-shape", "skip"),
    ("cancellation/unknown-request", "pass"),
    ("cancellation/in-flight/no-response", "skip"),
    // No computer-mcp metadata: informational under plain, skipped where no tool has a role.
    ("meta-risk/declared", "info"),
    ("meta-risk/by-role", "skip"),
    ("meta-risk/annotations", "skip"),
    ("meta-work/declared", "info"),
    ("meta-work/resource-listed", "info"),
    ("meta-work/snapshot-shape", "skip"),
    ("meta-work/invocation-malformed", "skip"),
    ("meta-work/invocation-not-an-argument", "skip"),
    ("meta-continuation/declared", "skip"),
    ("meta-continuation/absent", "skip"),
];

/// Per case its verdict, level, blocker and expectation. Not the `actual` texts: the server
/// lists its tools in a hash map's order, different in each process, and several texts quote
/// the listing (the verdicts on it do not depend on that order).
fn verdicts(report: &Value) -> Vec<String> {
    report["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|c| {
            format!(
                "{} {} {} blocked_by={} expected={}",
                c["id"].as_str().unwrap_or("?"),
                c["outcome"],
                c["level"],
                c["blocked_by"],
                c["expected"]
            )
        })
        .collect()
}

/// rust-mcp-server 0.4.1 (rmcp 3.1.0) over stdio, every plain verdict pinned: its true
/// failures are the id-less errors (T1, graded once) and the 2025-03-26 batch it does not
/// support (T5); the same report at `--jobs 1`.
#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn the_rust_sdk_server_is_graded_precisely_at_any_jobs() {
    let Some(server) = rmcp_server() else { return };
    let server: Vec<&str> = server.iter().map(String::as_str).collect();
    let (out, report) = run_json(&["--timeout-ms", "20000"], &server);
    let report = report.unwrap_or_else(|| panic!("no report: {}", describe(&out)));
    crate::docs::assert_matches_schema(&report);
    assert_pinned(&report, PLAIN);
    // The T1 failure is the id-less error itself, seen first where the runner sent a scalar.
    let stdout = case(&report, "lifecycle/stdout/protocol-only");
    assert!(
        stdout["actual"]
            .as_str()
            .is_some_and(|a| a.contains("neither a method nor an id") && a.contains(ID_LESS)),
        "{stdout}"
    );
    // And the batch failure is the same error where a 2025-03-26 batch needs its answers.
    assert_eq!(case(&report, "jsonrpc/batch/2025-03-26")["actual"], ID_LESS);
    // The id-less errors and the batch fail the gate.
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));

    let other = run_json(&["--timeout-ms", "20000", "--jobs", "1"], &server);
    assert_same_verdicts("1", (&out, &report), (&other.0, other.1), verdicts);
}

/// rust-mcp-server on Streamable HTTP (its `http` feature; it binds 127.0.0.1 only) on a port
/// the test picked; killed when dropped.
fn rmcp_server_http() -> Option<Server> {
    let port = testkit::listen::free_loopback_port();
    let mut cmd = testkit::prereq::require(testkit::prereq::rust_mcp_server_streamable_http(port))?;
    // It says so on stderr once it listens.
    let child = testkit::listen::spawn_listening(&mut cmd, "started on http://", "rust-mcp-server");
    Some(Server {
        child,
        url: format!("http://127.0.0.1:{port}/"),
    })
}

/// Every verdict of rust-mcp-server 0.4.1 over Streamable HTTP under the plain profile: the
/// catalogue's cases over sessions of the endpoint, then the transport's own (HTTP-1..9).
const PLAIN_OVER_HTTP: &[(&str, &str)] = &[
    // With the 2026-07-28 request metadata headers (MCP-Protocol-Version, Mcp-Method), which
    // rmcp requires of a 2026-07-28 request over HTTP (-32020 without them), the probe's
    // server/discover is answered, as over stdio.
    ("lifecycle/server-discover/probe", "pass"),
    ("lifecycle/initialize/result-shape", "pass"),
    ("lifecycle/initialize/version/2024-11-05", "pass"),
    ("lifecycle/initialize/version/2025-03-26", "pass"),
    ("lifecycle/initialize/version/2025-06-18", "pass"),
    ("lifecycle/initialize/unsupported-proposal", "pass"),
    ("lifecycle/initialize/older-proposal", "pass"),
    ("lifecycle/initialize/malformed-proposal", "pass"),
    // 422 to an initialize without protocolVersion: T2's answer is the kit's rule, info.
    ("lifecycle/initialize/missing-proposal", "info"),
    // HTTP-4: it requires a session and refuses a request without one 422, not 400: what it
    // does before initialize is not observable over HTTP, and the status is
    // transport/http/session/required's finding (these two were a second verdict of it).
    ("lifecycle/ping/before-initialize", "skip"),
    ("lifecycle/ping/after-initialize", "pass"),
    ("lifecycle/request-before-initialize", "skip"),
    ("lifecycle/initialized/no-early-requests", "pass"),
    // Stdio's own rules (T1, T8): not applicable over HTTP.
    ("lifecycle/stdout/protocol-only", "skip"),
    ("lifecycle/shutdown/stdin-eof", "skip"),
    ("lifecycle/shutdown/sigterm", "skip"),
    ("lifecycle/initialize/revisions", "pass"),
    // The stateless era over HTTP, as over stdio.
    ("lifecycle/2026-07-28/discover", "pass"),
    ("lifecycle/2026-07-28/envelope", "pass"),
    ("lifecycle/2026-07-28/envelope-missing", "pass"),
    // No modern connection over HTTP (every POST names its revision): not applicable.
    ("lifecycle/2026-07-28/initialize-refused", "skip"),
    // On a 2025-11-25 session it refuses a request in the 2026-07-28 envelope -32020
    // HeaderMismatch (the session's MCP-Protocol-Version is not the envelope's): refused as the
    // 2026-07-28 transport says (stdio: info, it mixes the eras there).
    ("lifecycle/2026-07-28/legacy-refuses-envelope", "pass"),
    ("lifecycle/2026-07-28/stateless", "pass"),
    ("jsonrpc/ids/zero", "pass"),
    ("jsonrpc/ids/negative", "pass"),
    ("jsonrpc/ids/string", "pass"),
    ("jsonrpc/ids/empty-string", "pass"),
    ("jsonrpc/ids/i64-max", "pass"),
    ("jsonrpc/ids/i64-min", "pass"),
    // As over stdio: a ping with id 2^64-1 gets no answer (T3a, SHOULD).
    ("jsonrpc/ids/u64-max", "warn"),
    ("jsonrpc/response-ids", "pass"),
    ("jsonrpc/unknown-method", "pass"),
    ("jsonrpc/unknown-notification", "pass"),
    // T4 (SHOULD outside provider): its HTTP transport refuses a body that is no JSON, or no
    // JSON-RPC message, with a 4xx and a text body ("fail to deserialize request body …"), no
    // JSON-RPC error; the runner reads no answer in it (its "dropped" wording: the transcript
    // shows the refusal).
    ("jsonrpc/malformed/parse-error", "warn"),
    ("jsonrpc/malformed/invalid-utf8", "info"),
    ("jsonrpc/invalid/not-an-object", "warn"),
    ("jsonrpc/invalid/wrong-version", "warn"),
    ("jsonrpc/invalid/method-not-string", "warn"),
    ("jsonrpc/invalid/params-not-structured", "warn"),
    ("jsonrpc/invalid/null-id", "warn"),
    // MCP 2025-03-26 (Batching, and its transport: a POST body MAY be "an array batching one or
    // more requests and/or notifications"): negotiated 2025-03-26, it refuses the batch 415
    // "fail to deserialize request body": a MUST failure, as over stdio.
    ("jsonrpc/batch/2025-03-26", "fail"),
    // T5's rejection is the kit's rule: info (refused with a text body, no -32600).
    ("jsonrpc/batch/rejected-2025-06-18", "info"),
    ("jsonrpc/batch/rejected-2024-11-05", "info"),
    // JSON-RPC 2.0 §6: -32600 with id null; it answers a 4xx with a text body.
    ("jsonrpc/batch/empty", "warn"),
    // Stdio's framing (T6, T4 after a 64 MiB line): not applicable over HTTP.
    ("jsonrpc/oversized/answered", "skip"),
    ("jsonrpc/oversized/memory-bounded", "skip"),
    ("jsonrpc/long-connection", "pass"),
    ("liveness/after-malformed", "pass"),
    ("liveness/after-oversized", "skip"),
    ("liveness/in-flight-kept", "pass"),
    ("tools/list/shape", "pass"),
    ("tools/list/pagination", "pass"),
    // The rest as over stdio (each verdict that is no pass says why there).
    ("tools/list/invalid-cursor", "warn"),
    ("tools/schema/valid", "pass"),
    ("tools/schema/closed-objects", "info"),
    ("tools/names/sep-986", "pass"),
    ("tools/call/unknown-tool", "warn"),
    ("tools/call/wrong-typed-arguments", "skip"),
    ("tools/call/wrong-typed-arguments@2025-11-25", "skip"),
    ("tools/result/shape", "skip"),
    ("tools/result/error-split", "skip"),
    ("tools/result/output-schema", "skip"),
    ("tools/names/2025-11-25", "pass"),
    ("tools/schema/dialect/2025-11-25", "pass"),
    ("listings/title/2025-11-25", "pass"),
    ("listings/icons/2025-11-25", "pass"),
    ("resources/list/shape", "skip"),
    ("resources/read/listed", "skip"),
    ("resources/read/unknown", "skip"),
    ("resources/read/unknown@2026-07-28", "skip"),
    ("prompts/list/shape", "skip"),
    ("prompts/get/shape", "skip"),
    ("prompts/get/unknown", "skip"),
    ("logging/message-shape", "skip"),
    ("cancellation/unknown-request", "pass"),
    ("cancellation/in-flight/no-response", "skip"),
    ("meta-risk/declared", "info"),
    ("meta-risk/by-role", "skip"),
    ("meta-risk/annotations", "skip"),
    ("meta-work/declared", "info"),
    ("meta-work/resource-listed", "info"),
    ("meta-work/snapshot-shape", "skip"),
    ("meta-work/invocation-malformed", "skip"),
    ("meta-work/invocation-not-an-argument", "skip"),
    ("meta-continuation/declared", "skip"),
    ("meta-continuation/absent", "skip"),
    ("transport/http/post/answer", "pass"),
    ("transport/http/post/accepted", "pass"),
    // HTTP-4: an unknown or ended session gets 404, DELETE ends a session.
    ("transport/http/session/unknown", "pass"),
    ("transport/http/session/id-charset", "pass"),
    // HTTP-4: "Servers that require a session ID SHOULD respond to requests without an
    // Mcp-Session-Id header (other than initialization) with HTTP 400 Bad Request": it answers
    // 422 "Unexpected message, expect initialize request", a warning.
    ("transport/http/session/required", "warn"),
    ("transport/http/session/delete", "pass"),
    ("transport/http/get/stream", "pass"),
    ("transport/http/protocol-version/unsupported", "pass"),
    // HTTP-8: "If the Origin header is present and invalid, servers MUST respond with HTTP 403
    // Forbidden": rmcp validates the Host header (its DNS-rebinding guard) and no Origin, and
    // serves initialize from Origin: http://evil.example (200).
    ("transport/http/origin/foreign", "fail"),
    // On a 2025-11-25 session: a ping's answer in its POST's stream, and the stream opens with
    // an event that has an id and no data, as HTTP-10 asks ("SHOULD immediately send an SSE
    // event consisting of an event ID and an empty data field"). The foreign Origin on that
    // revision is the same defect as above: blocked by it, graded once.
    ("transport/http/post/answer@2025-11-25", "pass"),
    ("transport/http/origin/foreign@2025-11-25", "skip"),
    ("transport/http/sse/priming/2025-11-25", "pass"),
];

/// rust-mcp-server 0.4.1 (rmcp 3.1.0) over Streamable HTTP, every verdict pinned: it validates
/// no `Origin` (HTTP-8) and refuses a 2025-03-26 batch (T5), both MUST failures; it refuses a
/// request without a session 422 instead of 400 (HTTP-4, a warning graded once).
#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn the_rust_sdk_server_over_http_is_graded_on_every_case_that_applies() {
    let Some(server) = rmcp_server_http() else {
        return;
    };
    let (code, outcomes, json) = grade(&server.url);
    crate::docs::assert_matches_schema(&json);
    assert_outcomes_pinned(&outcomes, PLAIN_OVER_HTTP);
    // The cases refused for want of a session name the session case's status in their reason.
    for id in [
        "lifecycle/ping/before-initialize",
        "lifecycle/request-before-initialize",
    ] {
        let c = case(&json, id);
        assert!(
            c["reason"].as_str().is_some_and(
                |r| r.contains("HTTP 422") && r.contains("transport/http/session/required")
            ),
            "{c}"
        );
    }
    // The foreign Origin and the batch fail the gate.
    assert_eq!(code, Some(1));
}
