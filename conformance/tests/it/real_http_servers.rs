//! Real servers over Streamable HTTP, graded by `mcp-conformance --url` on loopback: the
//! TypeScript reference server (`@modelcontextprotocol/server-everything@2026.8.31`,
//! `streamableHttp` mode) and a Python SDK (`mcp==2.3.0`) server (`tests/it/python_server.py
//! --http PORT`), pinned and installed on first use, every verdict of the catalogue and of the
//! transport's own cases pinned. With `CI=true` a missing prerequisite fails the test.

use std::path::PathBuf;

use crate::docs::assert_matches_schema;
use crate::http::{Server, grade};
use crate::support::assert_outcomes_pinned;

/// server-everything on Streamable HTTP, bound to loopback by a preloaded script, on a port
/// the test picked; killed when dropped.
fn everything_http() -> Option<Server> {
    let mut cmd = testkit::prereq::require(testkit::prereq::everything_server_streamable_http())?;
    let port = testkit::listen::free_loopback_port();
    let preload = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/it/loopback_preload.cjs");
    let options = match std::env::var("NODE_OPTIONS") {
        Ok(o) if !o.is_empty() => format!("{o} --require {}", preload.display()),
        _ => format!("--require {}", preload.display()),
    };
    // It says so on stderr once it listens.
    let child = testkit::listen::spawn_listening(
        cmd.env("PORT", port.to_string())
            .env("NODE_OPTIONS", options),
        "listening on port",
        "server-everything",
    );
    Some(Server {
        child,
        url: format!("http://127.0.0.1:{port}/mcp"),
    })
}

