//! A raw Streamable HTTP client: one request per connection over hyper's HTTP/1.1 connection
//! API, so every header sent is the one the case set (no pool, no redirects, no default
//! `Accept`, a `Host` of the case's choosing), and every body read is bounded like stdio's: a
//! JSON body or one SSE event over [`MAX_SERVER_LINE`] is reported, never held; an SSE stream
//! that never ends is cut at the case's [`Deadline`] and reported as such.
//!
//! Every exchange is recorded in the case's [`Transcript`]: the request line and the headers
//! that matter to the transport as a note, each JSON-RPC message as a `c2s` / `s2c` row (one per
//! SSE event), as the stdio client records lines.

mod sse;
pub mod target;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use serde_json::Value;
use tokio::net::TcpStream;

use crate::core::bounds::MAX_SERVER_LINE;
use crate::core::deadline::Deadline;
use crate::core::transcript::{Transcript, clip_to};
pub use sse::{SseDecoder, SseError, SseEvent};
pub use target::{HttpTarget, TargetError};

/// The `Accept` every POST of a JSON-RPC message carries (both forms a server may answer in).
pub const ACCEPT_BOTH: &str = "application/json, text/event-stream";
/// SSE events kept per response; later ones are counted only (the bound on a flooding stream,
/// with [`MAX_SERVER_LINE`] on each event).
pub const MAX_SSE_EVENTS: usize = 1024;
/// Bytes kept of a body that is neither JSON nor SSE (an error page, say).
const MAX_OTHER_BODY: usize = 4096;
/// Headers of a response shown in the transcript note (the ones the transport defines).
const SHOWN_HEADERS: [&str; 4] = [
    "content-type",
    "mcp-session-id",
    "mcp-protocol-version",
    "allow",
];

/// Trouble talking to an HTTP server (a finding of the transport is no error: see [`Body`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HttpError {
    /// No connection could be made.
    #[error("cannot connect to {authority}: {source}")]
    Connect {
        /// `host:port`.
        authority: String,
        /// Why.
        source: std::io::Error,
    },
    /// The HTTP exchange itself failed (a malformed response, a reset).
    #[error("HTTP exchange with {authority} failed: {reason}")]
    Protocol {
        /// `host:port`.
        authority: String,
        /// hyper's account.
        reason: String,
    },
    /// The request could not be built (a header value the case set is not a valid one).
    #[error("cannot build the request: {0}")]
    Build(String),
    /// No response head (or no whole JSON body) before the case's deadline.
    #[error("no HTTP response to {what} within {ms} ms")]
    Timeout {
        /// The request (`POST initialize`).
        what: String,
        /// How long it waited.
        ms: u64,
    },
}

/// What [`HttpClient::send_streaming`] hands on while a response is still being read: the
/// head first, then each JSON-RPC message as it arrives (a JSON body whole, an SSE event's
/// data), so a connection built on it sees messages when the server sends them.
#[derive(Debug)]
pub enum Piece {
    /// The status and the headers (names lowercase).
    Head {
        /// The status code.
        status: u16,
        /// The headers.
        headers: Vec<(String, String)>,
    },
    /// One message's bytes (not necessarily JSON: the receiver grades that).
    Message(Vec<u8>),
}

/// When to stop reading a response body.
#[derive(Debug, Clone, PartialEq)]
pub enum Stop {
    /// At the JSON-RPC response to this id (an SSE stream may go on; the runner stops there).
    AtResponse(Value),
    /// At the end of the body (or the deadline, for a stream).
    AtEnd,
    /// At the response head: the body is not read at all (a GET's server stream).
    AtHead,
}

/// One HTTP request as the case wants it sent, byte for byte in its headers.
#[derive(Debug, Clone)]
pub struct HttpRequest {
    /// `POST`, `GET`, `DELETE`.
    pub method: hyper::Method,
    /// Headers in order; a `Host` here replaces the target's.
    pub headers: Vec<(String, String)>,
    /// The body (none for GET and DELETE).
    pub body: Option<Vec<u8>>,
    /// When to stop reading the answer.
    pub stop: Stop,
}

