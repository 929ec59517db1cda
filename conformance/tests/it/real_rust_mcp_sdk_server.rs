//! A real server on the other Rust SDK, graded precisely: `rust-mcp-filesystem@0.4.5` from
//! crates.io (on `rust-mcp-sdk` 1.0.1, the rust-mcp-stack project's SDK, which shares no code
//! with the official `rmcp`; pinned and built on first use by
//! `testkit::prereq::rust_mcp_filesystem`), over stdio under the plain profile, read-only and
//! confined to one folder. Every verdict is pinned, each one that is not a pass with the MCP or
//! JSON-RPC text behind it and what the server put on the wire; the report at `--jobs 1` must
//! equal the one at the default `--jobs`. With `CI=true` a missing prerequisite fails the test.

use crate::support::{assert_same_at_jobs_1, case, describe, grade_pinned};

/// Every verdict of the plain profile on rust-mcp-filesystem 0.4.5 over stdio. Its own
/// `initialize` handler answers the server's 2025-11-25 unless the proposal sorts before it as
/// a string, which it echoes: every handshake date is supported, 2026-07-28 is not.
const PLAIN: &[(&str, &str)] = &[
    // The probe as Claude Code sends it (`server/discover` with the draft's `_meta` in its
    // params) is never answered: the SDK cannot read those params and drops the request (a
    // ping sent after it is answered; `server/discover` without params is answered -32601).
    // T3's fallback is the kit's rule: info.
    ("lifecycle/server-discover/probe", "info"),
    ("lifecycle/initialize/result-shape", "pass"),
    ("lifecycle/initialize/version/2024-11-05", "pass"),
    ("lifecycle/initialize/version/2025-03-26", "pass"),
    ("lifecycle/initialize/version/2025-06-18", "pass"),
    // 2099-01-01 and not-a-date sort after 2025-11-25: answered 2025-11-25.
    ("lifecycle/initialize/unsupported-proposal", "pass"),
    // MCP basic/lifecycle (version negotiation): "If the server supports the requested
    // protocol version, it MUST respond with the same version. Otherwise, the server MUST
    // respond with another protocol version it supports." 2000-01-01, a date no revision or
    // draft ever used, sorts before 2025-11-25 and is echoed back
    // ("protocolVersion":"2000-01-01"): a MUST failure, the one that fails the gate.
    ("lifecycle/initialize/older-proposal", "fail"),
    ("lifecycle/initialize/malformed-proposal", "pass"),
    // An initialize without protocolVersion is never answered: the request cannot be read as
    // the SDK's InitializeRequest and is dropped, while a ping sent after it is answered (by
    // hand, and in the case's transcript). MCP's initialize requires the field and says
    // nothing of a request without it; T2's answer is the kit's rule: info under plain. (The
    // gate once called this silence the runner's error, blaming a loaded machine.)
    ("lifecycle/initialize/missing-proposal", "info"),
    ("lifecycle/ping/before-initialize", "pass"),
    ("lifecycle/ping/after-initialize", "pass"),
    // tools/list as a connection's first request is answered with the listing. T3's -32600
    // before initialize is the contract's: info for a plain server.
    ("lifecycle/request-before-initialize", "info"),
    ("lifecycle/initialized/no-early-requests", "pass"),
    // Its start-up lines ("Secure MCP Filesystem Server running in \"readonly\" mode …") go to
    // stderr: stdout carries MCP messages only.
    ("lifecycle/stdout/protocol-only", "pass"),
    ("lifecycle/shutdown/stdin-eof", "pass"),
    ("lifecycle/shutdown/sigterm", "pass"),
    ("lifecycle/initialize/revisions", "pass"),
    // It does not speak the 2026-07-28 draft (the enveloped server/discover is dropped, as
    // above): nothing of that revision to grade.
    ("lifecycle/2026-07-28/discover", "skip"),
    ("lifecycle/2026-07-28/envelope", "skip"),
    ("lifecycle/2026-07-28/envelope-missing", "skip"),
    ("lifecycle/2026-07-28/initialize-refused", "skip"),
    ("lifecycle/2026-07-28/legacy-refuses-envelope", "skip"),
    ("lifecycle/2026-07-28/stateless", "skip"),
    ("jsonrpc/ids/zero", "pass"),
    ("jsonrpc/ids/negative", "pass"),
    ("jsonrpc/ids/string", "pass"),
    ("jsonrpc/ids/empty-string", "pass"),
    // Its ids are i64: 2^63 - 1 and -2^63 are echoed exactly.
    ("jsonrpc/ids/i64-max", "pass"),
    ("jsonrpc/ids/i64-min", "pass"),
    // A ping with id 2^64 - 1 does not fit an i64: dropped, the ping after it answered. MCP
    // asks for "a string or integer" id with no range; the u64 range is T3a's, the contract's:
    // a SHOULD outside provider, a warning.
    ("jsonrpc/ids/u64-max", "warn"),
    ("jsonrpc/response-ids", "pass"),
    ("jsonrpc/unknown-method", "pass"),
    ("jsonrpc/unknown-notification", "pass"),
    // JSON-RPC 2.0 §5.1 answers a line that is no JSON -32700 with id null; it drops the line
    // silently (and answers the ping after it). T4: a SHOULD outside provider.
    ("jsonrpc/malformed/parse-error", "warn"),
    // Invalid UTF-8 in a method name is read lossily and answered -32601 ("No handler is
    // implemented for custom requests.") under the request's id: the kit's rule, info.
    ("jsonrpc/malformed/invalid-utf8", "info"),
    // JSON-RPC 2.0 §5 (-32600 "Invalid Request", id null where none can be read): a JSON
    // scalar, "jsonrpc": "1.0", a non-string method, scalar params and a null id are each
    // dropped silently. T4, a SHOULD outside provider.
    ("jsonrpc/invalid/not-an-object", "warn"),
    ("jsonrpc/invalid/wrong-version", "warn"),
    ("jsonrpc/invalid/method-not-string", "warn"),
    ("jsonrpc/invalid/params-not-structured", "warn"),
    ("jsonrpc/invalid/null-id", "warn"),
    // It answers a 2025-03-26 batch with a batch of the two ping results.
    ("jsonrpc/batch/2025-03-26", "pass"),
    // It answers batches under every revision ([{"id":"batch-a",…,"result":{}}]), as JSON-RPC
    // 2.0 allows; T5's -32600 for the revisions without batches is the kit's rule: info.
    ("jsonrpc/batch/rejected-2025-06-18", "info"),
    ("jsonrpc/batch/rejected-2024-11-05", "info"),
    // JSON-RPC 2.0 §6: an empty array is answered -32600 with id null; it is dropped.
    ("jsonrpc/batch/empty", "warn"),
    // T6's bound is the kit's (MCP and JSON-RPC set none): the 64 MiB line is dropped without
    // an answer, the server lives on (the ping after it is answered), and its resident memory
    // grows by about 16 MiB while the line streams in, over T6's 12 MiB.
    ("jsonrpc/oversized/answered", "info"),
    ("jsonrpc/oversized/memory-bounded", "info"),
    ("jsonrpc/long-connection", "pass"),
    ("liveness/after-malformed", "pass"),
    ("liveness/after-oversized", "pass"),
    ("liveness/in-flight-kept", "pass"),
    ("tools/list/shape", "pass"),
    ("tools/list/pagination", "pass"),
    // MCP 2025-06-18 server/utilities/pagination: "Invalid cursors SHOULD result in an error
    // with code -32602"; it ignores the cursor and lists every tool.
    ("tools/list/invalid-cursor", "warn"),
    ("tools/schema/valid", "pass"),
    // TOOL-2's closed schemas are the contract's: informational.
    ("tools/schema/closed-objects", "info"),
    ("tools/names/sep-986", "pass"),
    // MCP server/tools (Error Handling) lists "Unknown tools" among the protocol errors
    // (example: -32602); it answers an isError result ("Unknown tool:
    // mcp-conformance-no-such-tool"). TOOL-3 grades that a SHOULD: a warning.
    ("tools/call/unknown-tool", "warn"),
    // Its read-only read_text_file called with an integer path: an isError result ("invalid
    // type: integer `12345`, expected a string").
    ("tools/call/wrong-typed-arguments", "pass"),
    ("tools/call/wrong-typed-arguments@2025-11-25", "pass"),
    ("tools/result/shape", "pass"),
    // TOOL-4's split needs a call of a listed tool with valid arguments by another case.
    ("tools/result/error-split", "skip"),
    // No tool declares an outputSchema.
    ("tools/result/output-schema", "skip"),
    ("tools/names/2025-11-25", "pass"),
    ("tools/schema/dialect/2025-11-25", "pass"),
    ("listings/title/2025-11-25", "pass"),
    ("listings/icons/2025-11-25", "pass"),
    // It declares tools only.
    ("resources/list/shape", "skip"),
    ("resources/read/listed", "skip"),
    ("resources/read/unknown", "skip"),
    ("resources/read/unknown@2026-07-28", "skip"),
    ("prompts/list/shape", "skip"),
    ("prompts/get/shape", "skip"),
    ("prompts/get/unknown", "skip"),
    // It logs nothing on the wire; nothing stays in flight on it.
    ("logging/message-shape", "skip"),
    ("cancellation/unknown-request", "pass"),
    ("cancellation/in-flight/no-response", "skip"),
    // No computer-mcp metadata: informational under plain, skipped where no tool has a role.
    ("meta-risk/declared", "info"),
    ("meta-risk/by-role", "skip"),
    ("meta-risk/annotations", "skip"),
    ("meta-work/declared", "info"),
    ("meta-work/resource-listed", "info"),
    // No resources capability (meta-work/resource-listed, info): the snapshot case is blocked
    // by that, not graded a second time.
    ("meta-work/snapshot-shape", "skip"),
    ("meta-work/invocation-malformed", "skip"),
    ("meta-work/invocation-not-an-argument", "skip"),
    ("meta-continuation/declared", "skip"),
    ("meta-continuation/absent", "skip"),
];