/// Every verdict of server-everything over Streamable HTTP under the plain profile: the
/// catalogue's cases over sessions of the endpoint (each verdict that differs from stdio's, in
/// tests/it/real_servers.rs, says why), then the transport's own (HTTP-1..10).
const PLAIN_OVER_HTTP: &[(&str, &str)] = &[
    // HTTP-4: it requires a session and answers a request without one (server/discover, ping,
    // tools/list before initialize) 400 Bad Request, as the transport says it SHOULD: what a
    // server does before initialize is not observable over HTTP (stdio: pass, pass, info).
    ("lifecycle/server-discover/probe", "skip"),
    ("lifecycle/initialize/result-shape", "pass"),
    ("lifecycle/initialize/version/2024-11-05", "pass"),
    ("lifecycle/initialize/version/2025-03-26", "pass"),
    ("lifecycle/initialize/version/2025-06-18", "pass"),
    ("lifecycle/initialize/unsupported-proposal", "pass"),
    ("lifecycle/initialize/older-proposal", "pass"),
    ("lifecycle/initialize/malformed-proposal", "pass"),
    // An initialize without protocolVersion is no initialize to its transport: 400 "Server not
    // initialized" (stdio: -32603). T2's supported date is the kit's rule: info under plain.
    ("lifecycle/initialize/missing-proposal", "info"),
    ("lifecycle/ping/before-initialize", "skip"),
    ("lifecycle/ping/after-initialize", "pass"),
    ("lifecycle/request-before-initialize", "skip"),
    // No request of the server before notifications/initialized (as over stdio).
    ("lifecycle/initialized/no-early-requests", "pass"),
    // Stdio's own rules (T1 stdout, T8 stdin EOF and SIGTERM; docs/conformance.md, Streamable
    // HTTP): not applicable over HTTP.
    ("lifecycle/stdout/protocol-only", "skip"),
    ("lifecycle/shutdown/stdin-eof", "skip"),
    ("lifecycle/shutdown/sigterm", "skip"),
    ("lifecycle/initialize/revisions", "pass"),
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
    // As on stdio the TypeScript SDK takes no id past 2^53: over HTTP it refuses the POST
    // 400 with -32700 and id null (T3a, a SHOULD outside provider).
    ("jsonrpc/ids/i64-max", "warn"),
    ("jsonrpc/ids/i64-min", "warn"),
    ("jsonrpc/ids/u64-max", "warn"),
    ("jsonrpc/response-ids", "pass"),
    ("jsonrpc/unknown-method", "pass"),
    ("jsonrpc/unknown-notification", "pass"),
    // Its HTTP transport answers a body that is no JSON 400 with -32700 and id null, as JSON-RPC
    // 2.0 §5.1 asks (stdio: dropped silently, warn).
    ("jsonrpc/malformed/parse-error", "pass"),
    // Read lossily and answered -32601, as on stdio: the kit's rule, info under plain.
    ("jsonrpc/malformed/invalid-utf8", "info"),
    // Invalid requests get -32700 (parse error) and id null, not -32600 under their id: T4, a
    // SHOULD outside provider (stdio: dropped silently).
    ("jsonrpc/invalid/not-an-object", "warn"),
    ("jsonrpc/invalid/wrong-version", "warn"),
    ("jsonrpc/invalid/method-not-string", "warn"),
    ("jsonrpc/invalid/params-not-structured", "warn"),
    ("jsonrpc/invalid/null-id", "warn"),
    // MCP 2025-03-26 basic (Batching): negotiated 2025-03-26, it answers both pings of the
    // batch, one SSE event each, which that revision's transport allows ("These responses MAY
    // be batched"): the runner reads them as the batch's answer (stdio: dropped, a fail).
    ("jsonrpc/batch/2025-03-26", "pass"),
    // Under 2025-06-18 and 2024-11-05 it answers a batch's first request: T5's rejection is the
    // kit's rule, info under plain.
    ("jsonrpc/batch/rejected-2025-06-18", "info"),
    ("jsonrpc/batch/rejected-2024-11-05", "info"),
    // JSON-RPC 2.0 §6: an empty array is answered -32600 with id null; it answers 202.
    ("jsonrpc/batch/empty", "warn"),
    // Stdio's framing of lines (T6, T4 after a 64 MiB line): not applicable over HTTP.
    ("jsonrpc/oversized/answered", "skip"),
    ("jsonrpc/oversized/memory-bounded", "skip"),
    ("jsonrpc/long-connection", "pass"),
    ("liveness/after-malformed", "pass"),
    ("liveness/after-oversized", "skip"),
    ("liveness/in-flight-kept", "pass"),
    ("tools/list/shape", "pass"),
    ("tools/list/pagination", "pass"),
    // The rest as on stdio (tests/it/real_servers.rs says why for each verdict that is no pass).
    ("tools/list/invalid-cursor", "warn"),
    ("tools/schema/valid", "pass"),
    ("tools/schema/closed-objects", "info"),
    ("tools/names/sep-986", "pass"),
    ("tools/call/unknown-tool", "warn"),
    ("tools/call/wrong-typed-arguments", "pass"),
    ("tools/call/wrong-typed-arguments@2025-11-25", "pass"),
    ("tools/result/shape", "pass"),
    ("tools/result/error-split", "skip"),
    ("tools/result/output-schema", "pass"),
    ("tools/names/2025-11-25", "pass"),
    ("tools/schema/dialect/2025-11-25", "pass"),
    // MCP 2025-11-25 schema.ts (BaseMetadata, Icons), as on stdio.
    ("listings/title/2025-11-25", "pass"),
    ("listings/icons/2025-11-25", "pass"),
    ("resources/list/shape", "pass"),
    ("resources/read/listed", "pass"),
    ("resources/read/unknown", "pass"),
    ("resources/read/unknown@2026-07-28", "skip"),
    ("prompts/list/shape", "pass"),
    ("prompts/get/shape", "pass"),
    ("prompts/get/unknown", "pass"),
    ("logging/message-shape", "skip"),
    ("cancellation/unknown-request", "pass"),
    ("cancellation/in-flight/no-response", "skip"),
    ("meta-risk/declared", "info"),
    ("meta-risk/by-role", "skip"),
    ("meta-risk/annotations", "skip"),
    ("meta-work/declared", "info"),
    ("meta-work/resource-listed", "info"),
    // The work URI is not listed (meta-work/resource-listed, info), so its refused read is that
    // defect: the snapshot case is blocked by it, not graded a second time.
    ("meta-work/snapshot-shape", "skip"),
    ("meta-work/invocation-malformed", "skip"),
    ("meta-work/invocation-not-an-argument", "skip"),
    ("meta-continuation/declared", "skip"),
    ("meta-continuation/absent", "skip"),
    ("transport/http/post/answer", "pass"),
    ("transport/http/post/accepted", "pass"),
    // HTTP-4: a session it does not hold gets 400, not 404; the DELETE case needs that 404 and
    // is blocked by this one (one defect, one verdict).
    ("transport/http/session/unknown", "fail"),
    ("transport/http/session/id-charset", "pass"),
    ("transport/http/session/required", "pass"),
    ("transport/http/session/delete", "skip"),
    ("transport/http/get/stream", "pass"),
    ("transport/http/protocol-version/unsupported", "pass"),
    // HTTP-8: it validates no Origin (DNS rebinding); on 2025-11-25 it serves the foreign page
    // as well, graded once by the case above.
    ("transport/http/origin/foreign", "fail"),
    // On a 2025-11-25 session it answers ping in the POST's own stream.
    ("transport/http/post/answer@2025-11-25", "pass"),
    ("transport/http/origin/foreign@2025-11-25", "skip"),
    // HTTP-10: on a 2025-11-25 session its SSE stream opens with an event of an ID and no data.
    ("transport/http/sse/priming/2025-11-25", "pass"),
];

