//! A real server on FastMCP, graded precisely: `better-mcps-filesystem==0.3.0` from PyPI, on the
//! standalone `fastmcp` 4.2.3 (over the Python SDK `mcp` 2.3.0; pinned by hashes and installed on
//! first use by `testkit::prereq::fastmcp_server`), over stdio under the plain profile at the
//! default `--jobs`, its tools confined to a root the test makes, which grading must leave as it
//! was. FastMCP is slow to start (about 1.4 s of CPU per instance, 70 instances a gate): the
//! cases' deadlines scale with the start-up discovery measured (GATE-LOAD-1), a probe answered
//! after its window is graded on its answer, and a start that outlasts even that is the runner's
//! error, retried alone (GATE-LOAD-3), never a verdict. Discovery's own first start has only
//! `--timeout-ms` (twice): beside another real-peer test on two busy cores it outlasted the
//! default 10 s, so the test gives 20 s, as the Go and Rust SDK servers' tests do. Every verdict is pinned,
//! each one that is not a pass with the MCP or JSON-RPC text behind it and what the server put on
//! the wire. With `CI=true` a missing prerequisite fails the test.

use std::path::Path;

use serde_json::Value;

use crate::support::{case, describe, grade_pinned};

/// Every verdict of the plain profile on better-mcps-filesystem 0.3.0 (fastmcp 4.2.3).
const PLAIN: &[(&str, &str)] = &[
    ("lifecycle/server-discover/probe", "pass"),
    ("lifecycle/initialize/result-shape", "pass"),
    ("lifecycle/initialize/version/2024-11-05", "pass"),
    ("lifecycle/initialize/version/2025-03-26", "pass"),
    ("lifecycle/initialize/version/2025-06-18", "pass"),
    ("lifecycle/initialize/unsupported-proposal", "pass"),
    ("lifecycle/initialize/older-proposal", "pass"),
    ("lifecycle/initialize/malformed-proposal", "pass"),
    ("lifecycle/initialize/missing-proposal", "pass"),
    ("lifecycle/ping/before-initialize", "pass"),
    ("lifecycle/ping/after-initialize", "pass"),
    // tools/list as a connection's first request is answered -32602 ("Invalid request
    // parameters"), as by the Python SDK underneath. T3's -32600 before initialize is the
    // contract's: info for a plain server.
    ("lifecycle/request-before-initialize", "info"),
    ("lifecycle/initialized/no-early-requests", "pass"),
    ("lifecycle/stdout/protocol-only", "pass"),
    ("lifecycle/shutdown/stdin-eof", "pass"),
    ("lifecycle/shutdown/sigterm", "pass"),
    ("lifecycle/initialize/revisions", "pass"),
    ("lifecycle/2026-07-28/discover", "pass"),
    ("lifecycle/2026-07-28/envelope", "pass"),
    ("lifecycle/2026-07-28/envelope-missing", "pass"),
    ("lifecycle/2026-07-28/initialize-refused", "pass"),
    ("lifecycle/2026-07-28/legacy-refuses-envelope", "pass"),
    ("lifecycle/2026-07-28/stateless", "pass"),
    ("jsonrpc/ids/zero", "pass"),
    ("jsonrpc/ids/negative", "pass"),
    ("jsonrpc/ids/string", "pass"),
    ("jsonrpc/ids/empty-string", "pass"),
    ("jsonrpc/ids/i64-max", "pass"),
    ("jsonrpc/ids/i64-min", "pass"),
    ("jsonrpc/ids/u64-max", "pass"),
    ("jsonrpc/response-ids", "pass"),
    ("jsonrpc/unknown-method", "pass"),
    ("jsonrpc/unknown-notification", "pass"),
    // JSON-RPC 2.0 §5.1 answers a line that is no JSON -32700 with id null; the SDK underneath
    // (mcp 2.3.0) drops it silently and answers the ping after it. T4: a SHOULD outside
    // provider.
    ("jsonrpc/malformed/parse-error", "warn"),
    // Invalid UTF-8 is read lossily and answered -32601 (data "\u{fffd}\u{fffd}"): the kit's
    // rule, info.
    ("jsonrpc/malformed/invalid-utf8", "info"),
    // JSON-RPC 2.0 §5 (-32600 "Invalid Request", id null where none can be read): a JSON
    // scalar, "jsonrpc": "1.0", a non-string method, scalar params and a null id are each
    // dropped silently. T4, a SHOULD outside provider.
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
    // T6's bound is the kit's (MCP and JSON-RPC set none): it buffers the 64 MiB line (about
    // 220 MiB more memory) and answers the ping inside it.
    ("jsonrpc/oversized/answered", "info"),
    ("jsonrpc/oversized/memory-bounded", "info"),
    ("jsonrpc/long-connection", "pass"),
    ("liveness/after-malformed", "pass"),
    ("liveness/after-oversized", "pass"),
    ("liveness/in-flight-kept", "pass"),
    ("tools/list/shape", "pass"),
    ("tools/list/pagination", "pass"),
    // MCP 2025-06-18 server/utilities/pagination: "Invalid cursors SHOULD result in an error
    // with code -32602"; it ignores the cursor and lists both tools.
    ("tools/list/invalid-cursor", "warn"),
    ("tools/schema/valid", "pass"),
    ("tools/schema/closed-objects", "pass"),
    ("tools/names/sep-986", "pass"),
    // MCP server/tools (Error Handling) lists "Unknown tools" among the protocol errors:
    // FastMCP answers an isError result ("Unknown tool: 'mcp-conformance-no-such-tool'").
    // TOOL-3 grades that a SHOULD: a warning.
    ("tools/call/unknown-tool", "warn"),
    // Neither tool is annotated readOnlyHint (so plain calls none) and both take one `params`
    // object, no required argument of a simple type: nothing to call, nothing to grade. The
    // coverage summary names the MUST rules left ungraded for want of a read-only tool.
    ("tools/call/wrong-typed-arguments", "skip"),
    ("tools/call/wrong-typed-arguments@2025-11-25", "skip"),
    ("tools/result/shape", "skip"),
    ("tools/result/error-split", "skip"),
    ("tools/result/output-schema", "skip"),
    ("tools/names/2025-11-25", "pass"),
    ("tools/schema/dialect/2025-11-25", "pass"),
    ("listings/title/2025-11-25", "pass"),
    ("listings/icons/2025-11-25", "pass"),
    // One resource, resource://roots (the allowed roots, text/plain), read back as listed.
    ("resources/list/shape", "pass"),
    ("resources/read/listed", "pass"),
    ("resources/read/unknown", "pass"),
    ("resources/read/unknown@2026-07-28", "pass"),
    // It declares prompts and lists none; an unknown prompt is answered -32602.
    ("prompts/list/shape", "pass"),
    ("prompts/get/shape", "skip"),
    ("prompts/get/unknown", "pass"),
    // It logs nothing on the wire without being asked; nothing stays in flight on it.
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

/// Every file under `root` with its contents, sorted: the no-trace check.
fn tree(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(root)
        .expect("read dir")
        .map(|e| {
            let e = e.expect("entry");
            let name = e.file_name().to_string_lossy().into_owned();
            (name, std::fs::read(e.path()).unwrap_or_default())
        })
        .collect();
    files.sort();
    files
}

/// The FastMCP server: every verdict as pinned, no runner error, exit 1
/// (the 2025-03-26 batch MUST), and its root as it was (it has no write tool; plain calls none).
#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn a_server_on_fastmcp_is_graded_precisely() {
    let root = tempfile::tempdir().expect("tempdir");
    std::fs::write(root.path().join("notes.txt"), "graded by mcp-conformance\n").expect("write");
    let before = tree(root.path());
    let Some(server) = testkit::prereq::require(testkit::prereq::fastmcp_server(root.path()))
    else {
        return;
    };
    let (out, report) = grade_pinned(&server, "20000", PLAIN);
    let batch: &Value = case(&report, "jsonrpc/batch/2025-03-26");
    assert_eq!(batch["level"], "MUST", "{batch}");
    assert_eq!(report["summary"]["errors"], 0, "{}", report["summary"]);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert_eq!(tree(root.path()), before, "grading changed the root");
}