impl HttpRequest {
    /// A POST of one JSON-RPC message with [`ACCEPT_BOTH`] and a JSON content type, read until
    /// the response to its id (a request) or the end of the body (anything else).
    #[must_use]
    pub fn post(message: &Value) -> Self {
        Self::post_bytes(serde_json::to_vec(message).unwrap_or_default())
    }

    /// [`HttpRequest::post`] of a body as the case wrote it, byte for byte (which need not be
    /// JSON, nor one message): read until the response to its id when it is one request.
    #[must_use]
    pub fn post_bytes(body: Vec<u8>) -> Self {
        let message = serde_json::from_slice::<Value>(&body).ok();
        let stop = match message.as_ref().map(|m| (m.get("method"), m.get("id"))) {
            Some((Some(_), Some(id))) => Stop::AtResponse(id.clone()),
            _ => Stop::AtEnd,
        };
        Self {
            method: hyper::Method::POST,
            headers: vec![
                ("content-type".into(), "application/json".into()),
                ("accept".into(), ACCEPT_BOTH.into()),
            ],
            body: Some(body),
            stop,
        }
    }

    /// A bodiless request (`GET`, `DELETE`) read as `stop` says.
    #[must_use]
    pub fn bodiless(method: hyper::Method, stop: Stop) -> Self {
        Self {
            method,
            headers: Vec::new(),
            body: None,
            stop,
        }
    }

    /// Adds (or replaces, by name) a header.
    #[must_use]
    pub fn header(mut self, name: &str, value: impl Into<String>) -> Self {
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self.headers.push((name.to_owned(), value.into()));
        self
    }

    /// Removes a header by name.
    #[must_use]
    pub fn without(mut self, name: &str) -> Self {
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self
    }
}

/// How an SSE body ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SseEnd {
    /// The server ended the body.
    Closed,
    /// The response the request waited for arrived; the runner stopped reading there.
    Answered,
    /// The case's deadline came first: the stream never ended (or never answered).
    Deadline,
    /// The stream broke a bound or the format.
    Broken(SseError),
    /// The connection failed mid-stream.
    Failed(String),
}

/// A response body as read, within the bounds.
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    /// Not read ([`Stop::AtHead`]).
    Unread,
    /// No bytes at all.
    Empty,
    /// `application/json`: its bytes and, when they are JSON, the value.
    Json {
        /// The bytes (at most [`MAX_SERVER_LINE`]).
        raw: Vec<u8>,
        /// The parsed value.
        value: Option<Value>,
    },
    /// `text/event-stream`: the events read (at most [`MAX_SSE_EVENTS`]) and how it ended.
    Sse {
        /// The events kept.
        events: Vec<SseEvent>,
        /// Events read past [`MAX_SSE_EVENTS`], counted only.
        more: u64,
        /// How the stream ended.
        end: SseEnd,
    },
    /// Another content type (or none): its first bytes.
    Other {
        /// The first `MAX_OTHER_BODY` bytes.
        head: Vec<u8>,
        /// All the bytes read.
        len: usize,
    },
    /// A JSON or other body over [`MAX_SERVER_LINE`]: the runner stopped reading.
    TooLarge {
        /// Bytes read when it stopped.
        seen: usize,
    },
}

impl Body {
    /// The JSON-RPC messages of the body, in order: the JSON value, or each SSE event's data
    /// that parses as JSON (events with empty data, like a priming event, are no message).
    #[must_use]
    pub fn messages(&self) -> Vec<Value> {
        match self {
            Self::Json { value: Some(v), .. } => vec![v.clone()],
            Self::Sse { events, .. } => events
                .iter()
                .filter(|e| !e.data.is_empty())
                .filter_map(|e| serde_json::from_str(&e.data).ok())
                .collect(),
            _ => Vec::new(),
        }
    }
}

/// A response: status, headers (lowercase names, in order) and the body as read.
#[derive(Debug, Clone)]
pub struct HttpResponse {
    /// The status code.
    pub status: u16,
    /// Headers, names lowercase.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Body,
}

impl HttpResponse {
    /// The first value of header `name` (case-insensitive).
    #[must_use]
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The media type of the body (`Content-Type` without parameters, lowercase).
    #[must_use]
    pub fn media_type(&self) -> Option<String> {
        self.header("content-type").map(|v| {
            v.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        })
    }

