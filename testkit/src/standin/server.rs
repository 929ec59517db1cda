//! The HTTP side of the stand-in: hyper 1 http/1 connections on a tokio listener, routing, the
//! request log, and the event-stream body with its per-event delays.

use std::convert::Infallible;
use std::fs::File;
use std::io::Write;
use std::pin::Pin;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body_util::{BodyExt, Limited};
use hyper::body::{Body, Frame, Incoming, SizeHint};
use hyper::header::{CACHE_CONTROL, CONTENT_TYPE, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::record::{RECORDED_HEADERS, RecordedRequest, RequestKind, StreamOutcome};
use super::reply::{self, Reply, new_id, sse_frame};
use super::scenario::{Scenario, ScenarioSettings};

/// Largest request body read; a bigger one is answered 413 (bounds: memory stays flat whatever
/// a client sends). The CLI's first request is about 50 KB.
pub(crate) const MAX_REQUEST_BODY: usize = 16 * 1024 * 1024;

/// Records past this many keep no body (`body: None`, `body_len` still set), so a long-lived
/// stand-in's memory stays bounded (a main-loop body is about 50 KB).
pub(crate) const MAX_RECORDED_BODIES: usize = 1000;

/// State shared by every connection of one stand-in.
pub(crate) struct Shared {
    pub(crate) default_scenario: Scenario,
    pub(crate) settings: ScenarioSettings,
    pub(crate) log: Mutex<Vec<RecordedRequest>>,
    pub(crate) changed: Condvar,
    pub(crate) log_file: Option<Mutex<File>>,
}

impl Shared {
    /// The log, even if a panicking holder poisoned it (the data is plain records).
    pub(crate) fn lock_log(&self) -> MutexGuard<'_, Vec<RecordedRequest>> {
        self.log
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn push(&self, record: RecordedRequest) -> usize {
        let mut log = self.lock_log();
        let seq = log.len();
        let body = if seq < MAX_RECORDED_BODIES {
            record.body
        } else {
            None
        };
        log.push(RecordedRequest {
            seq,
            body,
            ..record
        });
        drop(log);
        self.changed.notify_all();
        seq
    }

    /// Updates the outcome of request `seq`; writes the record to the log file once final.
    fn set_outcome(&self, seq: usize, outcome: StreamOutcome) {
        let mut log = self.lock_log();
        let Some(record) = log.get_mut(seq) else {
            return;
        };
        record.outcome = outcome;
        let line = match outcome {
            StreamOutcome::InProgress { .. } => None,
            _ => serde_json::to_string(record).ok(),
        };
        drop(log);
        self.changed.notify_all();
        if let (Some(line), Some(file)) = (line, &self.log_file) {
            let mut file = file.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            // The log file is a convenience for maintainers; a failed write must not break a run.
            let _ = writeln!(file, "{line}");
        }
    }
}

/// The response body: a complete buffer, or server-sent events arriving through a channel.
pub(crate) enum ReplyBody {
    Full(Option<Bytes>),
    Events(mpsc::Receiver<Bytes>),
}

impl Body for ReplyBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        match self.get_mut() {
            ReplyBody::Full(bytes) => Poll::Ready(bytes.take().map(|b| Ok(Frame::data(b)))),
            ReplyBody::Events(rx) => rx.poll_recv(cx).map(|b| b.map(|b| Ok(Frame::data(b)))),
        }
    }

    fn is_end_stream(&self) -> bool {
        matches!(self, ReplyBody::Full(None))
    }

    fn size_hint(&self) -> SizeHint {
        match self {
            ReplyBody::Full(Some(b)) => SizeHint::with_exact(b.len() as u64),
            ReplyBody::Full(None) => SizeHint::with_exact(0),
            ReplyBody::Events(_) => SizeHint::default(),
        }
    }
}