/// The TypeScript reference server over Streamable HTTP, every verdict pinned: the catalogue's
/// cases run over sessions of it as over stdio, stdio's own rules are skipped as not
/// applicable, and it validates no `Origin` (HTTP-8: a page from any site may drive it, DNS
/// rebinding) and answers a session it does not hold with 400 instead of 404 (HTTP-4), which
/// the DELETE case then skips as blocked by (the same defect, graded once).
#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn server_everything_over_http_is_graded_on_every_case_that_applies() {
    let Some(server) = everything_http() else {
        return;
    };
    let (code, outcomes, json) = grade(&server.url);
    assert_matches_schema(&json);
    assert_outcomes_pinned(&outcomes, PLAIN_OVER_HTTP);
    for (id, stdio_only) in mcp_conformance::mcp::transport::STDIO_ONLY {
        if let Some(c) = json["cases"]
            .as_array()
            .and_then(|c| c.iter().find(|c| c["id"] == *id))
        {
            assert!(
                c["reason"].as_str().is_some_and(|r| r.contains(stdio_only)),
                "{c}"
            );
        }
    }
    let origin = json["cases"]
        .as_array()
        .and_then(|c| {
            c.iter()
                .find(|c| c["id"] == "transport/http/origin/foreign")
        })
        .expect("the origin case");
    assert!(
        origin["actual"]
            .as_str()
            .is_some_and(|a| a.starts_with("HTTP 200")),
        "{origin}"
    );
    // The unknown session and the foreign Origin fail (pinned above): the gate fails.
    assert_eq!(code, Some(1));
}

/// The Python SDK server on Streamable HTTP at a free loopback port, in a process group of its
/// own (killed when dropped); `None` when the prerequisite is missing outside CI.
fn python_http() -> Option<Server> {
    let python = testkit::prereq::require(testkit::prereq::python_mcp())?;
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/it/python_server.py");
    let port = testkit::listen::free_loopback_port();
    // Uvicorn says so on stderr once it listens.
    let child = testkit::listen::spawn_listening(
        std::process::Command::new(python)
            .arg(&script)
            .args(["--http", &port.to_string()]),
        &format!("Uvicorn running on http://127.0.0.1:{port}"),
        "the Python server",
    );
    Some(Server {
        child,
        url: format!("http://127.0.0.1:{port}/mcp"),
    })
}

