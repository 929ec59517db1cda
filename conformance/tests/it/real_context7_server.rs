//! A real server on the second major version of the TypeScript SDK, graded precisely: Upstash's
//! Context7 documentation server `@upstash/context7-mcp@4.1.1` from npm (on
//! `@modelcontextprotocol/server` 2.0.0; pinned and installed on first use by
//! `testkit::prereq::context7_mcp_server`), over stdio under the plain profile at the default
//! `--jobs`, with no API key and its web API at a closed loopback port. Every verdict is pinned,
//! each one that is not a pass with the MCP or JSON-RPC text behind it and what the server put on
//! the wire. With `CI=true` a missing prerequisite fails the test.

use serde_json::Value;

use crate::support::{case, describe, grade_pinned};

/// Every verdict of the plain profile on Context7 4.1.1 over stdio.
const PLAIN: &[(&str, &str)] = &[
    ("lifecycle/server-discover/probe", "pass"),
    ("lifecycle/initialize/result-shape", "pass"),
    ("lifecycle/initialize/version/2024-11-05", "pass"),
    ("lifecycle/initialize/version/2025-03-26", "pass"),
    ("lifecycle/initialize/version/2025-06-18", "pass"),
    ("lifecycle/initialize/unsupported-proposal", "pass"),
    ("lifecycle/initialize/older-proposal", "pass"),
    ("lifecycle/initialize/malformed-proposal", "pass"),
    // An initialize without protocolVersion is answered -32603 with the zod issue ("expected
    // string, received undefined" at params.protocolVersion). MCP's initialize requires the
    // field and says nothing of a request without it: T2's answer is the kit's rule, info.
    ("lifecycle/initialize/missing-proposal", "info"),
    ("lifecycle/ping/before-initialize", "pass"),
    ("lifecycle/ping/after-initialize", "pass"),
    // tools/list as a connection's first request is answered with the listing. T3's -32600
    // before initialize is the contract's: info for a plain server.
    ("lifecycle/request-before-initialize", "info"),
    ("lifecycle/initialized/no-early-requests", "pass"),
    ("lifecycle/stdout/protocol-only", "pass"),
    ("lifecycle/shutdown/stdin-eof", "pass"),
    ("lifecycle/shutdown/sigterm", "pass"),
    ("lifecycle/initialize/revisions", "pass"),
    // SDK 2.0.0 speaks the 2026-07-28 draft: server/discover in the envelope answers
    // supportedVersions ["2026-07-28"], stateless requests are served.
    ("lifecycle/2026-07-28/discover", "pass"),
    ("lifecycle/2026-07-28/envelope", "pass"),
    // It serves tools/list without the envelope on a connection opened by an enveloped
    // server/discover, answers initialize there (2025-06-18), and serves an enveloped
    // tools/list on a 2025-11-25 connection. Those refusals are the Python SDK's behaviour,
    // no specification text at hand: informational.
    ("lifecycle/2026-07-28/envelope-missing", "info"),
    ("lifecycle/2026-07-28/initialize-refused", "info"),
    ("lifecycle/2026-07-28/legacy-refuses-envelope", "info"),
    ("lifecycle/2026-07-28/stateless", "pass"),
    ("jsonrpc/ids/zero", "pass"),
    ("jsonrpc/ids/negative", "pass"),
    ("jsonrpc/ids/string", "pass"),
    ("jsonrpc/ids/empty-string", "pass"),
    // A ping with id 2^63 - 1, -2^63 or 2^64 - 1 gets no answer: the SDK's schema takes an
    // integer id only within JavaScript's safe range (stderr: "MCP stdio error: ZodError …
    // Too big: expected int to be <=9007199254740991") and drops the line; it answers the
    // ping after it. MCP asks for "a string or integer" id with no range; the i64/u64 range
    // is T3a's, the contract's: a SHOULD outside provider, a warning each.
    ("jsonrpc/ids/i64-max", "warn"),
    ("jsonrpc/ids/i64-min", "warn"),
    ("jsonrpc/ids/u64-max", "warn"),
    ("jsonrpc/response-ids", "pass"),
    ("jsonrpc/unknown-method", "pass"),
    ("jsonrpc/unknown-notification", "pass"),
    // JSON-RPC 2.0 §5.1 answers a line that is no JSON -32700 with id null; it drops it
    // (a "MCP stdio error" on stderr) and answers the ping after it. T4: a SHOULD outside
    // provider.
    ("jsonrpc/malformed/parse-error", "warn"),
    // Invalid UTF-8 is read lossily and answered -32601 "Method not found": the kit's rule.
    ("jsonrpc/malformed/invalid-utf8", "info"),
    // JSON-RPC 2.0 §5 (-32600 "Invalid Request"): a JSON scalar, "jsonrpc": "1.0", a
    // non-string method, scalar params and a null id are each dropped silently. T4, a SHOULD
    // outside provider.
    ("jsonrpc/invalid/not-an-object", "warn"),
    ("jsonrpc/invalid/wrong-version", "warn"),
    ("jsonrpc/invalid/method-not-string", "warn"),
    ("jsonrpc/invalid/params-not-structured", "warn"),
    ("jsonrpc/invalid/null-id", "warn"),
    // MCP 2025-03-26 basic (Batching): implementations "MUST support receiving JSON-RPC
    // batches". It negotiates 2025-03-26 when offered it and drops a batch of two pings and a
    // notification without any answer: a MUST failure, the one that fails the gate.
    ("jsonrpc/batch/2025-03-26", "fail"),
    // Under 2025-06-18 and 2024-11-05 the batch is dropped too; T5's -32600 is the kit's rule.
    ("jsonrpc/batch/rejected-2025-06-18", "info"),
    ("jsonrpc/batch/rejected-2024-11-05", "info"),
    // JSON-RPC 2.0 §6: an empty array is answered -32600 with id null; it is dropped.
    ("jsonrpc/batch/empty", "warn"),
    // T6's bound is the kit's (MCP and JSON-RPC set none): the SDK's read buffer stops at
    // 10 MiB ("ReadBuffer exceeded maximum size of 10485760 bytes" on stderr) and the server
    // exits with status 0, so the connection does not go on. Informational, all three.
    ("jsonrpc/oversized/answered", "info"),
    ("jsonrpc/oversized/memory-bounded", "info"),
    ("jsonrpc/long-connection", "pass"),
    ("liveness/after-malformed", "pass"),
    ("liveness/after-oversized", "info"),
    ("liveness/in-flight-kept", "pass"),
    ("tools/list/shape", "pass"),
    ("tools/list/pagination", "pass"),
    // MCP 2025-06-18 server/utilities/pagination: "Invalid cursors SHOULD result in an error
    // with code -32602"; it ignores the cursor and lists both tools.
    ("tools/list/invalid-cursor", "warn"),
    ("tools/schema/valid", "pass"),
    // TOOL-2's closed schemas are the contract's: informational.
    ("tools/schema/closed-objects", "info"),
    ("tools/names/sep-986", "pass"),
    ("tools/call/unknown-tool", "pass"),
    // Its read-only resolve-library-id called with an integer query: an isError result
    // ("Input validation error: … expected string, received number"), before any request.
    ("tools/call/wrong-typed-arguments", "pass"),
    ("tools/call/wrong-typed-arguments@2025-11-25", "pass"),
    ("tools/result/shape", "pass"),
    // TOOL-4's split needs a call of a listed tool with valid arguments by another case.
    ("tools/result/error-split", "skip"),
    // No successful call of a tool with an outputSchema: nothing to grade.
    ("tools/result/output-schema", "skip"),
    ("tools/names/2025-11-25", "pass"),
    ("tools/schema/dialect/2025-11-25", "pass"),
    ("listings/title/2025-11-25", "pass"),
    ("listings/icons/2025-11-25", "pass"),
    // It declares resources and prompts and lists none.
    ("resources/list/shape", "pass"),
    ("resources/read/listed", "skip"),
    ("resources/read/unknown", "pass"),
    ("resources/read/unknown@2026-07-28", "pass"),
    ("prompts/list/shape", "pass"),
    ("prompts/get/shape", "skip"),
    ("prompts/get/unknown", "pass"),
    // It logs nothing without being asked; nothing stays in flight on it.
    ("logging/message-shape", "skip"),
    ("cancellation/unknown-request", "pass"),
    ("cancellation/in-flight/no-response", "skip"),
    // No computer-mcp metadata: informational under plain, skipped where no tool has a role.
    ("meta-risk/declared", "info"),
    ("meta-risk/by-role", "skip"),
    ("meta-risk/annotations", "skip"),
    ("meta-work/declared", "info"),
    ("meta-work/resource-listed", "info"),
    // The read of computer-mcp://runtime/work/v1 is answered -32602 ("Resource not found"):
    // the URI is not listed (meta-work/resource-listed, info), so the snapshot case is blocked
    // by that, not graded a second time.
    ("meta-work/snapshot-shape", "skip"),
    ("meta-work/invocation-malformed", "skip"),
    ("meta-work/invocation-not-an-argument", "skip"),
    ("meta-continuation/declared", "skip"),
    ("meta-continuation/absent", "skip"),
];

/// Context7 4.1.1: every verdict as pinned, no runner error, exit 1 (the 2025-03-26 batch MUST).
#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn the_context7_server_on_the_typescript_sdk_2_is_graded_precisely() {
    let Some(server) = testkit::prereq::require(testkit::prereq::context7_mcp_server()) else {
        return;
    };
    let (out, report) = grade_pinned(&server, "10000", PLAIN);
    let batch: &Value = case(&report, "jsonrpc/batch/2025-03-26");
    assert_eq!(batch["level"], "MUST", "{batch}");
    assert_eq!(report["summary"]["errors"], 0, "{}", report["summary"]);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
}
