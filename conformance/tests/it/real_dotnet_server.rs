//! A real server written in C#, graded precisely: Microsoft's Azure MCP Server `@azure/mcp@2.0.5`
//! from npm (the self-contained .NET binary of its platform package, on the official C# SDK
//! `ModelContextProtocol` 1.0.0; pinned and installed on first use by
//! `testkit::prereq::azure_mcp_server`), over stdio under the plain profile at the default
//! `--jobs` and the default `--timeout-ms`, with no Azure credential, its telemetry off and a
//! throw-away home. It is the slowest server to start the gate is tried on (1 to 7 s to answer
//! `initialize` with eight starting at once on two cores): the deadlines scale with the start-up
//! discovery measured (GATE-LOAD-1), so no case errs and no verdict is a deadline's. Every verdict
//! is pinned, each one that is not a pass with the MCP or JSON-RPC text behind it and what the
//! server put on the wire. With `CI=true` a missing prerequisite fails the test.

use std::path::Path;

use serde_json::Value;

use crate::support::{case, describe, grade_pinned};

/// Every verdict of the plain profile on the Azure MCP Server 2.0.5 over stdio.
const PLAIN: &[(&str, &str)] = &[
    ("lifecycle/server-discover/probe", "pass"),
    ("lifecycle/initialize/result-shape", "pass"),
    ("lifecycle/initialize/version/2024-11-05", "pass"),
    ("lifecycle/initialize/version/2025-03-26", "pass"),
    ("lifecycle/initialize/version/2025-06-18", "pass"),
    ("lifecycle/initialize/unsupported-proposal", "pass"),
    ("lifecycle/initialize/older-proposal", "pass"),
    ("lifecycle/initialize/malformed-proposal", "pass"),
    // An initialize without protocolVersion is answered -32603 "An error occurred." (the SDK
    // fails to bind the params). MCP's initialize requires the field and says nothing of a
    // request without it: T2's answer is the kit's rule, informational.
    ("lifecycle/initialize/missing-proposal", "info"),
    ("lifecycle/ping/before-initialize", "pass"),
    ("lifecycle/ping/after-initialize", "pass"),
    // tools/list as a connection's first request is answered with the full listing. T3's
    // -32600 before initialize is the contract's: info for a plain server.
    ("lifecycle/request-before-initialize", "info"),
    ("lifecycle/initialized/no-early-requests", "pass"),
    ("lifecycle/stdout/protocol-only", "pass"),
    ("lifecycle/shutdown/stdin-eof", "pass"),
    ("lifecycle/shutdown/sigterm", "pass"),
    ("lifecycle/initialize/revisions", "pass"),
    // It supports 2024-11-05 to 2025-11-25, not the 2026-07-28 draft: not applicable.
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
    ("jsonrpc/ids/i64-max", "pass"),
    ("jsonrpc/ids/i64-min", "pass"),
    // A ping with id 2^64 - 1 gets no answer at all (the SDK reads a numeric id as a 64-bit
    // signed integer and drops the line it cannot read; it still answers the next ping). MCP
    // asks for "a string or integer" id with no range; the u64 range is T3a's, the contract's:
    // a SHOULD outside provider, a warning (a wrong id echoed would be a MUST failure, as on the
    // Go server of tests/it/real_go_server.rs).
    ("jsonrpc/ids/u64-max", "warn"),
    ("jsonrpc/response-ids", "pass"),
    ("jsonrpc/unknown-method", "pass"),
    ("jsonrpc/unknown-notification", "pass"),
    // JSON-RPC 2.0 §5.1 answers a line that is no JSON -32700 with id null; it drops it
    // silently (and still answers the ping after it). T4: a SHOULD outside provider.
    ("jsonrpc/malformed/parse-error", "warn"),
    // Invalid UTF-8 is read lossily and answered -32601 ("Method '\u{fffd}\u{fffd}' is not
    // available."): the kit's rule, info.
    ("jsonrpc/malformed/invalid-utf8", "info"),
    // JSON-RPC 2.0 §5 (-32600 "Invalid Request", id null where none can be read): a JSON
    // scalar, "jsonrpc": "1.0", a non-string method and a null id are each dropped silently;
    // a ping with scalar params ("params": 3) is answered {"result":{}}. T4, a SHOULD outside
    // provider.
    ("jsonrpc/invalid/not-an-object", "warn"),
    ("jsonrpc/invalid/wrong-version", "warn"),
    ("jsonrpc/invalid/method-not-string", "warn"),
    ("jsonrpc/invalid/params-not-structured", "warn"),
    ("jsonrpc/invalid/null-id", "warn"),
    // MCP 2025-03-26 basic (Batching): implementations "MUST support receiving JSON-RPC
    // batches". It negotiates 2025-03-26 when offered it and drops a batch of two pings and a
    // notification without any answer (the ping after it is answered): a MUST failure, the
    // one that fails the gate.
    ("jsonrpc/batch/2025-03-26", "fail"),
    // Under 2025-06-18 and 2024-11-05 the batch is dropped too; T5's -32600 is the kit's rule.
    ("jsonrpc/batch/rejected-2025-06-18", "info"),
    ("jsonrpc/batch/rejected-2024-11-05", "info"),
    // JSON-RPC 2.0 §6: an empty array is answered -32600 with id null; it is dropped.
    ("jsonrpc/batch/empty", "warn"),
    // T6's bound is the kit's (MCP and JSON-RPC set none): it buffers the 64 MiB line (about
    // 500 MiB more memory), then drops it without an answer and keeps serving.
    ("jsonrpc/oversized/answered", "info"),
    ("jsonrpc/oversized/memory-bounded", "info"),
    ("jsonrpc/long-connection", "pass"),
    ("liveness/after-malformed", "pass"),
    ("liveness/after-oversized", "pass"),
    ("liveness/in-flight-kept", "pass"),
    ("tools/list/shape", "pass"),
    ("tools/list/pagination", "pass"),
    // MCP 2025-06-18 server/utilities/pagination: "Invalid cursors SHOULD result in an error
    // with code -32602"; it ignores the cursor and lists every tool (about 75 KB).
    ("tools/list/invalid-cursor", "warn"),
    ("tools/schema/valid", "pass"),
    ("tools/schema/closed-objects", "pass"),
    ("tools/names/sep-986", "pass"),
    // MCP server/tools (Error Handling) lists "Unknown tools" among the protocol errors: it
    // answers an isError result ("The tool mcp-conformance-no-such-tool was not found"). TOOL-3
    // grades that a SHOULD: a warning.
    ("tools/call/unknown-tool", "warn"),
    // Its read-only group_resource_list called with an integer resource-group: an isError
    // result ("Missing Required options: --subscription"), before any Azure call.
    ("tools/call/wrong-typed-arguments", "pass"),
    ("tools/call/wrong-typed-arguments@2025-11-25", "pass"),
    ("tools/result/shape", "pass"),
    // TOOL-4's split needs a call of a listed tool with valid arguments by another case.
    ("tools/result/error-split", "skip"),
    // No successful call of a tool with an outputSchema (it declares none): nothing to grade.
    ("tools/result/output-schema", "skip"),
    ("tools/names/2025-11-25", "pass"),
    ("tools/schema/dialect/2025-11-25", "pass"),
    ("listings/title/2025-11-25", "pass"),
    ("listings/icons/2025-11-25", "pass"),
    // It declares tools and logging only.
    ("resources/list/shape", "skip"),
    ("resources/read/listed", "skip"),
    ("resources/read/unknown", "skip"),
    ("resources/read/unknown@2026-07-28", "skip"),
    ("prompts/list/shape", "skip"),
    ("prompts/get/shape", "skip"),
    ("prompts/get/unknown", "skip"),
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
    // No resources capability (meta-work/resource-listed, info): the snapshot case is blocked
    // by that, not graded a second time.
    ("meta-work/snapshot-shape", "skip"),
    ("meta-work/invocation-malformed", "skip"),
    ("meta-work/invocation-not-an-argument", "skip"),
    ("meta-continuation/declared", "skip"),
    ("meta-continuation/absent", "skip"),
];

/// The entries of `dir`, for the no-trace check.
fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The Azure MCP Server at the gate's defaults: every verdict as pinned, no runner error, exit
/// 1 (the 2025-03-26 batch MUST), and its home holds nothing but the native libraries its
/// single-file bundle unpacks (`.net`): grading called only tools that failed before reaching
/// Azure, and it wrote no settings, cache or log.
#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn the_azure_mcp_server_is_graded_precisely_at_the_defaults() {
    let home = tempfile::tempdir().expect("tempdir");
    let Some(server) = testkit::prereq::require(testkit::prereq::azure_mcp_server(home.path()))
    else {
        return;
    };
    let (out, report) = grade_pinned(&server, "10000", PLAIN);
    let batch: &Value = case(&report, "jsonrpc/batch/2025-03-26");
    assert_eq!(batch["level"], "MUST", "{batch}");
    assert_eq!(report["summary"]["errors"], 0, "{}", report["summary"]);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert_eq!(entries(home.path()), [".net"]);
}
