//! A real server on the FastMCP TypeScript framework, graded precisely: Firecrawl's server
//! `firecrawl-mcp@3.26.0` from npm (on punkpeye's `fastmcp` 4.3.2, which puts its own session,
//! tool and argument-validation layer over `@modelcontextprotocol/sdk` 1.32.2; pinned and
//! installed on first use by `testkit::prereq::firecrawl_mcp_server`), over stdio under the
//! plain profile, with no API key and its web API at a closed loopback port. Every verdict is
//! pinned, each one that is not a pass with the MCP or JSON-RPC text behind it and what the
//! server put on the wire; the report at `--jobs 1` must equal the one at the default `--jobs`.
//! With `CI=true` a missing prerequisite fails the test.

use crate::support::{assert_same_at_jobs_1, case, describe, grade_pinned};

/// Every verdict of the plain profile on firecrawl-mcp 3.26.0 over stdio. It supports the four
/// handshake dates; `server/discover` is -32601.
const PLAIN: &[(&str, &str)] = &[
    ("lifecycle/server-discover/probe", "pass"),
    ("lifecycle/initialize/result-shape", "pass"),
    ("lifecycle/initialize/version/2024-11-05", "pass"),
    ("lifecycle/initialize/version/2025-03-26", "pass"),
    ("lifecycle/initialize/version/2025-06-18", "pass"),
    ("lifecycle/initialize/unsupported-proposal", "pass"),
    ("lifecycle/initialize/older-proposal", "pass"),
    ("lifecycle/initialize/malformed-proposal", "pass"),
    // An initialize without protocolVersion is answered -32603 with the SDK's zod issue
    // ("Invalid input: expected string, received undefined" at params.protocolVersion). MCP's
    // initialize requires the field and says nothing of a request without it: T2's answer is
    // the kit's rule, info.
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
    // The enveloped server/discover is -32601: the 2026-07-28 draft is not spoken.
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
    // Pings with ids 2^63 - 1, -2^63 and 2^64 - 1 are dropped without an answer (and without
    // a word on stderr): the SDK's schema takes integer ids only within JavaScript's safe
    // range; the ping after each is answered. MCP asks for "a string or integer" id with no
    // range; the i64/u64 range is T3a's, the contract's: a SHOULD outside provider.
    ("jsonrpc/ids/i64-max", "warn"),
    ("jsonrpc/ids/i64-min", "warn"),
    ("jsonrpc/ids/u64-max", "warn"),
    ("jsonrpc/response-ids", "pass"),
    ("jsonrpc/unknown-method", "pass"),
    ("jsonrpc/unknown-notification", "pass"),
    // JSON-RPC 2.0 §5.1 answers a line that is no JSON -32700 with id null; the SDK drops it
    // silently (and still answers the ping after it). T4: a SHOULD outside provider.
    ("jsonrpc/malformed/parse-error", "warn"),
    // Invalid UTF-8 in a method name is read lossily and answered -32601: the kit's rule, info.
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
    // notification without any answer (the ping after it is answered): a MUST failure, the
    // one that fails the gate.
    ("jsonrpc/batch/2025-03-26", "fail"),
    // Under 2025-06-18 and 2024-11-05 the batch is dropped too; T5's -32600 is the kit's rule.
    ("jsonrpc/batch/rejected-2025-06-18", "info"),
    ("jsonrpc/batch/rejected-2024-11-05", "info"),
    // JSON-RPC 2.0 §6: an empty array is answered -32600 with id null; it is dropped.
    ("jsonrpc/batch/empty", "warn"),
    // T6's bound is the kit's (MCP and JSON-RPC set none): it exits with status 0 on the
    // 64 MiB line, with nothing on stderr, so nothing is answered after it.
    ("jsonrpc/oversized/answered", "info"),
    ("jsonrpc/oversized/memory-bounded", "info"),
    ("jsonrpc/long-connection", "pass"),
    ("liveness/after-malformed", "pass"),
    // T4's liveness after bad input is the kit's rule: the exit on the 64 MiB line.
    ("liveness/after-oversized", "info"),
    ("liveness/in-flight-kept", "pass"),
    ("tools/list/shape", "pass"),
    ("tools/list/pagination", "pass"),
    // MCP 2025-06-18 server/utilities/pagination: "Invalid cursors SHOULD result in an error
    // with code -32602"; it ignores the cursor and lists every tool.
    ("tools/list/invalid-cursor", "warn"),
    ("tools/schema/valid", "pass"),
    // Its schemas are closed (additionalProperties false).
    ("tools/schema/closed-objects", "pass"),
    ("tools/names/sep-986", "pass"),
    // MCP server/tools (Error Handling) lists "Unknown tools" among the protocol errors
    // (example: -32602); FastMCP answers -32601 ("MCP error -32601: Unknown tool:
    // mcp-conformance-no-such-tool"), JSON-RPC's code for a method that does not exist.
    // TOOL-3 grades that a SHOULD: a warning.
    ("tools/call/unknown-tool", "warn"),
    // FastMCP validates arguments itself: its read-only firecrawl_map called with an integer
    // url is answered -32602 ("Tool 'firecrawl_map' parameter validation failed: url: Invalid
    // input: expected string, received number …"), a protocol error. The revisions up to
    // 2025-06-18 allow that: info. MCP 2025-11-25 server/tools (SEP-1303) makes input
    // validation errors tool execution errors (an isError result), a SHOULD: a warning on the
    // 2025-11-25 connection, where the answer is the same.
    ("tools/call/wrong-typed-arguments", "info"),
    ("tools/call/wrong-typed-arguments@2025-11-25", "warn"),
    ("tools/result/shape", "pass"),
    // TOOL-4's split needs a call of a listed tool with valid arguments by another case.
    ("tools/result/error-split", "skip"),
    // Every tool declares an outputSchema. The read-only ones the probe calls all fail: on
    // the closed API port (an isError result, "connect ECONNREFUSED 127.0.0.1:9"), on their
    // arguments (-32602), or for want of an API key, so no successful call is left to grade;
    // the tools that might act (firecrawl_scrape, firecrawl_crawl, …) are not called.
    ("tools/result/output-schema", "skip"),
    ("tools/names/2025-11-25", "pass"),
    ("tools/schema/dialect/2025-11-25", "pass"),
    ("listings/title/2025-11-25", "pass"),
    ("listings/icons/2025-11-25", "pass"),
    // It declares tools, logging and completions only.
    ("resources/list/shape", "skip"),
    ("resources/read/listed", "skip"),
    ("resources/read/unknown", "skip"),
    ("resources/read/unknown@2026-07-28", "skip"),
    ("prompts/list/shape", "skip"),
    ("prompts/get/shape", "skip"),
    ("prompts/get/unknown", "skip"),
    // Its tools log notifications/message ("Searching", "Checking agent status") while they
    // run: each has the shape MCP server/utilities/logging gives it.
    ("logging/message-shape", "pass"),
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

/// firecrawl-mcp 3.26.0 (fastmcp 4.3.2 on the TypeScript SDK 1.32.2) over stdio, every plain
/// verdict pinned: its true failure is the 2025-03-26 batch it drops (a MUST); no runner
/// error; the same report at `--jobs 1`.
#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn the_fastmcp_typescript_server_is_graded_precisely_at_any_jobs() {
    let Some(server) = testkit::prereq::require(testkit::prereq::firecrawl_mcp_server()) else {
        return;
    };
    let (out, report) = grade_pinned(&server, "10000", PLAIN);
    let batch = case(&report, "jsonrpc/batch/2025-03-26");
    assert_eq!(batch["level"], "MUST", "{batch}");
    assert!(
        batch["actual"]
            .as_str()
            .is_some_and(|a| a.contains("dropped")),
        "{batch}"
    );
    // Its tools might act: the probe withheld them, and says so truly.
    let output = case(&report, "tools/result/output-schema");
    assert!(
        output["reason"]
            .as_str()
            .is_some_and(|r| r.contains("a listed tool that could grade it is not annotated")),
        "{output}"
    );
    assert_eq!(report["summary"]["errors"], 0, "{}", report["summary"]);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert_same_at_jobs_1(&server, "10000", &out, &report);
}
