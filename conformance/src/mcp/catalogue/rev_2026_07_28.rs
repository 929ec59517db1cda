//! The stateless era (MCP 2026-07-28): `server/discover`'s answer, the per-request envelope,
//! `initialize` refused on a modern connection with `-32022` and its data, an enveloped request
//! refused on a handshake connection, and no request depending on an earlier one's state. Each
//! case is graded on connections opened in the envelope (no `initialize` sent), and says `skip:
//! revision not supported` for a server whose `server/discover` probe failed.
//!
//! What is the specification's text and what is the Python SDK 2.3.0's behaviour is said per
//! case (the requirement column) and in docs/conformance.md.

use serde_json::{Value, json};

use super::revisions::NOT_SUPPORTED;
use super::support::{ensure, result_of, show};
use crate::core::case::case;
use crate::core::client::error_code;
use crate::core::model::{Check, CheckResult, Level};
use crate::mcp::ctx::Ctx;
use crate::mcp::gate::Case;
use crate::mcp::profile::Levels;
use crate::mcp::revision::{Era, Revision, envelope};

/// The cases of this section (part of `lifecycle`).
pub const CASES: &[Case] = &[
    case!(
        "lifecycle/2026-07-28/discover",
        "MCP 2026-07-28 schema, DiscoverResult (supportedVersions, capabilities, resultType, cacheScope, ttlMs required; resultType: \"Servers implementing this protocol version MUST include this field\")",
        Levels::all(Level::Must),
        Server,
        "server/discover in the envelope, as a connection's first request, answers supportedVersions (naming 2026-07-28), a capabilities object, resultType, cacheScope (private or public) and a non-negative ttlMs",
        discover[]
    ),
    case!(
        "lifecycle/2026-07-28/envelope",
        "MCP 2026-07-28 basic (per-request protocol fields: every request carries params._meta[\"io.modelcontextprotocol/protocolVersion\"]; Python SDK 2.3.0: \"every request carries its own envelope\")",
        Levels::all(Level::Must),
        Server,
        "On a modern connection every enveloped request is answered on that revision: server/discover, then tools/list, both results",
        every_enveloped_request[]
    ),
    case!(
        "lifecycle/2026-07-28/envelope-missing",
        "Python SDK 2.3.0 (mcp/shared/inbound.py: a request without the envelope pair is INVALID_PARAMS, after basic \"Per-request protocol fields\")",
        Levels::SDK_ONLY,
        Server,
        "On a modern connection a request without the envelope is refused with -32602",
        missing_envelope[]
    ),
    case!(
        "lifecycle/2026-07-28/initialize-refused",
        "Python SDK 2.3.0 (mcp/server/runner.py: \"initialize on a modern connection gets UNSUPPORTED_PROTOCOL_VERSION naming the served versions\", -32022, data {supported, requested})",
        Levels::SDK_ONLY,
        Server,
        "initialize on a modern connection is refused with -32022 and data {supported: [..2026-07-28..], requested: the date proposed}",
        initialize_refused[]
    ),
    case!(
        "lifecycle/2026-07-28/legacy-refuses-envelope",
        "Python SDK 2.3.0 (mcp/server/runner.py: \"an enveloped request on a legacy connection gets INVALID_REQUEST\")",
        Levels::SDK_ONLY,
        Server,
        "On a handshake connection (initialize done on a handshake revision the server supports) a request in the 2026-07-28 envelope is refused with -32600",
        legacy_refuses_envelope[]
    ),
    case!(
        "lifecycle/2026-07-28/stateless",
        "MCP 2026-07-28 (the stateless era: no initialize, no connection state; Python SDK 2.3.0 serves each modern request on its own envelope)",
        Levels::all(Level::Must),
        Server,
        "tools/list in the envelope answers as a connection's first request (no server/discover before it), with the same tools on two fresh connections",
        stateless[]
    ),
];

/// `Err(skip)` unless the server supports the stateless era.
fn supported(ctx: &Ctx) -> Result<(), Check> {
    if ctx.support.supported().contains(&Revision::R2026_07_28) {
        Ok(())
    } else {
        Err(Check::skip(NOT_SUPPORTED))
    }
}

