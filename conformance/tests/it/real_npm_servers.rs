//! Three official MCP reference servers from npm, graded precisely: `server-filesystem`,
//! `server-memory` and `server-sequential-thinking`, all `@modelcontextprotocol/…@2026.8.31` on
//! the TypeScript SDK 1.32.2 (pinned and installed on first use by
//! `testkit::prereq::mcp_filesystem_server` and its siblings), over stdio under the plain profile
//! at the default `--jobs`. Every verdict is pinned, each one that is not a pass with the MCP or
//! JSON-RPC text behind it and what the servers put on the wire (they share the SDK, so they
//! share most findings with `@modelcontextprotocol/server-everything`, tests/it/real_servers.rs).
//! Each test also checks that grading left no trace: the gate calls only their read-only tools.
//! With `CI=true` a missing prerequisite fails the test.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::support::{case, describe, grade_pinned};

/// Every verdict of the plain profile: (case, filesystem, memory, sequential-thinking).
const PLAIN: &[(&str, &str, &str, &str)] = &[
    ("lifecycle/server-discover/probe", "pass", "pass", "pass"),
    ("lifecycle/initialize/result-shape", "pass", "pass", "pass"),
    (
        "lifecycle/initialize/version/2024-11-05",
        "pass",
        "pass",
        "pass",
    ),
    (
        "lifecycle/initialize/version/2025-03-26",
        "pass",
        "pass",
        "pass",
    ),
    (
        "lifecycle/initialize/version/2025-06-18",
        "pass",
        "pass",
        "pass",
    ),
    (
        "lifecycle/initialize/unsupported-proposal",
        "pass",
        "pass",
        "pass",
    ),
    (
        "lifecycle/initialize/older-proposal",
        "pass",
        "pass",
        "pass",
    ),
    (
        "lifecycle/initialize/malformed-proposal",
        "pass",
        "pass",
        "pass",
    ),
    // An initialize without protocolVersion is answered -32603 with the SDK's zod error
    // ("expected string, received undefined" at params.protocolVersion). MCP makes the field
    // required and says nothing of a request without it; T2's answer is the kit's rule: info.
    (
        "lifecycle/initialize/missing-proposal",
        "info",
        "info",
        "info",
    ),
    ("lifecycle/ping/before-initialize", "pass", "pass", "pass"),
    ("lifecycle/ping/after-initialize", "pass", "pass", "pass"),
    // tools/list as a connection's first request is served (the tools listed). T3's -32600
    // before initialize is the contract's: informational for a plain server.
    (
        "lifecycle/request-before-initialize",
        "info",
        "info",
        "info",
    ),
    (
        "lifecycle/initialized/no-early-requests",
        "pass",
        "pass",
        "pass",
    ),
    ("lifecycle/stdout/protocol-only", "pass", "pass", "pass"),
    ("lifecycle/shutdown/stdin-eof", "pass", "pass", "pass"),
    ("lifecycle/shutdown/sigterm", "pass", "pass", "pass"),
    ("lifecycle/initialize/revisions", "pass", "pass", "pass"),
    // The TypeScript SDK 1.32.2 does not speak 2026-07-28 (server/discover is -32601): the
    // stateless era's cases skip with "revision not supported".
    ("lifecycle/2026-07-28/discover", "skip", "skip", "skip"),
    ("lifecycle/2026-07-28/envelope", "skip", "skip", "skip"),
    (
        "lifecycle/2026-07-28/envelope-missing",
        "skip",
        "skip",
        "skip",
    ),
    (
        "lifecycle/2026-07-28/initialize-refused",
        "skip",
        "skip",
        "skip",
    ),
    (
        "lifecycle/2026-07-28/legacy-refuses-envelope",
        "skip",
        "skip",
        "skip",
    ),
    ("lifecycle/2026-07-28/stateless", "skip", "skip", "skip"),
    ("jsonrpc/ids/zero", "pass", "pass", "pass"),
    ("jsonrpc/ids/negative", "pass", "pass", "pass"),
    ("jsonrpc/ids/string", "pass", "pass", "pass"),
    ("jsonrpc/ids/empty-string", "pass", "pass", "pass"),
    // Pings with ids ±2^63 and 2^64 - 1 are dropped without an answer: JavaScript numbers hold
    // integers only up to 2^53 and the SDK's schema refuses the rest. RFC 8259 §6 calls larger
    // numbers not interoperable, so full i64/u64 ids are T3a's, a SHOULD outside provider.
    ("jsonrpc/ids/i64-max", "warn", "warn", "warn"),
    ("jsonrpc/ids/i64-min", "warn", "warn", "warn"),
    ("jsonrpc/ids/u64-max", "warn", "warn", "warn"),
    ("jsonrpc/response-ids", "pass", "pass", "pass"),
    ("jsonrpc/unknown-method", "pass", "pass", "pass"),
    ("jsonrpc/unknown-notification", "pass", "pass", "pass"),
    // JSON-RPC 2.0 §5.1 answers a line that is no JSON -32700 with id null; the SDK drops it
    // silently (and still answers the ping after it). T4: a SHOULD outside provider.
    ("jsonrpc/malformed/parse-error", "warn", "warn", "warn"),
    // Invalid UTF-8 is read lossily and answered -32601: the kit's rule, info.
    ("jsonrpc/malformed/invalid-utf8", "info", "info", "info"),
    // JSON-RPC 2.0 §5 (-32600 "Invalid Request", id null where none can be read): a JSON
    // scalar, "jsonrpc": "1.0", a non-string method, scalar params and a null id are each
    // dropped silently. T4, a SHOULD outside provider.
    ("jsonrpc/invalid/not-an-object", "warn", "warn", "warn"),
    ("jsonrpc/invalid/wrong-version", "warn", "warn", "warn"),
    ("jsonrpc/invalid/method-not-string", "warn", "warn", "warn"),
    (
        "jsonrpc/invalid/params-not-structured",
        "warn",
        "warn",
        "warn",
    ),
    ("jsonrpc/invalid/null-id", "warn", "warn", "warn"),
    // MCP 2025-03-26 basic (Batching): implementations "MUST support receiving JSON-RPC
    // batches". Each negotiates 2025-03-26 when offered it and drops a batch of two pings and
    // a notification without any answer (the ping after it is answered): a MUST failure, the
    // one that fails the gate.
    ("jsonrpc/batch/2025-03-26", "fail", "fail", "fail"),
    // Under 2025-06-18 and 2024-11-05 the batch is dropped too; T5's -32600 is the kit's rule.
    ("jsonrpc/batch/rejected-2025-06-18", "info", "info", "info"),
    ("jsonrpc/batch/rejected-2024-11-05", "info", "info", "info"),
    // JSON-RPC 2.0 §6: an empty array is answered -32600 with id null; it is dropped.
    ("jsonrpc/batch/empty", "warn", "warn", "warn"),
    // T6's bound is the kit's (MCP and JSON-RPC set none): each exits with status 0 on the
    // 64 MiB line, so nothing is answered after it.
    ("jsonrpc/oversized/answered", "info", "info", "info"),
    ("jsonrpc/oversized/memory-bounded", "info", "info", "info"),
    ("jsonrpc/long-connection", "pass", "pass", "pass"),
    ("liveness/after-malformed", "pass", "pass", "pass"),
    // T4's liveness after bad input is the kit's rule: the exit on the 64 MiB line.
    ("liveness/after-oversized", "info", "info", "info"),
    ("liveness/in-flight-kept", "pass", "pass", "pass"),
    ("tools/list/shape", "pass", "pass", "pass"),
    ("tools/list/pagination", "pass", "pass", "pass"),
    // MCP 2025-06-18 server/utilities/pagination: "Invalid cursors SHOULD result in an error
    // with code -32602"; each ignores the cursor and lists every tool.
    ("tools/list/invalid-cursor", "warn", "warn", "warn"),
    ("tools/schema/valid", "pass", "pass", "pass"),
    // TOOL-2's closed schemas are the contract's: informational.
    ("tools/schema/closed-objects", "info", "info", "info"),
    ("tools/names/sep-986", "pass", "pass", "pass"),
    // MCP 2025-06-18 server/tools (Error Handling) lists unknown tools among protocol errors
    // (example: -32602); each answers an isError result ("MCP error -32602: Tool
    // mcp-conformance-no-such-tool not found") instead. No MUST there: a warning.
    ("tools/call/unknown-tool", "warn", "warn", "warn"),
    // Their read-only tools are called with a wrongly typed argument: an isError result each.
    ("tools/call/wrong-typed-arguments", "pass", "pass", "pass"),
    (
        "tools/call/wrong-typed-arguments@2025-11-25",
        "pass",
        "pass",
        "pass",
    ),
    ("tools/result/shape", "pass", "pass", "pass"),
    // TOOL-4's split needs a call of a listed tool with valid arguments by another case.
    ("tools/result/error-split", "skip", "skip", "skip"),
    // MCP server/tools: "servers MUST provide structured results that conform to this schema".
    // The case's probe calls each read-only tool with an outputSchema, with arguments made from
    // its inputSchema: the filesystem server's list_allowed_directories, the memory server's
    // read_graph, search_nodes and open_nodes, and sequentialthinking (its booleans typed
    // ["boolean", "string"], sent false; the gate once made nothing of a type union, called
    // nothing and counted the rule as not applicable) return conforming structuredContent.
    ("tools/result/output-schema", "pass", "pass", "pass"),
    ("tools/names/2025-11-25", "pass", "pass", "pass"),
    ("tools/schema/dialect/2025-11-25", "pass", "pass", "pass"),
    ("listings/title/2025-11-25", "pass", "pass", "pass"),
    ("listings/icons/2025-11-25", "pass", "pass", "pass"),
    // Only the memory server declares resources: it lists memory://knowledge-graph, reads it,
    // and answers an unknown URI -32602.
    ("resources/list/shape", "skip", "pass", "skip"),
    ("resources/read/listed", "skip", "pass", "skip"),
    ("resources/read/unknown", "skip", "pass", "skip"),
    ("resources/read/unknown@2026-07-28", "skip", "skip", "skip"),
    // None declares prompts.
    ("prompts/list/shape", "skip", "skip", "skip"),
    ("prompts/get/shape", "skip", "skip", "skip"),
    ("prompts/get/unknown", "skip", "skip", "skip"),
    // None logs without being asked; nothing stays in flight on them.
    ("logging/message-shape", "skip", "skip", "skip"),
    ("cancellation/unknown-request", "pass", "pass", "pass"),
    ("cancellation/in-flight/no-response", "skip", "skip", "skip"),
    // No computer-mcp metadata: informational under plain, skipped where no tool has a role.
    ("meta-risk/declared", "info", "info", "info"),
    ("meta-risk/by-role", "skip", "skip", "skip"),
    ("meta-risk/annotations", "skip", "skip", "skip"),
    ("meta-work/declared", "info", "info", "info"),
    ("meta-work/resource-listed", "info", "info", "info"),
    // The work URI is not listed (meta-work/resource-listed, info): the snapshot case is blocked
    // by that, with no resources capability at all and on the memory server, which has one and
    // answers the read of computer-mcp://runtime/work/v1 -32602 ("Resource … not found").
    ("meta-work/snapshot-shape", "skip", "skip", "skip"),
    ("meta-work/invocation-malformed", "skip", "skip", "skip"),
    (
        "meta-work/invocation-not-an-argument",
        "skip",
        "skip",
        "skip",
    ),
    ("meta-continuation/declared", "skip", "skip", "skip"),
    ("meta-continuation/absent", "skip", "skip", "skip"),
];

