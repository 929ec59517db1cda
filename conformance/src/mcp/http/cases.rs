//! The Streamable HTTP transport's own rules (MCP 2025-06-18 and 2025-11-25, "Transports",
//! Streamable HTTP), one case each, citing the contract's HTTP-* ids and the sentence. Each
//! handshakes on 2025-06-18; a rule 2025-11-25 added or changed is graded again on a session of
//! that revision by `rev_2025_11_25.rs`.

use serde_json::{Value, json};

use super::{ANSWER_CASE, Case, HttpCtx, Session, describe};
use crate::core::case::case;
use crate::core::http::{Body, HttpRequest, HttpResponse, Stop};
use crate::core::model::{Check, CheckResult, Level};
use crate::mcp::discovery::{DEFAULT_VERSION, init_params};

/// The `Origin` of a page on another site (DNS rebinding: the browser sends it as is).
pub const FOREIGN_ORIGIN: &str = "http://evil.example";
/// A session id no server issued.
const UNKNOWN_SESSION: &str = "mcp-conformance-unknown-session";
/// The case grading 404 for a session the server does not hold.
const UNKNOWN_SESSION_CASE: &str = "transport/http/session/unknown";
/// A date no revision has.
const UNSUPPORTED_VERSION: &str = "1999-01-01";

/// The cases of the transport.
pub const CASES: &[Case] = &[
    case!("transport/http/post/answer", "HTTP-2", Level::Must, Server,
        "A POSTed request is answered with one JSON object or an SSE stream carrying its \
         response as JSON-RPC messages, within the runner's bounds",
        answer[]),
    case!("transport/http/post/accepted", "HTTP-3", Level::Must, Server,
        "A POSTed notification the server accepts gets 202 Accepted with no body",
        accepted[]),
    case!("transport/http/session/unknown", "HTTP-4", Level::Must, Server,
        "A request with a session id the server never issued (or ended) gets 404 Not Found",
        unknown_session[]),
    case!("transport/http/session/id-charset", "HTTP-9", Level::Must, Server,
        "The Mcp-Session-Id issued on initialize holds only visible ASCII (0x21 to 0x7E)",
        id_charset[]),
    case!("transport/http/session/required", "HTTP-4", Level::Should, Server,
        "A server that issued a session id answers a request without it with 400 Bad Request",
        session_required[]),
    case!("transport/http/session/delete", "HTTP-5", Level::Must, Server,
        "DELETE with the session id ends the session (later requests get 404) or gets 405",
        delete[]),
    case!("transport/http/get/stream", "HTTP-6", Level::Must, Server,
        "GET on the endpoint answers text/event-stream or 405 Method Not Allowed",
        get_stream[]),
    case!("transport/http/protocol-version/unsupported", "HTTP-7", Level::Must, Server,
        "A request with an unsupported MCP-Protocol-Version header gets 400 Bad Request",
        unsupported_version[]),
    case!("transport/http/origin/foreign", "HTTP-8", Level::Must, Server,
        "A request with a foreign Origin is refused with a 4xx status, not served (DNS \
         rebinding; 2025-06-18 names no status)",
        foreign_origin[]),
];

/// The case grading a foreign `Origin` on the default revision.
pub const ORIGIN_CASE: &str = "transport/http/origin/foreign";

/// A `ping` request.
#[must_use]
pub fn ping(id: i64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "ping"})
}

/// HTTP-2: status 200, a JSON or SSE body, the response to `id` in it, no bound broken.
pub fn grade_answer(resp: &HttpResponse, id: &Value, what: &str) -> Result<(), Check> {
    let expected = format!(
        "{what} answered 200 with Content-Type application/json or text/event-stream \
         carrying its response"
    );
    let form = resp.media_type();
    let ok_form = matches!(
        form.as_deref(),
        Some("application/json" | "text/event-stream")
    );
    if resp.status != 200 || !ok_form || resp.response_to(id).is_none() {
        return Err(Check::fail(expected, describe(resp)));
    }
    if let Some(problem) = message_problems(&resp.body).into_iter().next() {
        return Err(Check::fail(
            format!("{what} answered with JSON-RPC 2.0 messages only"),
            problem,
        ));
    }
    Ok(())
}

/// What in a body is no JSON-RPC message: a JSON body that is not one, an SSE event whose data
/// is not JSON or not a message (events with empty data, such as a priming event, carry none).
pub fn message_problems(body: &Body) -> Vec<String> {
    let check = |text: &str| match serde_json::from_str::<Value>(text) {
        Err(_) => Some(format!(
            "not JSON: {}",
            crate::core::http::show(text.as_bytes())
        )),
        Ok(v) => crate::core::client::message_problem(&v)
            .map(|p| format!("{p}: {}", crate::core::http::show(text.as_bytes()))),
    };
    match body {
        Body::Json { raw, .. } => check(&String::from_utf8_lossy(raw)).into_iter().collect(),
        Body::Sse { events, .. } => events
            .iter()
            .filter(|e| !e.data.is_empty())
            .filter_map(|e| check(&e.data))
            .collect(),
        _ => Vec::new(),
    }
}

/// The finding a check of a session's handshake ends with: in this case, its own.
pub fn unblocked(check: Check) -> Check {
    match check {
        Check::Blocked { by, fallback } if by == ANSWER_CASE => *fallback,
        other => other,
    }
}

async fn answer(ctx: HttpCtx) -> CheckResult {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                      "params": init_params(Some(DEFAULT_VERSION))});
    let resp = ctx.send(HttpRequest::post(&init)).await?;
    grade_answer(&resp, &json!(0), "initialize")?;
    let session = ctx.session().await.map_err(unblocked)?;
    let resp = ctx.send(HttpCtx::post_in(&session, &ping(1))).await?;
    grade_answer(&resp, &json!(1), "ping")?;
    Ok(Check::Pass)
}