/// rust-mcp-filesystem 0.4.5 (rust-mcp-sdk 1.0.1) over stdio, every plain verdict pinned: its
/// one true failure is the echoed 2000-01-01 (MCP's version negotiation, a MUST); the dropped
/// initialize is graded, not the runner's error; the same report at `--jobs 1`.
#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn the_rust_mcp_sdk_server_is_graded_precisely_at_any_jobs() {
    let Some(server) = testkit::prereq::require(testkit::prereq::rust_mcp_filesystem()) else {
        return;
    };
    let (out, report) = grade_pinned(&server, "10000", PLAIN);
    let older = case(&report, "lifecycle/initialize/older-proposal");
    assert_eq!(older["level"], "MUST", "{older}");
    assert_eq!(older["actual"], "protocolVersion \"2000-01-01\"", "{older}");
    // The dropped initialize is the server's: one fresh server, its ping answered.
    let missing = case(&report, "lifecycle/initialize/missing-proposal");
    assert!(
        missing["actual"]
            .as_str()
            .is_some_and(|a| a.contains("a ping sent after it was answered")),
        "{missing}"
    );
    assert_eq!(missing["timed_out"], false, "{missing}");
    assert_eq!(report["summary"]["errors"], 0, "{}", report["summary"]);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert_same_at_jobs_1(&server, "10000", &out, &report);
}