/// Every verdict of the Python SDK 2.3.0 server over Streamable HTTP under the plain profile:
/// where one differs from stdio's (tests/it/real_servers.rs, which says why for the rest), the
/// comment says why.
const PYTHON_OVER_HTTP: &[(&str, &str)] = &[
    // Sent with the 2026-07-28 request metadata headers (MCP-Protocol-Version, Mcp-Method), the
    // probe's server/discover reaches its stateless-era entry and is answered (as on stdio).
    ("lifecycle/server-discover/probe", "pass"),
    ("lifecycle/initialize/result-shape", "pass"),
    ("lifecycle/initialize/version/2024-11-05", "pass"),
    ("lifecycle/initialize/version/2025-03-26", "pass"),
    ("lifecycle/initialize/version/2025-06-18", "pass"),
    ("lifecycle/initialize/unsupported-proposal", "pass"),
    ("lifecycle/initialize/older-proposal", "pass"),
    ("lifecycle/initialize/malformed-proposal", "pass"),
    ("lifecycle/initialize/missing-proposal", "pass"),
    // HTTP-4: it requires a session and refuses a request without one 400 (ping, tools/list
    // before initialize): not observable over HTTP (stdio: pass, info).
    ("lifecycle/ping/before-initialize", "skip"),
    ("lifecycle/ping/after-initialize", "pass"),
    ("lifecycle/request-before-initialize", "skip"),
    ("lifecycle/initialized/no-early-requests", "pass"),
    // Stdio's own rules (T1, T8): not applicable over HTTP.
    ("lifecycle/stdout/protocol-only", "skip"),
    ("lifecycle/shutdown/stdin-eof", "skip"),
    ("lifecycle/shutdown/sigterm", "skip"),
    ("lifecycle/initialize/revisions", "pass"),
    // Its session manager routes a POST whose MCP-Protocol-Version names no handshake revision
    // to its 2026-07-28 entry (mcp/server/streamable_http_manager.py), so with the request
    // metadata headers that revision requires the stateless era is graded over HTTP too.
    ("lifecycle/2026-07-28/discover", "pass"),
    ("lifecycle/2026-07-28/envelope", "pass"),
    ("lifecycle/2026-07-28/envelope-missing", "pass"),
    // No modern connection over HTTP (every POST names its revision): not applicable.
    ("lifecycle/2026-07-28/initialize-refused", "skip"),
    // On a 2025-11-25 session (MCP-Protocol-Version: 2025-11-25) it serves tools/list in the
    // 2026-07-28 envelope where its stdio runner refuses it -32600: its HTTP transport routes
    // on the header alone ("header-only era-routing for now", the manager's own comment); the
    // SDK's own rule is informational (stdio: pass).
    ("lifecycle/2026-07-28/legacy-refuses-envelope", "info"),
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
    // Its HTTP transport answers a body that is no JSON 400 with -32700 and id null (JSON-RPC
    // 2.0 §5.1), and bytes that are no UTF-8 alike (stdio: dropped, warn; info).
    ("jsonrpc/malformed/parse-error", "pass"),
    ("jsonrpc/malformed/invalid-utf8", "pass"),
    // Invalid requests get -32602 "Validation error" with id null, not -32600 (T4, a SHOULD
    // outside provider); a request with id null is still dropped.
    ("jsonrpc/invalid/not-an-object", "warn"),
    ("jsonrpc/invalid/wrong-version", "warn"),
    ("jsonrpc/invalid/method-not-string", "warn"),
    ("jsonrpc/invalid/params-not-structured", "warn"),
    ("jsonrpc/invalid/null-id", "warn"),
    // MCP 2025-03-26 basic (Batching), "MUST support receiving JSON-RPC batches": negotiated
    // 2025-03-26, it refuses the batch with -32602 (as on stdio: a MUST failure).
    ("jsonrpc/batch/2025-03-26", "fail"),
    ("jsonrpc/batch/rejected-2025-06-18", "info"),
    ("jsonrpc/batch/rejected-2024-11-05", "info"),
    ("jsonrpc/batch/empty", "warn"),
    // Stdio's framing of lines (T6, T4 after a 64 MiB line): not applicable over HTTP.
    ("jsonrpc/oversized/answered", "skip"),
    ("jsonrpc/oversized/memory-bounded", "skip"),
    ("jsonrpc/long-connection", "pass"),
    ("liveness/after-malformed", "pass"),
    ("liveness/after-oversized", "skip"),
    ("liveness/in-flight-kept", "pass"),
    ("tools/list/shape", "pass"),
    ("tools/list/pagination", "pass"),
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
    ("resources/list/shape", "pass"),
    ("resources/read/listed", "pass"),
    ("resources/read/unknown", "pass"),
    ("resources/read/unknown@2026-07-28", "pass"),
    ("prompts/list/shape", "pass"),
    ("prompts/get/shape", "skip"),
    // An unknown prompt is error code 0, not -32602 (a SHOULD), as on stdio.
    ("prompts/get/unknown", "warn"),
    ("logging/message-shape", "skip"),
    ("cancellation/unknown-request", "pass"),
    ("cancellation/in-flight/no-response", "skip"),
    ("meta-risk/declared", "info"),
    ("meta-risk/by-role", "skip"),
    ("meta-risk/annotations", "skip"),
    ("meta-work/declared", "info"),
    ("meta-work/resource-listed", "info"),
    // The work URI is not listed (meta-work/resource-listed, info), so its refused read is that
    // defect: the snapshot case is blocked by it, not graded a second time.
    ("meta-work/snapshot-shape", "skip"),
    ("meta-work/invocation-malformed", "skip"),
    ("meta-work/invocation-not-an-argument", "skip"),
    ("meta-continuation/declared", "skip"),
    ("meta-continuation/absent", "skip"),
    // The transport's rules: sessions, 202, 404, DELETE, GET (405), the protocol-version header
    // and Origin (403, on both revisions) as specified.
    ("transport/http/post/answer", "pass"),
    ("transport/http/post/accepted", "pass"),
    ("transport/http/session/unknown", "pass"),
    ("transport/http/session/id-charset", "pass"),
    ("transport/http/session/required", "pass"),
    ("transport/http/session/delete", "pass"),
    ("transport/http/get/stream", "pass"),
    ("transport/http/protocol-version/unsupported", "pass"),
    ("transport/http/origin/foreign", "pass"),
    ("transport/http/post/answer@2025-11-25", "pass"),
    ("transport/http/origin/foreign@2025-11-25", "pass"),
    // HTTP-10 (2025-11-25, a SHOULD): its SSE stream opens with the response itself, no event of
    // an ID and empty data before it: a warning.
    ("transport/http/sse/priming/2025-11-25", "warn"),
];

/// The Python SDK 2.3.0 server over Streamable HTTP, every verdict pinned: the catalogue's
/// cases over sessions of it, and the transport's rules, where it misses 2025-11-25's priming
/// event (a SHOULD: warn) and refuses a 2025-03-26 batch (a MUST: the gate fails).
#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn the_python_sdk_server_over_http_is_graded_on_every_case_that_applies() {
    let Some(server) = python_http() else {
        return;
    };
    let (code, outcomes, json) = grade(&server.url);
    assert_matches_schema(&json);
    assert_outcomes_pinned(&outcomes, PYTHON_OVER_HTTP);
    let priming = crate::support::case(&json, "transport/http/sse/priming/2025-11-25");
    assert_eq!(priming["revision"], "2025-11-25", "{priming}");
    assert!(
        priming["actual"]
            .as_str()
            .is_some_and(|a| a.starts_with("its first event: ") && a.contains("\"id\":null")),
        "{priming}"
    );
    assert_eq!(code, Some(1));
}
