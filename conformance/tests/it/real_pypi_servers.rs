//! Two official MCP reference servers from PyPI, graded precisely: `mcp-server-time` and
//! `mcp-server-git`, both `2026.10.19` on the Python SDK `mcp` 2.3.0 (pinned by hashes and
//! installed on first use by `testkit::prereq::mcp_time_server` and `mcp_git_server`), over
//! stdio under the plain profile at the default `--jobs`. Every verdict is pinned, each one that
//! is not a pass with the MCP or JSON-RPC text behind it and what the servers put on the wire
//! (they share the SDK, so they share every finding with the Python SDK server of
//! tests/it/real_servers.rs but the annotations: theirs mark the read-only tools, which the gate
//! then calls). The git server is given a repository the test makes, which grading must leave as
//! it was. With `CI=true` a missing prerequisite fails the test.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::support::{case, describe, grade_pinned};

/// Every verdict of the plain profile: (case, time, git).
const PLAIN: &[(&str, &str, &str)] = &[
    ("lifecycle/server-discover/probe", "pass", "pass"),
    ("lifecycle/initialize/result-shape", "pass", "pass"),
    ("lifecycle/initialize/version/2024-11-05", "pass", "pass"),
    ("lifecycle/initialize/version/2025-03-26", "pass", "pass"),
    ("lifecycle/initialize/version/2025-06-18", "pass", "pass"),
    ("lifecycle/initialize/unsupported-proposal", "pass", "pass"),
    ("lifecycle/initialize/older-proposal", "pass", "pass"),
    ("lifecycle/initialize/malformed-proposal", "pass", "pass"),
    ("lifecycle/initialize/missing-proposal", "pass", "pass"),
    ("lifecycle/ping/before-initialize", "pass", "pass"),
    ("lifecycle/ping/after-initialize", "pass", "pass"),
    // tools/list as a connection's first request is answered -32602 ("Invalid request
    // parameters"). T3's -32600 before initialize is the contract's: info for a plain server.
    ("lifecycle/request-before-initialize", "info", "info"),
    ("lifecycle/initialized/no-early-requests", "pass", "pass"),
    ("lifecycle/stdout/protocol-only", "pass", "pass"),
    ("lifecycle/shutdown/stdin-eof", "pass", "pass"),
    ("lifecycle/shutdown/sigterm", "pass", "pass"),
    ("lifecycle/initialize/revisions", "pass", "pass"),
    // The Python SDK 2.3.0 speaks the stateless era: server/discover in the envelope, -32602
    // without it, initialize refused -32022 on a modern connection, the envelope refused on a
    // 2025-11-25 one, tools/list answered as a connection's first request.
    ("lifecycle/2026-07-28/discover", "pass", "pass"),
    ("lifecycle/2026-07-28/envelope", "pass", "pass"),
    ("lifecycle/2026-07-28/envelope-missing", "pass", "pass"),
    ("lifecycle/2026-07-28/initialize-refused", "pass", "pass"),
    (
        "lifecycle/2026-07-28/legacy-refuses-envelope",
        "pass",
        "pass",
    ),
    ("lifecycle/2026-07-28/stateless", "pass", "pass"),
    ("jsonrpc/ids/zero", "pass", "pass"),
    ("jsonrpc/ids/negative", "pass", "pass"),
    ("jsonrpc/ids/string", "pass", "pass"),
    ("jsonrpc/ids/empty-string", "pass", "pass"),
    ("jsonrpc/ids/i64-max", "pass", "pass"),
    ("jsonrpc/ids/i64-min", "pass", "pass"),
    ("jsonrpc/ids/u64-max", "pass", "pass"),
    ("jsonrpc/response-ids", "pass", "pass"),
    ("jsonrpc/unknown-method", "pass", "pass"),
    ("jsonrpc/unknown-notification", "pass", "pass"),
    // JSON-RPC 2.0 §5.1 answers a line that is no JSON -32700 with id null; the SDK drops it
    // silently (and still answers the ping after it). T4: a SHOULD outside provider.
    ("jsonrpc/malformed/parse-error", "warn", "warn"),
    // Invalid UTF-8 is read lossily and answered -32601 (data "\u{fffd}\u{fffd}"): the kit's
    // rule, info.
    ("jsonrpc/malformed/invalid-utf8", "info", "info"),
    // JSON-RPC 2.0 §5 (-32600 "Invalid Request", id null where none can be read): a JSON
    // scalar, "jsonrpc": "1.0", a non-string method, scalar params and a null id are each
    // dropped silently. T4, a SHOULD outside provider.
    ("jsonrpc/invalid/not-an-object", "warn", "warn"),
    ("jsonrpc/invalid/wrong-version", "warn", "warn"),
    ("jsonrpc/invalid/method-not-string", "warn", "warn"),
    ("jsonrpc/invalid/params-not-structured", "warn", "warn"),
    ("jsonrpc/invalid/null-id", "warn", "warn"),
    // MCP 2025-03-26 basic (Batching): implementations "MUST support receiving JSON-RPC
    // batches". Both negotiate 2025-03-26 when offered it and drop a batch of two pings and a
    // notification without any answer (the ping after it is answered): a MUST failure, the
    // one that fails the gate.
    ("jsonrpc/batch/2025-03-26", "fail", "fail"),
    // Under 2025-06-18 and 2024-11-05 the batch is dropped too; T5's -32600 is the kit's rule.
    ("jsonrpc/batch/rejected-2025-06-18", "info", "info"),
    ("jsonrpc/batch/rejected-2024-11-05", "info", "info"),
    // JSON-RPC 2.0 §6: an empty array is answered -32600 with id null; it is dropped.
    ("jsonrpc/batch/empty", "warn", "warn"),
    // T6's bound is the kit's (MCP and JSON-RPC set none): each buffers the 64 MiB line (about
    // 190 MiB more memory) and answers the ping inside it.
    ("jsonrpc/oversized/answered", "info", "info"),
    ("jsonrpc/oversized/memory-bounded", "info", "info"),
    ("jsonrpc/long-connection", "pass", "pass"),
    ("liveness/after-malformed", "pass", "pass"),
    ("liveness/after-oversized", "pass", "pass"),
    ("liveness/in-flight-kept", "pass", "pass"),
    ("tools/list/shape", "pass", "pass"),
    ("tools/list/pagination", "pass", "pass"),
    // MCP 2025-06-18 server/utilities/pagination: "Invalid cursors SHOULD result in an error
    // with code -32602"; both ignore the cursor and list every tool.
    ("tools/list/invalid-cursor", "warn", "warn"),
    ("tools/schema/valid", "pass", "pass"),
    // TOOL-2's closed schemas are the contract's: informational.
    ("tools/schema/closed-objects", "info", "info"),
    ("tools/names/sep-986", "pass", "pass"),
    ("tools/call/unknown-tool", "pass", "pass"),
    // Their read-only tools (get_current_time; git_status) are called with a wrongly typed
    // argument: an isError result naming the pydantic validation error.
    ("tools/call/wrong-typed-arguments", "pass", "pass"),
    (
        "tools/call/wrong-typed-arguments@2025-11-25",
        "pass",
        "pass",
    ),
    ("tools/result/shape", "pass", "pass"),
    // TOOL-4's split needs a call of a listed tool with valid arguments by another case.
    ("tools/result/error-split", "skip", "skip"),
    // The time server's two tools declare an outputSchema; called with arguments made from
    // their inputSchema (timezone "mcp-conformance") each answers an isError result, which an
    // outputSchema does not bind. The git server's tools declare none. Nothing to grade.
    ("tools/result/output-schema", "skip", "skip"),
    ("tools/names/2025-11-25", "pass", "pass"),
    ("tools/schema/dialect/2025-11-25", "pass", "pass"),
    ("listings/title/2025-11-25", "pass", "pass"),
    ("listings/icons/2025-11-25", "pass", "pass"),
    // Both declare resources and prompts (the SDK's defaults) and list none.
    ("resources/list/shape", "pass", "pass"),
    ("resources/read/listed", "skip", "skip"),
    ("resources/read/unknown", "pass", "pass"),
    ("resources/read/unknown@2026-07-28", "pass", "pass"),
    ("prompts/list/shape", "pass", "pass"),
    ("prompts/get/shape", "skip", "skip"),
    // MCP server/prompts (Error Handling): "Servers SHOULD return standard JSON-RPC errors for
    // common failure cases: Invalid prompt name: -32602 (Invalid params)". Both answer code 0
    // ("Unknown prompt: mcp-conformance-no-such-prompt"): a SHOULD deviation, a warning.
    ("prompts/get/unknown", "warn", "warn"),
    // Neither logs without being asked; nothing stays in flight on them.
    ("logging/message-shape", "skip", "skip"),
    ("cancellation/unknown-request", "pass", "pass"),
    ("cancellation/in-flight/no-response", "skip", "skip"),
    // No computer-mcp metadata: informational under plain, skipped where no tool has a role.
    ("meta-risk/declared", "info", "info"),
    ("meta-risk/by-role", "skip", "skip"),
    ("meta-risk/annotations", "skip", "skip"),
    ("meta-work/declared", "info", "info"),
    ("meta-work/resource-listed", "info", "info"),
    // The read of computer-mcp://runtime/work/v1 is answered -32602 ("Unknown resource"): the
    // URI is not listed (meta-work/resource-listed, info), so the snapshot case is blocked by
    // that, not graded a second time.
    ("meta-work/snapshot-shape", "skip", "skip"),
    ("meta-work/invocation-malformed", "skip", "skip"),
    ("meta-work/invocation-not-an-argument", "skip", "skip"),
    ("meta-continuation/declared", "skip", "skip"),
    ("meta-continuation/absent", "skip", "skip"),
];