/// Answers one request and records it.
pub(crate) async fn handle(
    shared: Arc<Shared>,
    req: Request<Incoming>,
) -> Result<Response<ReplyBody>, Infallible> {
    let (parts, body) = req.into_parts();
    let headers = RECORDED_HEADERS
        .iter()
        .filter_map(|name| {
            let value = parts.headers.get(*name)?.to_str().ok()?;
            Some(((*name).to_owned(), value.to_owned()))
        })
        .collect();
    let path = parts.uri.path().to_owned();
    let kind = match (&parts.method, path.as_str()) {
        (&Method::POST, "/v1/messages") => RequestKind::Messages,
        (&Method::POST, "/v1/messages/count_tokens") => RequestKind::CountTokens,
        (&Method::HEAD | &Method::GET, "/api/hello") => RequestKind::Preconnect,
        _ => RequestKind::Other,
    };
    let (bytes, too_large) = match Limited::new(body, MAX_REQUEST_BODY).collect().await {
        Ok(collected) => (collected.to_bytes(), false),
        Err(_) => (Bytes::new(), true),
    };
    let json: Option<Value> = serde_json::from_slice(&bytes).ok();
    let mut record = RecordedRequest {
        seq: 0,
        method: parts.method.to_string(),
        path: path.clone(),
        query: parts.uri.query().map(str::to_owned),
        headers,
        body: json.clone(),
        body_len: bytes.len(),
        kind,
        scenario: None,
        status: 200,
        outcome: StreamOutcome::NotStreamed,
    };
    let planned = match (kind, json) {
        _ if too_large => json_error(413, "request_too_large", "mock: request body too large"),
        (RequestKind::Messages, Some(body)) => {
            let scenario = Scenario::from_messages(&body).unwrap_or(shared.default_scenario);
            record.scenario = Some(scenario.to_string());
            reply::plan(scenario, &shared.settings, &body)
        }
        (RequestKind::Messages | RequestKind::CountTokens, None) => {
            json_error(400, "invalid_request_error", "mock: body is not JSON")
        }
        // Observed: answering `{"input_tokens": 42}` satisfied the CLI (messages-api.md).
        (RequestKind::CountTokens, Some(_)) => Reply::Json {
            status: 200,
            body: json!({"input_tokens": 42}),
        },
        (RequestKind::Preconnect, _) => Reply::Json {
            status: 200,
            body: json!({}),
        },
        (RequestKind::Other, _) => reply::not_found(&path),
    };
    Ok(respond(&shared, record, planned))
}

fn json_error(status: u16, kind: &str, message: &str) -> Reply {
    Reply::Json {
        status,
        body: json!({"type": "error", "error": {"type": kind, "message": message},
                     "request_id": new_id("req_mock")}),
    }
}

fn respond(
    shared: &Arc<Shared>,
    mut record: RecordedRequest,
    planned: Reply,
) -> Response<ReplyBody> {
    match planned {
        Reply::Json { status, body } => {
            let request_id = body
                .get("request_id")
                .and_then(Value::as_str)
                .map_or_else(|| new_id("req_mock"), str::to_owned);
            record.status = status;
            let seq = shared.push(record);
            shared.set_outcome(seq, StreamOutcome::NotStreamed);
            let mut response = Response::new(ReplyBody::Full(Some(Bytes::from(body.to_string()))));
            *response.status_mut() =
                StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            set_header(&mut response, "content-type", "application/json");
            set_header(&mut response, "request-id", &request_id);
            response
        }
        Reply::Stream { events, delay } => {
            record.outcome = StreamOutcome::InProgress { events_sent: 0 };
            let seq = shared.push(record);
            // Capacity 1: a send fails soon after the connection (and so the body) is dropped,
            // which is how a client killed mid-stream shows up as `ClientGone`.
            let (tx, rx) = mpsc::channel::<Bytes>(1);
            let producer = Arc::clone(shared);
            tokio::spawn(async move {
                let mut sent = 0;
                for (name, data) in &events {
                    if !delay.is_zero() {
                        tokio::time::sleep(delay).await;
                    }
                    if tx.send(Bytes::from(sse_frame(name, data))).await.is_err() {
                        producer.set_outcome(seq, StreamOutcome::ClientGone { events_sent: sent });
                        return;
                    }
                    sent += 1;
                    producer.set_outcome(seq, StreamOutcome::InProgress { events_sent: sent });
                }
                producer.set_outcome(seq, StreamOutcome::Completed { events_sent: sent });
            });
            let mut response = Response::new(ReplyBody::Events(rx));
            response
                .headers_mut()
                .insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
            response
                .headers_mut()
                .insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
            set_header(&mut response, "request-id", &new_id("req_mock"));
            response
        }
    }
}

fn set_header(response: &mut Response<ReplyBody>, name: &'static str, value: &str) {
    if let Ok(value) = HeaderValue::from_str(value) {
        response.headers_mut().insert(name, value);
    }
}