/// `params` in the 2026-07-28 envelope.
fn env(params: Value) -> Value {
    envelope(params, Revision::R2026_07_28)
}

/// The error code of `msg`, or a failure saying `expected` got a result.
fn refused_with(msg: &Value, codes: &[i64], expected: &str) -> Result<(), Check> {
    ensure(
        error_code(msg).is_some_and(|c| codes.contains(&c)),
        expected,
        show(msg),
    )
}

async fn discover(ctx: Ctx) -> CheckResult {
    supported(&ctx)?;
    let (_client, answer) = ctx.first_answer("server/discover", env(json!({}))).await?;
    let r = result_of(&answer, "server/discover")?;
    let expected = "a DiscoverResult: supportedVersions naming 2026-07-28, capabilities an object, \
                    resultType a string, cacheScope private or public, ttlMs a non-negative integer";
    let versions_ok = r
        .get("supportedVersions")
        .and_then(Value::as_array)
        .is_some_and(|v| v.iter().all(Value::is_string) && v.iter().any(|d| d == "2026-07-28"));
    let ok = versions_ok
        && r.get("capabilities").is_some_and(Value::is_object)
        && r.get("resultType").is_some_and(Value::is_string)
        && r.get("cacheScope")
            .and_then(Value::as_str)
            .is_some_and(|s| s == "private" || s == "public")
        && r.get("ttlMs").and_then(Value::as_u64).is_some();
    ensure(ok, expected, show(&answer))?;
    Ok(Check::Pass)
}

async fn every_enveloped_request(ctx: Ctx) -> CheckResult {
    supported(&ctx)?;
    let (mut client, first) = ctx.first_answer("server/discover", env(json!({}))).await?;
    result_of(&first, "server/discover in the envelope")?;
    let second = client.request("tools/list", Some(env(json!({})))).await?;
    let tools = result_of(&second, "tools/list in the envelope, after server/discover")?;
    ensure(
        tools.get("tools").is_some_and(Value::is_array),
        "a tools/list result with a tools array",
        show(&second),
    )?;
    Ok(Check::Pass)
}

async fn missing_envelope(ctx: Ctx) -> CheckResult {
    supported(&ctx)?;
    let (mut client, first) = ctx.first_answer("server/discover", env(json!({}))).await?;
    result_of(&first, "server/discover in the envelope")?;
    let bare = client.request("tools/list", Some(json!({}))).await?;
    // Over Streamable HTTP the link sends the era's MCP-Protocol-Version header on every POST
    // of a modern connection, so a body without the envelope does not match its header: "If
    // the values do not match, the server MUST reject the request with 400 Bad Request and a
    // HeaderMismatch JSON-RPC error" (2026-07-28 streamable-http, Protocol Version Header).
    let (codes, named): (&[i64], &str) = if client.is_http() {
        (
            &[-32602, -32020],
            "-32602 (or -32020 HeaderMismatch over HTTP)",
        )
    } else {
        (&[-32602], "-32602")
    };
    refused_with(
        &bare,
        codes,
        &format!("tools/list without the envelope on a modern connection refused with {named}"),
    )?;
    Ok(Check::Pass)
}

async fn initialize_refused(ctx: Ctx) -> CheckResult {
    supported(&ctx)?;
    let (mut client, first) = ctx.first_answer("server/discover", env(json!({}))).await?;
    result_of(&first, "server/discover in the envelope")?;
    let asked = Revision::DEFAULT.date();
    let answer = client
        .request(
            "initialize",
            Some(crate::mcp::discovery::init_params(Some(asked))),
        )
        .await?;
    let expected = format!(
        "initialize on a modern connection refused with -32022 and data {{supported: [.., \
         \"2026-07-28\", ..], requested: \"{asked}\"}}"
    );
    let data = answer.get("error").and_then(|e| e.get("data"));
    let ok = error_code(&answer) == Some(-32022)
        && data
            .and_then(|d| d.get("supported"))
            .and_then(Value::as_array)
            .is_some_and(|s| s.iter().any(|d| d == "2026-07-28"))
        && data.and_then(|d| d.get("requested")) == Some(&json!(asked));
    ensure(ok, expected, show(&answer))?;
    Ok(Check::Pass)
}