type Row = (&'static str, &'static str, &'static str, &'static str);

/// Grades `server` under the plain profile at the default `--jobs` and asserts every verdict
/// with `pick`'s column, the report's schema and exit 1 (the 2025-03-26 batch MUST).
fn graded_precisely(server: &Command, pick: fn(&Row) -> &'static str) {
    let pinned: Vec<(&str, &str)> = PLAIN.iter().map(|row| (row.0, pick(row))).collect();
    let (out, report) = grade_pinned(server, "20000", &pinned);
    let batch: &Value = case(&report, "jsonrpc/batch/2025-03-26");
    assert_eq!(batch["level"], "MUST", "{batch}");
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
}

/// The entries of `dir`, for the no-trace checks.
fn entries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect()
}

/// server-filesystem, its one allowed directory a fresh empty one: the batch MUST fails, the
/// rest is the TypeScript SDK's warnings; its allowed directory stays empty.
#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn the_filesystem_reference_server_is_graded_precisely() {
    let root = tempfile::tempdir().expect("tempdir");
    let Some(server) =
        testkit::prereq::require(testkit::prereq::mcp_filesystem_server(root.path()))
    else {
        return;
    };
    graded_precisely(&server, |row| row.1);
    assert!(
        entries(root.path()).is_empty(),
        "{:?}",
        entries(root.path())
    );
}

/// server-memory, its graph file in a fresh directory: graded like the filesystem server, plus
/// its one resource; the graph file is never written (only its write tools would).
#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn the_memory_reference_server_is_graded_precisely() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(server) = testkit::prereq::require(testkit::prereq::mcp_memory_server(
        &dir.path().join("memory.jsonl"),
    )) else {
        return;
    };
    graded_precisely(&server, |row| row.2);
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
}

/// server-sequential-thinking: one tool, no resources, no prompts.
#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn the_sequential_thinking_reference_server_is_graded_precisely() {
    let Some(server) = testkit::prereq::require(testkit::prereq::mcp_sequential_thinking_server())
    else {
        return;
    };
    graded_precisely(&server, |row| row.3);
}
