//! A tiny Streamable HTTP MCP server for the runner's own tests (`mcp-conformance --url`):
//! bound to 127.0.0.1 on an ephemeral port, it prints its URL (`http://127.0.0.1:PORT/mcp`) on
//! its first stdout line and serves until killed. It keeps sessions (`Mcp-Session-Id` issued on
//! `initialize`, required after it, 404 for unknown or ended ones, DELETE ends one), negotiates
//! 2025-06-18 or 2025-11-25 (the one proposed, else 2025-06-18), answers `initialize` as one
//! JSON object and other requests as an SSE stream (a priming event, then the response),
//! notifications with 202, GET with 405, a bad `MCP-Protocol-Version` with 400 and a foreign
//! `Origin` with 403. `--only-2025-06-18` makes it a server of that revision alone (no defect:
//! 2025-11-25's cases are skipped). `--poll` makes it poll as 2025-11-25 allows (no defect
//! either): on a 2025-11-25 request it sends only a priming event with `retry`, closes the
//! connection, and serves the response on the GET that resumes with that `Last-Event-ID`.
//! `--get-stream` answers GET with a server stream that never ends (keep-alive comments), as a
//! server that offers one does (no defect). Its JSON-RPC is clean too, so every MCP case that applies
//! over Streamable HTTP passes: a body that is no JSON is 400 with `-32700` (id null), one that
//! is no request object 400 with `-32600` (id null), an invalid request `-32600` under its id;
//! it lists no tools (an unknown tool or cursor is `-32602`), and answers `ping`.
//!
//! `--modern` serves the stateless era (2026-07-28) as well, the way rmcp's HTTP transport does
//! (no defect): a POST whose `MCP-Protocol-Version` is `2026-07-28` is served on its own, without
//! a session, when its body carries the same revision in the envelope
//! (`params._meta["io.modelcontextprotocol/protocolVersion"]`); a body without it, and an
//! enveloped request on a handshake session, is refused 400 with `-32020` HeaderMismatch.
//!
//! `--defect NAME` breaks exactly one transport rule: `no-origin-check` (any Origin served),
//! `notify-200` (notifications answered 200 with a body), `session-optional` (requests without the
//! session id served), `unknown-session-ok` (ids never issued served), `session-id-space` (session
//! ids with a space), `delete-keeps` (DELETE says 200 but the session lives on), `get-wrong` (GET
//! answered 200 text/plain), `any-version` (any MCP-Protocol-Version served), `endless-sse` (a
//! request's stream sends keep-alive comments for ever, never the response), `oversized-sse` (the
//! response event is 17 MiB), `wrong-content-type` (a request's answer is text/plain), `no-jsonrpc`
//! (a request's response lacks `"jsonrpc": "2.0"`), `origin-400` (a foreign Origin refused with
//! 400, not 403), `get-404` (GET answered 404), `get-json` (GET answered 200 application/json),
//! `get-silent` (GET never answered, not even a head), `no-priming` (SSE streams open with the
//! response), `priming-no-id` (the first event has empty data but no ID), `poll-lost` (polls as
//! `--poll` does, but the resuming GET gets 405: the response is lost), `parse-error-text` (a
//! body that is no JSON refused 400 with a text body, no JSON-RPC error).

use std::collections::HashSet;
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use hyper::body::{Frame, Incoming};
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::sync::mpsc;

/// The defects `--defect` knows.
const DEFECTS: [&str; 20] = [
    "no-origin-check",
    "no-jsonrpc",
    "session-id-space",
    "notify-200",
    "session-optional",
    "unknown-session-ok",
    "delete-keeps",
    "get-wrong",
    "any-version",
    "endless-sse",
    "oversized-sse",
    "wrong-content-type",
    "origin-400",
    "get-404",
    "get-json",
    "get-silent",
    "no-priming",
    "priming-no-id",
    "poll-lost",
    "parse-error-text",
];
/// The revisions whose `MCP-Protocol-Version` header is served.
const VERSIONS: [&str; 3] = ["2025-03-26", "2025-06-18", "2025-11-25"];
/// The stateless era's revision (`--modern`) and its envelope key.
const MODERN: &str = "2026-07-28";
const ENVELOPE: &str = "io.modelcontextprotocol/protocolVersion";

/// A body fed by a channel: whole answers are one chunk, streams as many as they take.
struct ChanBody(mpsc::Receiver<Bytes>);

impl hyper::body::Body for ChanBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        self.0.poll_recv(cx).map(|c| c.map(|b| Ok(Frame::data(b))))
    }
}