async fn legacy_refuses_envelope(ctx: Ctx) -> CheckResult {
    supported(&ctx)?;
    let Some(legacy) = ctx
        .support
        .supported()
        .into_iter()
        .rev()
        .find(|r| r.era() == Era::Handshake)
    else {
        return Err(Check::skip("no handshake revision supported"));
    };
    let mut client = ctx.session_with(legacy.date()).await?;
    let answer = client.request("tools/list", Some(env(json!({})))).await?;
    // Over Streamable HTTP the session's MCP-Protocol-Version names {legacy} and the body's
    // envelope 2026-07-28: "If the values do not match, the server MUST reject the request with
    // 400 Bad Request and a HeaderMismatch JSON-RPC error" (2026-07-28 streamable-http,
    // Protocol Version Header), which refuses the mix as well.
    let (codes, named): (&[i64], &str) = if client.is_http() {
        (
            &[-32600, -32020],
            "-32600 (or -32020 HeaderMismatch over HTTP)",
        )
    } else {
        (&[-32600], "-32600")
    };
    refused_with(
        &answer,
        codes,
        &format!(
            "tools/list in the 2026-07-28 envelope on a {legacy} connection refused with {named}"
        ),
    )?;
    Ok(Check::Pass)
}

async fn stateless(ctx: Ctx) -> CheckResult {
    supported(&ctx)?;
    let (_one, first) = ctx.first_answer("tools/list", env(json!({}))).await?;
    let first = result_of(
        &first,
        "tools/list in the envelope as a connection's first request",
    )?;
    let (_other, second) = ctx.first_answer("tools/list", env(json!({}))).await?;
    let second = result_of(
        &second,
        "tools/list in the envelope as another connection's first request",
    )?;
    ensure(
        same_tools(first, second),
        "tools/list answered as a connection's first request (no earlier request's state), with the same tools on two fresh connections",
        format!("first: {}; second: {}", show(first), show(second)),
    )?;
    Ok(Check::Pass)
}

/// Whether two `tools/list` results list the same tools, in whatever order. MCP sets no order on
/// a listing (server/tools, Listing Tools), and servers built on the Rust SDK `rmcp` list their
/// tools in a hash map's order, which differs from one process to the next: the same tools in
/// another order are no state carried between requests.
fn same_tools(first: &Value, second: &Value) -> bool {
    let sorted = |result: &Value| {
        let mut tools = result.get("tools")?.as_array()?.clone();
        tools.sort_by_cached_key(|tool| (tool.get("name").map(Value::to_string), tool.to_string()));
        Some(tools)
    };
    matches!((sorted(first), sorted(second)), (Some(a), Some(b)) if a == b)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::same_tools;

    #[test]
    fn the_same_tools_in_another_order_are_the_same_listing() {
        let a = json!({"name": "a", "inputSchema": {"type": "object", "properties": {}}});
        let b = json!({"name": "b", "inputSchema": {"properties": {}, "type": "object"}});
        let first = json!({"resultType": "complete", "tools": [a, b]});
        let second = json!({"resultType": "complete", "tools": [b, a]});
        assert!(same_tools(&first, &second));
    }

    #[test]
    fn another_tool_or_no_listing_is_not_the_same() {
        let a = json!({"name": "a"});
        let b = json!({"name": "b"});
        let first = json!({"tools": [a, b]});
        assert!(!same_tools(&first, &json!({"tools": [a]})));
        assert!(!same_tools(
            &first,
            &json!({"tools": [a, {"name": "b", "title": "B"}]})
        ));
        assert!(!same_tools(&json!({}), &json!({})));
        assert!(!same_tools(&json!({"tools": {}}), &json!({"tools": {}})));
    }
}