    /// The response in a finding's words: status, content type, and what the body held.
    #[must_use]
    pub fn shown(&self) -> String {
        let ct = self.header("content-type").unwrap_or("no Content-Type");
        let body = match &self.body {
            Body::Unread => "body not read".to_owned(),
            Body::Empty => "no body".to_owned(),
            Body::Json { raw, .. } => show(raw),
            Body::Other { head, len } => format!("{len} bytes: {}", show(head)),
            Body::TooLarge { seen } => {
                format!("a body over the runner's {MAX_SERVER_LINE} byte bound ({seen} bytes read)")
            }
            Body::Sse { events, more, end } => {
                let how = match end {
                    SseEnd::Closed => "closed".to_owned(),
                    SseEnd::Answered => "answered".to_owned(),
                    SseEnd::Deadline => "still open at the case's deadline".to_owned(),
                    SseEnd::Broken(e) => e.to_string(),
                    SseEnd::Failed(e) => format!("failed: {e}"),
                };
                format!(
                    "an SSE stream of {} events ({how})",
                    events.len() as u64 + more
                )
            }
        };
        format!("HTTP {} ({ct}): {body}", self.status)
    }

    /// The response to `id` among the body's messages.
    #[must_use]
    pub fn response_to(&self, id: &Value) -> Option<Value> {
        self.body.messages().into_iter().find(|m| {
            m.get("id") == Some(id) && (m.get("result").is_some() || m.get("error").is_some())
        })
    }
}

/// Aborts the connection task when the exchange is done (an endless stream's connection is
/// closed, not left to the server).
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// A client of one MCP endpoint, recording into a case's transcript under its deadline.
#[derive(Debug, Clone)]
pub struct HttpClient {
    target: HttpTarget,
    transcript: Transcript,
    deadline: Deadline,
}

impl HttpClient {
    /// A client of `target`; every wait ends at `deadline`.
    #[must_use]
    pub fn new(target: HttpTarget, transcript: Transcript, deadline: Deadline) -> Self {
        Self {
            target,
            transcript,
            deadline,
        }
    }

    /// The endpoint.
    #[must_use]
    pub fn target(&self) -> &HttpTarget {
        &self.target
    }

    /// The case's transcript.
    #[must_use]
    pub fn transcript(&self) -> &Transcript {
        &self.transcript
    }

    /// When the case's waits end.
    #[must_use]
    pub fn deadline(&self) -> std::time::Instant {
        self.deadline.get()
    }

    /// Sends `req` on a fresh connection and reads the answer as `req.stop` says, within the
    /// deadline and the body bounds.
    pub async fn send(&self, req: HttpRequest) -> Result<HttpResponse, HttpError> {
        self.exchange(req, None).await
    }

    /// [`HttpClient::send`] handing the head and each message to `pieces` as they arrive
    /// (waiting when the receiver is behind: backpressure on the server, not growth). The
    /// messages are the receiver's to record: the transcript gets only this client's notes
    /// (request line, status, how a stream ended) and bodies that are no messages.
    pub async fn send_streaming(
        &self,
        req: HttpRequest,
        pieces: &tokio::sync::mpsc::Sender<Piece>,
    ) -> Result<HttpResponse, HttpError> {
        self.exchange(req, Some(pieces)).await
    }

    async fn exchange(
        &self,
        req: HttpRequest,
        pieces: Option<&tokio::sync::mpsc::Sender<Piece>>,
    ) -> Result<HttpResponse, HttpError> {
        let started = std::time::Instant::now();
        let what = describe(&req);
        let deadline = tokio::time::Instant::from_std(self.deadline.get());
        let timeout = || HttpError::Timeout {
            what: what.clone(),
            ms: elapsed_ms(started),
        };
        self.record_request(&req, pieces.is_none());
        let head = tokio::time::timeout_at(deadline, self.head(&req)).await;
        let (parts, incoming, conn) = head.map_err(|_| timeout())??;
        let mut response = HttpResponse {
            status: parts.status.as_u16(),
            headers: parts
                .headers
                .iter()
                .map(|(n, v)| {
                    (
                        n.as_str().to_owned(),
                        String::from_utf8_lossy(v.as_bytes()).into_owned(),
                    )
                })
                .collect(),
            body: Body::Unread,
        };
        self.record_head(&response);
        if let Some(p) = pieces {
            let head = Piece::Head {
                status: response.status,
                headers: response.headers.clone(),
            };
            let _ = p.send(head).await;
        }
        if req.stop != Stop::AtHead {
            let sse = response.media_type().as_deref() == Some("text/event-stream");
            response.body = if sse {
                self.read_sse(incoming, &req.stop, deadline, pieces).await
            } else {
                let body = tokio::time::timeout_at(deadline, read_bounded(incoming))
                    .await
                    .map_err(|_| timeout())?;
                let json = response.media_type().as_deref() == Some("application/json");
                let body = self.finish_plain(body?, json, pieces.is_none());
                if let (Some(p), Body::Json { raw, .. }) = (pieces, &body) {
                    let _ = p.send(Piece::Message(raw.clone())).await;
                }
                body
            };
        }
        drop(conn);
        Ok(response)
    }