#[derive(Default)]
struct Sessions {
    live: HashSet<String>,
    ended: HashSet<String>,
    next: u64,
    /// Responses of polled streams, by the event ID a resuming GET names.
    pending: std::collections::HashMap<String, String>,
}

struct Server {
    defect: Option<String>,
    /// `--only-2025-06-18`: 2025-11-25 is not negotiated.
    old_only: bool,
    /// `--poll`: 2025-11-25 requests are answered on the resumed stream.
    poll: bool,
    /// `--get-stream`: GET opens a server stream that never ends.
    get_stream: bool,
    /// `--modern`: the stateless era is served too.
    modern: bool,
    port: u16,
    sessions: Mutex<Sessions>,
}

impl Server {
    fn broken(&self, name: &str) -> bool {
        self.defect.as_deref() == Some(name)
    }

    fn sessions(&self) -> std::sync::MutexGuard<'_, Sessions> {
        self.sessions
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

fn reply(status: u16, content_type: Option<&str>, chunks: Vec<Bytes>) -> Response<ChanBody> {
    let (tx, rx) = mpsc::channel(chunks.len().max(1));
    for c in chunks {
        let _ = tx.try_send(c);
    }
    let mut r = Response::builder().status(status);
    if let Some(ct) = content_type {
        r = r.header("content-type", ct);
    }
    r.body(ChanBody(rx))
        .unwrap_or_else(|_| Response::new(ChanBody(mpsc::channel(1).1)))
}

fn status(code: u16) -> Response<ChanBody> {
    reply(code, None, Vec::new())
}

/// An SSE stream that never ends: a keep-alive comment every 50 ms while the client listens.
fn endless() -> Response<ChanBody> {
    let (tx, rx) = mpsc::channel(4);
    tokio::spawn(async move {
        while tx
            .send(Bytes::from_static(b": keep-alive\n\n"))
            .await
            .is_ok()
        {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    });
    Response::builder()
        .status(200)
        .header("content-type", "text/event-stream")
        .body(ChanBody(rx))
        .unwrap_or_else(|_| Response::new(ChanBody(mpsc::channel(1).1)))
}

fn error(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// A JSON-RPC error as the whole answer to a POST the transport cannot take (400).
fn refuse(code: i64, message: &str) -> Response<ChanBody> {
    let body = error(&Value::Null, code, message).to_string();
    reply(400, Some("application/json"), vec![Bytes::from(body)])
}

/// A POST of the stateless era (`--modern`, header `MCP-Protocol-Version: 2026-07-28`): served
/// on its own when the body's envelope names the same revision, else 400 HeaderMismatch
/// (2026-07-28 streamable-http: "If the values do not match, the server MUST reject the request
/// with 400 Bad Request and a HeaderMismatch JSON-RPC error").
fn modern(msg: &Value) -> Response<ChanBody> {
    let Some(id) = msg.get("id").filter(|_| msg.get("method").is_some()) else {
        return status(202);
    };
    if enveloped(msg) != Some(MODERN) {
        return header_mismatch(id);
    }
    let response = match msg.get("method").and_then(Value::as_str) {
        Some("server/discover") => json!({"jsonrpc": "2.0", "id": id, "result": {
            "supportedVersions": ["2025-06-18", "2025-11-25", MODERN],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "http-toy-server", "version": "0.1.0"},
            "resultType": "complete", "cacheScope": "public", "ttlMs": 0}}),
        _ => answer(id, msg),
    };
    reply(
        200,
        Some("application/json"),
        vec![Bytes::from(response.to_string())],
    )
}

/// 400 with a HeaderMismatch error (`-32020`) under the request's id.
fn header_mismatch(id: &Value) -> Response<ChanBody> {
    let body = error(
        id,
        -32020,
        "HeaderMismatch: the body's protocolVersion is not the header's",
    );
    reply(
        400,
        Some("application/json"),
        vec![Bytes::from(body.to_string())],
    )
}

/// The revision a request's envelope names, if it has one.
fn enveloped(msg: &Value) -> Option<&str> {
    msg.pointer("/params/_meta")
        .and_then(|m| m.get(ENVELOPE))
        .and_then(Value::as_str)
}

/// The answer to the request `msg` (id `id`): invalid ones are `-32600` under their id.
fn answer(id: &Value, msg: &Value) -> Value {
    let params = msg.get("params");
    if msg.get("jsonrpc") != Some(&json!("2.0"))
        || params.is_some_and(|p| !p.is_object() && !p.is_array())
    {
        return error(id, -32600, "invalid request");
    }
    let Some(method) = msg.get("method").and_then(Value::as_str) else {
        return error(id, -32600, "invalid request: method is not a string");
    };
    match method {
        "ping" => json!({"jsonrpc": "2.0", "id": id, "result": {}}),
        "tools/list" if params.and_then(|p| p.get("cursor")).is_some() => {
            error(id, -32602, "invalid cursor")
        }
        "tools/list" => json!({"jsonrpc": "2.0", "id": id, "result": {"tools": []}}),
        "tools/call" => error(id, -32602, "unknown tool"),
        _ => error(id, -32601, "method not found"),
    }
}

async fn handle(server: Arc<Server>, req: Request<Incoming>) -> Response<ChanBody> {
    use http_body_util::BodyExt;
    let header = |n: &str| {
        req.headers()
            .get(n)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    // DNS rebinding: only a page of this very server may call it.
    if let Some(origin) = header("origin") {
        let own = [
            format!("http://127.0.0.1:{}", server.port),
            format!("http://localhost:{}", server.port),
        ];
        if !own.contains(&origin) && !server.broken("no-origin-check") {
            return status(if server.broken("origin-400") {
                400
            } else {
                403
            });
        }
    }
    if let Some(v) = header("mcp-protocol-version")
        && !VERSIONS.contains(&v.as_str())
        && !(server.modern && v == MODERN)
        && !server.broken("any-version")
    {
        return status(400);
    }
    let session = header("mcp-session-id");
    let version = header("mcp-protocol-version");
    let method = req.method().clone();
    if method == hyper::Method::GET {
        // Resumption of a polled stream (2025-11-25): the response it held, then the end.
        if let (Some(last), Some(id)) = (header("last-event-id"), &session)
            && !server.broken("poll-lost")
        {
            let mut s = server.sessions();
            if s.live.contains(id)
                && let Some(response) = s.pending.remove(&last)
            {
                let event = format!("id: {last}-answer\ndata: {response}\n\n");
                return reply(200, Some("text/event-stream"), vec![Bytes::from(event)]);
            }
        }
        return match server.defect.as_deref() {
            Some("get-wrong") => reply(200, Some("text/plain"), vec![Bytes::from_static(b"hello")]),
            Some("get-404") => status(404),
            Some("get-json") => reply(
                200,
                Some("application/json"),
                vec![Bytes::from_static(b"{}")],
            ),
            Some("get-silent") => std::future::pending().await,
            _ if server.get_stream => endless(),
            _ => status(405),
        };
    }
    if method == hyper::Method::DELETE {
        let Some(id) = session else {
            return status(400);
        };
        let mut s = server.sessions();
        if !s.live.contains(&id) {
            return status(404);
        }
        if !server.broken("delete-keeps") {
            s.live.remove(&id);
            s.ended.insert(id);
        }
        return status(200);
    }
    if method != hyper::Method::POST {
        return status(405);
    }
    let Ok(body) = req.into_body().collect().await else {
        return status(400);
    };
    let Ok(msg) = serde_json::from_slice::<Value>(&body.to_bytes()) else {
        if server.broken("parse-error-text") {
            let text = Bytes::from_static(b"Bad Request: the body is not JSON");
            return reply(400, Some("text/plain"), vec![text]);
        }
        return refuse(-32700, "parse error");
    };
    if !msg.is_object() {
        // Scalars, empty arrays, and batches (which 2025-06-18 removed).
        return refuse(-32600, "invalid request: not one request object");
    }
    if server.modern {
        if version.as_deref() == Some(MODERN) {
            return modern(&msg);
        }
        if let Some(id) = msg.get("id")
            && enveloped(&msg).is_some()
        {
            return header_mismatch(id);
        }
    }
    let name = msg.get("method").and_then(Value::as_str).unwrap_or("");
    if name == "initialize" {
        let id = {
            let mut s = server.sessions();
            s.next += 1;
            let id = if server.broken("session-id-space") {
                format!("toy session {}", s.next)
            } else {
                format!("toy-session-{}", s.next)
            };
            s.live.insert(id.clone());
            id
        };
        let proposed = msg
            .pointer("/params/protocolVersion")
            .and_then(Value::as_str);
        let version = match proposed {
            Some("2025-11-25") if !server.old_only => "2025-11-25",
            _ => "2025-06-18",
        };
        let result = json!({"jsonrpc": "2.0", "id": msg.get("id").cloned().unwrap_or(Value::Null),
            "result": {"protocolVersion": version, "capabilities": {"tools": {}},
                       "serverInfo": {"name": "http-toy-server", "version": "0.1.0"}}});
        let mut r = reply(
            200,
            Some("application/json"),
            vec![Bytes::from(result.to_string())],
        );
        if let Ok(v) = hyper::header::HeaderValue::from_str(&id) {
            r.headers_mut().insert("mcp-session-id", v);
        }
        return r;
    }
    match &session {
        None if !server.broken("session-optional") => return status(400),
        None => {}
        Some(id) => {
            let s = server.sessions();
            let never_issued = !s.live.contains(id) && !s.ended.contains(id);
            let served =
                s.live.contains(id) || (never_issued && server.broken("unknown-session-ok"));
            if !served {
                return status(404);
            }
        }
    }
    if msg.get("method").is_some() && msg.get("id").is_some_and(Value::is_null) {
        return refuse(-32600, "invalid request: id null");
    }
    let Some(id) = msg.get("id").filter(|_| msg.get("method").is_some()) else {
        // A notification or a response.
        return if server.broken("notify-200") {
            reply(
                200,
                Some("application/json"),
                vec![Bytes::from_static(b"{}")],
            )
        } else {
            status(202)
        };
    };
    let mut response = answer(id, &msg);
    if server.broken("no-jsonrpc")
        && let Some(o) = response.as_object_mut()
    {
        o.remove("jsonrpc");
    }
    let response = response.to_string();
    if server.broken("endless-sse") {
        return endless();
    }
    if server.broken("wrong-content-type") {
        return reply(200, Some("text/plain"), vec![Bytes::from(response)]);
    }
    let polls = server.poll || server.broken("poll-lost");
    if polls
        && version.as_deref() == Some("2025-11-25")
        && let Some(id) = &session
    {
        // MCP 2025-11-25: after an event with an ID the server MAY close the connection; the
        // client resumes with GET and Last-Event-ID after `retry` milliseconds.
        let event_id = {
            let mut s = server.sessions();
            s.next += 1;
            let event_id = format!("{id}-event-{}", s.next);
            s.pending.insert(event_id.clone(), response);
            event_id
        };
        let priming = format!("id: {event_id}\nretry: 10\ndata:\n\n");
        return reply(200, Some("text/event-stream"), vec![Bytes::from(priming)]);
    }
    let event = if server.broken("oversized-sse") {
        let pad = " ".repeat(17 * 1024 * 1024);
        format!("data: {pad}{response}\n\n")
    } else {
        format!("data: {response}\n\n")
    };
    // MCP 2025-11-25 (Streamable HTTP): an event ID and empty data prime the client to resume.
    let chunks = match server.defect.as_deref() {
        Some("no-priming") => vec![Bytes::from(event)],
        Some("priming-no-id") => vec![Bytes::from_static(b"data:\n\n"), Bytes::from(event)],
        _ => vec![Bytes::from_static(b"id: 1\ndata:\n\n"), Bytes::from(event)],
    };
    reply(200, Some("text/event-stream"), chunks)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut flag = |name: &str| {
        let found = args.iter().position(|a| a == name);
        found.map(|i| args.remove(i)).is_some()
    };
    let old_only = flag("--only-2025-06-18");
    let poll = flag("--poll");
    let get_stream = flag("--get-stream");
    let modern = flag("--modern");
    let defect = match args.as_slice() {
        [] => None,
        [flag, name] if flag == "--defect" && DEFECTS.contains(&name.as_str()) => {
            Some(name.clone())
        }
        _ => {
            eprintln!(
                "usage: http_toy_server [--only-2025-06-18] [--poll] [--get-stream] [--modern] [--defect {}]",
                DEFECTS.join("|")
            );
            std::process::exit(2);
        }
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let port = listener.local_addr()?.port();
    println!("http://127.0.0.1:{port}/mcp");
    let server = Arc::new(Server {
        defect,
        old_only,
        poll,
        get_stream,
        modern,
        port,
        sessions: Mutex::default(),
    });
    loop {
        let (stream, _) = listener.accept().await?;
        let server = server.clone();
        tokio::spawn(async move {
            let svc = hyper::service::service_fn(move |req| {
                let server = server.clone();
                async move { Ok::<_, Infallible>(handle(server, req).await) }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), svc)
                .await;
        });
    }
}