type Row = (&'static str, &'static str, &'static str);

/// Grades `server` under the plain profile at the default `--jobs` and asserts every verdict
/// with `pick`'s column, the report's schema and exit 1 (the 2025-03-26 batch MUST). The
/// deadline is the Python SDK server's (tests/it/real_servers.rs): eight interpreter starts at
/// once on two busy cores can take seconds each.
fn graded_precisely(server: &Command, pick: fn(&Row) -> &'static str) {
    let pinned: Vec<(&str, &str)> = PLAIN.iter().map(|row| (row.0, pick(row))).collect();
    let (out, report) = grade_pinned(server, "40000", &pinned);
    let batch: &Value = case(&report, "jsonrpc/batch/2025-03-26");
    assert_eq!(batch["level"], "MUST", "{batch}");
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
}

/// mcp-server-time with its local zone UTC.
#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn the_time_reference_server_is_graded_precisely() {
    let Some(server) = testkit::prereq::require(testkit::prereq::mcp_time_server()) else {
        return;
    };
    graded_precisely(&server, |row| row.1);
}

/// `git ARGS` in `repo` with no user or system configuration; its stdout.
fn git(repo: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(["-c", "user.name=cmk", "-c", "user.email=cmk@invalid"])
        .args(["-c", "commit.gpgsign=false"])
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .expect("run git");
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// mcp-server-git on a fresh repository with one commit: graded like the time server, and the
/// repository is as it was (same HEAD, same branches, a clean tree): only its read-only tools
/// (status, diffs, log, show, branch) were called.
#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn the_git_reference_server_is_graded_precisely() {
    let dir = tempfile::tempdir().expect("tempdir");
    let repo = dir.path();
    git(repo, &["init", "-q", "-b", "main"]);
    std::fs::write(repo.join("README"), "graded by mcp-conformance\n").expect("write");
    git(repo, &["add", "README"]);
    git(repo, &["commit", "-q", "-m", "one commit"]);
    let state = |repo: &Path| {
        (
            git(repo, &["rev-parse", "HEAD"]),
            git(repo, &["branch", "--list"]),
            git(repo, &["status", "--porcelain", "--untracked-files=all"]),
        )
    };
    let before = state(repo);
    let Some(server) = testkit::prereq::require(testkit::prereq::mcp_git_server(repo)) else {
        return;
    };
    graded_precisely(&server, |row| row.2);
    assert_eq!(state(repo), before, "grading changed the repository");
    assert!(before.2.is_empty(), "{before:?}");
}