    /// Connects, sends, and waits for the response head.
    async fn head(
        &self,
        req: &HttpRequest,
    ) -> Result<(hyper::http::response::Parts, Incoming, AbortOnDrop), HttpError> {
        let authority = self.target.authority();
        let stream = TcpStream::connect(&authority)
            .await
            .map_err(|source| HttpError::Connect {
                authority: authority.clone(),
                source,
            })?;
        let protocol = |e: hyper::Error| HttpError::Protocol {
            authority: authority.clone(),
            reason: e.to_string(),
        };
        let (mut sender, conn) =
            hyper::client::conn::http1::handshake::<_, Full<Bytes>>(TokioIo::new(stream))
                .await
                .map_err(protocol)?;
        let conn = AbortOnDrop(tokio::spawn(async move {
            let _ = conn.await;
        }));
        let mut builder = hyper::Request::builder()
            .method(req.method.clone())
            .uri(self.target.path());
        if !req
            .headers
            .iter()
            .any(|(n, _)| n.eq_ignore_ascii_case("host"))
        {
            builder = builder.header("host", &authority);
        }
        for (name, value) in &req.headers {
            builder = builder.header(name.as_str(), value.as_str());
        }
        let body = Full::new(Bytes::from(req.body.clone().unwrap_or_default()));
        let request = builder
            .body(body)
            .map_err(|e| HttpError::Build(e.to_string()))?;
        let (parts, incoming) = sender
            .send_request(request)
            .await
            .map_err(protocol)?
            .into_parts();
        Ok((parts, incoming, conn))
    }

    /// Reads an SSE body until `stop`, the end, a broken bound, or the deadline.
    async fn read_sse(
        &self,
        mut incoming: Incoming,
        stop: &Stop,
        deadline: tokio::time::Instant,
        pieces: Option<&tokio::sync::mpsc::Sender<Piece>>,
    ) -> Body {
        let mut decoder = SseDecoder::new(MAX_SERVER_LINE);
        let mut events = Vec::new();
        let mut more = 0u64;
        let mut fresh = Vec::new();
        let end = loop {
            let frame = match tokio::time::timeout_at(deadline, incoming.frame()).await {
                Err(_) => break SseEnd::Deadline,
                Ok(None) => break SseEnd::Closed,
                Ok(Some(Err(e))) => break SseEnd::Failed(e.to_string()),
                Ok(Some(Ok(frame))) => frame,
            };
            let Ok(data) = frame.into_data() else {
                continue;
            };
            if let Err(e) = decoder.feed(&data, &mut fresh) {
                break SseEnd::Broken(e);
            }
            let mut answered = false;
            for event in fresh.drain(..) {
                match pieces {
                    Some(p) if !event.data.is_empty() => {
                        let _ = p
                            .send(Piece::Message(event.data.clone().into_bytes()))
                            .await;
                    }
                    _ => self.record_event(&event),
                }
                if let Stop::AtResponse(id) = stop {
                    answered |= serde_json::from_str::<Value>(&event.data).is_ok_and(|m| {
                        m.get("id") == Some(id)
                            && (m.get("result").is_some() || m.get("error").is_some())
                    });
                }
                if events.len() < MAX_SSE_EVENTS {
                    events.push(event);
                } else {
                    more += 1;
                }
            }
            if answered {
                break SseEnd::Answered;
            }
        };
        match &end {
            SseEnd::Deadline => self
                .transcript
                .note("the SSE stream was still open at the case's deadline; the runner closed it"),
            SseEnd::Broken(e) => self
                .transcript
                .note(&format!("the runner stopped reading: {e}")),
            SseEnd::Failed(e) => self.transcript.note(&format!("the SSE stream failed: {e}")),
            SseEnd::Closed | SseEnd::Answered => {}
        }
        Body::Sse { events, more, end }
    }