async fn accepted(ctx: HttpCtx) -> CheckResult {
    let session = ctx.session().await?;
    let resp = &session.initialized;
    if resp.status != 202 || !matches!(resp.body, Body::Empty) {
        return Err(Check::fail(
            "notifications/initialized answered 202 Accepted with no body",
            describe(resp),
        ));
    }
    Ok(Check::Pass)
}

/// The session's id, or the skip of a server that keeps none (sessions are a MAY).
fn issued(session: &Session) -> Result<&str, Check> {
    session.id.as_deref().ok_or_else(|| {
        Check::skip("the server issued no Mcp-Session-Id on initialize (sessions are optional)")
    })
}

async fn unknown_session(ctx: HttpCtx) -> CheckResult {
    let session = ctx.session().await?;
    issued(&session)?;
    let req = HttpCtx::post_in(&session, &ping(1)).header("mcp-session-id", UNKNOWN_SESSION);
    let resp = ctx.send(req).await?;
    if resp.status != 404 {
        return Err(Check::fail(
            format!("404 Not Found for a request in session {UNKNOWN_SESSION:?}, never issued"),
            describe(&resp),
        ));
    }
    Ok(Check::Pass)
}

async fn id_charset(ctx: HttpCtx) -> CheckResult {
    let session = ctx.session().await?;
    let id = issued(&session)?;
    if id.is_empty() || !id.bytes().all(|b| (0x21..=0x7e).contains(&b)) {
        return Err(Check::fail(
            "a session id of visible ASCII characters only (0x21 to 0x7E)",
            format!("Mcp-Session-Id: {id:?}"),
        ));
    }
    Ok(Check::Pass)
}

async fn session_required(ctx: HttpCtx) -> CheckResult {
    let session = ctx.session().await?;
    issued(&session)?;
    let req = HttpCtx::post_in(&session, &ping(1)).without("mcp-session-id");
    let resp = ctx.send(req).await?;
    if resp.status != 400 {
        return Err(Check::fail(
            "400 Bad Request for a request without the Mcp-Session-Id the server issued",
            describe(&resp),
        ));
    }
    Ok(Check::Pass)
}

async fn delete(ctx: HttpCtx) -> CheckResult {
    let session = ctx.session().await?;
    let id = issued(&session)?.to_owned();
    let req = HttpRequest::bodiless(hyper::Method::DELETE, Stop::AtEnd)
        .header("mcp-session-id", &id)
        .header("mcp-protocol-version", &session.version);
    let resp = ctx.send(req).await?;
    match resp.status {
        405 => return Ok(Check::Pass),
        200..=299 => {}
        _ => {
            return Err(Check::fail(
                "DELETE of the session answered 2xx (ended) or 405 (not allowed)",
                describe(&resp),
            ));
        }
    }
    let resp = ctx.send(HttpCtx::post_in(&session, &ping(1))).await?;
    if resp.status != 404 {
        // A server that answers every session it does not hold alike (400, say) fails the
        // unknown-session case with the same defect: graded there once.
        return Err(Check::blocked(
            UNKNOWN_SESSION_CASE,
            Check::fail(
                "404 Not Found for a request in the session DELETE ended",
                describe(&resp),
            ),
        ));
    }
    Ok(Check::Pass)
}

async fn get_stream(ctx: HttpCtx) -> CheckResult {
    let session = ctx.session().await?;
    let mut req = HttpRequest::bodiless(hyper::Method::GET, Stop::AtHead)
        .header("accept", "text/event-stream")
        .header("mcp-protocol-version", &session.version);
    if let Some(id) = &session.id {
        req = req.header("mcp-session-id", id);
    }
    let resp = ctx.send(req).await?;
    let sse = resp.status == 200 && resp.media_type().as_deref() == Some("text/event-stream");
    if !(sse || resp.status == 405) {
        return Err(Check::fail(
            "GET answered 200 text/event-stream or 405 Method Not Allowed",
            describe(&resp),
        ));
    }
    Ok(Check::Pass)
}

async fn unsupported_version(ctx: HttpCtx) -> CheckResult {
    let session = ctx.session().await?;
    let req =
        HttpCtx::post_in(&session, &ping(1)).header("mcp-protocol-version", UNSUPPORTED_VERSION);
    let resp = ctx.send(req).await?;
    if resp.status != 400 {
        return Err(Check::fail(
            format!("400 Bad Request for MCP-Protocol-Version: {UNSUPPORTED_VERSION}"),
            describe(&resp),
        ));
    }
    Ok(Check::Pass)
}

/// `initialize` proposing `date` from [`FOREIGN_ORIGIN`].
pub fn foreign_initialize(date: &str) -> HttpRequest {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                      "params": init_params(Some(date))});
    HttpRequest::post(&init).header("origin", FOREIGN_ORIGIN)
}

// HTTP-8 on 2025-06-18: "Servers MUST validate the Origin header on all incoming connections to
// prevent DNS rebinding attacks" names no status, so any refusal (4xx) passes; the 403 that
// 2025-11-25 added is graded on a session of that revision
// (`transport/http/origin/foreign@2025-11-25`).
async fn foreign_origin(ctx: HttpCtx) -> CheckResult {
    let resp = ctx.send(foreign_initialize(DEFAULT_VERSION)).await?;
    if !(400..500).contains(&resp.status) {
        return Err(Check::fail(
            format!("a refusal (4xx) of initialize from Origin: {FOREIGN_ORIGIN}"),
            describe(&resp),
        ));
    }
    Ok(Check::Pass)
}