    /// A non-SSE body, read whole: recorded (a JSON body only when `rows`: else it is a
    /// message its receiver records) and, when JSON, parsed.
    fn finish_plain(&self, body: Result<Vec<u8>, usize>, json: bool, rows: bool) -> Body {
        let raw = match body {
            Err(seen) => {
                self.transcript.note(&format!(
                    "the runner stopped reading a body over its {MAX_SERVER_LINE} byte bound \
                     ({seen} bytes read)"
                ));
                return Body::TooLarge { seen };
            }
            Ok(raw) if raw.is_empty() => return Body::Empty,
            Ok(raw) => raw,
        };
        if rows || !json {
            self.transcript
                .record(self.transcript.peer().received(), &raw);
        }
        if json {
            let value = serde_json::from_slice(&raw).ok();
            Body::Json { raw, value }
        } else {
            let len = raw.len();
            let mut head = raw;
            head.truncate(MAX_OTHER_BODY);
            Body::Other { head, len }
        }
    }

    fn record_request(&self, req: &HttpRequest, rows: bool) {
        let shown: Vec<String> = req
            .headers
            .iter()
            .filter(|(n, _)| !n.eq_ignore_ascii_case("content-type"))
            .map(|(n, v)| format!("{n}: {v}"))
            .collect();
        self.transcript.note(&format!(
            "HTTP {} {} [{}]",
            req.method,
            self.target.path(),
            shown.join("; ")
        ));
        if let Some(body) = &req.body
            && rows
        {
            self.transcript.record(self.transcript.peer().sent(), body);
        }
    }

    fn record_head(&self, resp: &HttpResponse) {
        let shown: Vec<String> = SHOWN_HEADERS
            .iter()
            .filter_map(|n| resp.header(n).map(|v| format!("{n}: {v}")))
            .collect();
        self.transcript
            .note(&format!("HTTP {} [{}]", resp.status, shown.join("; ")));
    }

    fn record_event(&self, event: &SseEvent) {
        if event.data.is_empty() {
            let id = event.id.as_deref().unwrap_or("");
            self.transcript
                .note(&format!("SSE event with no data (id {id:?})"));
        } else {
            self.transcript
                .record(self.transcript.peer().received(), event.data.as_bytes());
        }
    }
}

/// Reads a whole body up to [`MAX_SERVER_LINE`] bytes; `Err(bytes read)` past it.
async fn read_bounded(mut incoming: Incoming) -> Result<Result<Vec<u8>, usize>, HttpError> {
    let mut out = Vec::new();
    while let Some(frame) = incoming.frame().await {
        let frame = frame.map_err(|e| HttpError::Protocol {
            authority: String::new(),
            reason: e.to_string(),
        })?;
        if let Ok(data) = frame.into_data() {
            if out.len() + data.len() > MAX_SERVER_LINE {
                return Ok(Err(out.len() + data.len()));
            }
            out.extend_from_slice(&data);
        }
    }
    Ok(Ok(out))
}

/// `POST initialize`, `GET`, `DELETE`: the request in a deadline's message.
fn describe(req: &HttpRequest) -> String {
    let method = req
        .body
        .as_deref()
        .and_then(|b| serde_json::from_slice::<Value>(b).ok())
        .and_then(|v| v.get("method").and_then(Value::as_str).map(str::to_owned));
    match method {
        Some(m) => format!("{} {m}", req.method),
        None => req.method.to_string(),
    }
}

/// How long ago `started` was, in whole milliseconds.
#[must_use]
pub fn elapsed_ms(started: std::time::Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// A note's clip of bytes a server sent (for a finding's text).
#[must_use]
pub fn show(bytes: &[u8]) -> String {
    clip_to(bytes, 200)
}

#[cfg(test)]
mod tests;
