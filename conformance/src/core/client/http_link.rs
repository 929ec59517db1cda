//! A [`super::Client`]'s Streamable HTTP link (HTTP-1): every message the case sends is one
//! POST to the endpoint, carrying the session's `Mcp-Session-Id` and `MCP-Protocol-Version`
//! once the server issued them; what comes back (a JSON body, or each SSE event's data as it
//! arrives) goes through the same path as a stdio server's stdout lines: the transcript, the
//! message grading, the cross-cutting watch, and the one frame queue the case reads with its
//! deadlines. So every case that is not about stdio runs unchanged over a session.
//!
//! Each POST is a task of its own, so a request waiting for a long answer never holds up the
//! next message (a `notifications/cancelled` for it, say). A message that is no request
//! (a notification, a response, bytes that are no JSON) is answered at once by the transport
//! (HTTP-3): the send waits for that head, so the server has taken it before the case's next
//! message goes out, as a stdio pipe keeps order.
//!
//! A link whose first message is in the 2026-07-28 envelope is of the stateless era: no session
//! is issued, and every POST carries the request metadata headers that revision requires,
//! mirrored from its body ([`super::request_metadata`]), so the server routes it to that era.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::Value;
use tokio::sync::{Semaphore, mpsc, oneshot};

use super::message::{Frame, Refusal, is_response_to};
use super::reader::{Incoming, Sink, push_line, send_frame};
use crate::core::http::{HttpClient, HttpError, HttpRequest, Piece, Stop};

/// Pieces of one response in flight between its reader and the frame queue.
const PIECES: usize = 16;

/// What the server issued for the session, learnt from its answers to `initialize`.
#[derive(Debug, Default)]
struct SessionState {
    /// The `Mcp-Session-Id` of the first response that carried one (HTTP-1).
    id: Option<String>,
    /// The revision of the first `InitializeResult` (sent as `MCP-Protocol-Version`).
    version: Option<String>,
    /// The stateless-era revision of the first enveloped request answered with a result before
    /// any `InitializeResult`: the link then sends the request metadata headers on every POST,
    /// enveloped or not. Until then only an enveloped message carries them, so a client that
    /// tried the era first and was refused falls back to `initialize` without them, as
    /// 2026-07-28 streamable-http "Backward Compatibility" has it.
    era: Option<String>,
    /// The runner's own trouble reaching the endpoint, last seen (for a closed connection).
    trouble: Option<String>,
    /// How the transport refused POSTs that carried no request to wait for (a bad line, a
    /// notification): `HTTP 400 (text/plain): …`, the latest [`MAX_REFUSALS`] not yet taken.
    refusals: Vec<String>,
}

/// How many refusals of POSTs without a request a link keeps until they are taken.
const MAX_REFUSALS: usize = 4;

/// The link: the endpoint's client and where its answers go.
pub(super) struct HttpLink {
    client: HttpClient,
    state: Arc<Mutex<SessionState>>,
    tx: mpsc::Sender<Option<Incoming>>,
    budget: Arc<Semaphore>,
    sink: Arc<Mutex<Sink>>,
    tasks: Vec<tokio::task::AbortHandle>,
}

impl std::fmt::Debug for HttpLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpLink")
            .field("endpoint", &self.client.target().url())
            .finish_non_exhaustive()
    }
}

impl Drop for HttpLink {
    /// A connection that is gone reads nothing more: an endless stream is closed, not left.
    /// Its session, when the server issued one, is ended with DELETE ("Clients that no longer
    /// need a particular session SHOULD send an HTTP DELETE", HTTP-5), best effort and off the
    /// case's transcript, so a run of many cases does not leave as many sessions open.
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
        let state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let (Some(id), Ok(runtime)) = (&state.id, tokio::runtime::Handle::try_current()) else {
            return;
        };
        let mut req =
            HttpRequest::bodiless(hyper::Method::DELETE, Stop::AtHead).header("mcp-session-id", id);
        if let Some(v) = &state.version {
            req = req.header("mcp-protocol-version", v);
        }
        let client = HttpClient::new(
            self.client.target().clone(),
            crate::core::transcript::Transcript::new(),
            super::handle::Deadline::at(std::time::Instant::now() + SESSION_END_WAIT),
        );
        runtime.spawn(async move {
            let _ = client.send(req).await;
        });
    }
}

/// How long ending a session at the connection's drop may take (DELETE's answer head).
const SESSION_END_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

impl HttpLink {
    /// A link whose answers go to `tx` (under `budget`, as a stdio reader's frames) through
    /// `sink`.
    pub(super) fn new(
        client: HttpClient,
        tx: mpsc::Sender<Option<Incoming>>,
        budget: Arc<Semaphore>,
        sink: Sink,
    ) -> Self {
        Self {
            client,
            state: Arc::default(),
            tx,
            budget,
            sink: Arc::new(Mutex::new(sink)),
            tasks: Vec::new(),
        }
    }

    /// What explains a connection the runner could not keep (no connection to the endpoint).
    pub(super) fn trouble(&self) -> String {
        let state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.trouble.as_ref().map_or_else(
            || " (the endpoint stopped answering)".to_owned(),
            |t| format!(" ({t})"),
        )
    }

    /// How the transport refused the POSTs without a request since the last call, oldest
    /// first: what a bad line's POST got instead of a JSON-RPC answer.
    pub(super) fn take_refusals(&self) -> Vec<String> {
        std::mem::take(
            &mut self
                .state
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .refusals,
        )
    }

    /// POSTs `body` (one message as the case wrote it, without the line's newline) with the
    /// session's headers; its answers reach the frame queue as they arrive.
    pub(super) async fn post(&mut self, body: &[u8]) {
        let mut req = HttpRequest::post_bytes(body.to_vec());
        let mut offered = None;
        {
            let state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(v) = &state.version {
                req = req.header("mcp-protocol-version", v);
            } else {
                let sent = serde_json::from_slice::<Value>(body).ok();
                if let Some((version, headers)) =
                    super::request_metadata::mirror(sent.as_ref(), state.era.as_deref())
                {
                    offered = Some(version);
                    for (name, value) in headers {
                        req = req.header(name, value);
                    }
                }
            }
            if let Some(id) = &state.id {
                req = req.header("mcp-session-id", id);
            }
        }
        let request = matches!(req.stop, Stop::AtResponse(_));
        let (head_tx, head_rx) = oneshot::channel();
        let exchange = Exchange {
            client: self.client.clone(),
            state: self.state.clone(),
            tx: self.tx.clone(),
            budget: self.budget.clone(),
            sink: self.sink.clone(),
            offered,
        };
        self.tasks.retain(|t| !t.is_finished());
        let task = tokio::spawn(exchange.run(req, head_tx));
        self.tasks.push(task.abort_handle());
        if !request {
            // Bounded: the exchange ends at the case's deadline at the latest.
            let _ = head_rx.await;
        }
    }
}

/// What a POST's answer is read for.
struct Expect {
    /// The id of the request it carries, when it is one.
    waited: Option<Value>,
    /// Whether it went out before the session, and is no `initialize`.
    sessionless: bool,
    /// The ids of the requests of a batch it carries (JSON text), when it is one.
    batch: Option<HashSet<String>>,
}

/// The ids (as JSON text) of the requests in `sent` when it is a batch holding any.
fn batch_ids(sent: &Value) -> Option<HashSet<String>> {
    let ids: HashSet<String> = sent
        .as_array()?
        .iter()
        .filter(|m| m.get("method").is_some())
        .filter_map(|m| m.get("id").filter(|id| !id.is_null()))
        .map(Value::to_string)
        .collect();
    (!ids.is_empty()).then_some(ids)
}

/// One POST and what it feeds.
struct Exchange {
    client: HttpClient,
    state: Arc<Mutex<SessionState>>,
    tx: mpsc::Sender<Option<Incoming>>,
    budget: Arc<Semaphore>,
    sink: Arc<Mutex<Sink>>,
    /// The stateless-era revision the POST's metadata headers named, when they were sent.
    offered: Option<String>,
}

impl Exchange {
    async fn run(self, req: HttpRequest, head: oneshot::Sender<()>) {
        let (ptx, prx) = mpsc::channel::<Piece>(PIECES);
        let client = self.client.clone();
        let waited = match &req.stop {
            Stop::AtResponse(id) => Some(id.clone()),
            _ => None,
        };
        let sent = req
            .body
            .as_deref()
            .and_then(|b| serde_json::from_slice::<Value>(b).ok());
        let sessionless = !req
            .headers
            .iter()
            .any(|(n, _)| n.eq_ignore_ascii_case("mcp-session-id"))
            && sent
                .as_ref()
                .is_some_and(|m| m.get("method").and_then(Value::as_str) != Some("initialize"));
        let expect = Expect {
            waited: waited.clone(),
            sessionless,
            batch: sent.as_ref().and_then(batch_ids),
        };
        let send = async move {
            let r = client.send_streaming(req, &ptx).await;
            drop(ptx);
            r
        };
        let transcript = self.client.transcript().clone();
        let tx = self.tx.clone();
        let state = self.state.clone();
        let (result, ()) = tokio::join!(send, self.forward(prx, head, &expect));
        match result {
            Ok(resp) => {
                if waited.is_none() && !(200..300).contains(&resp.status) {
                    let mut state = state.lock().unwrap_or_else(PoisonError::into_inner);
                    if state.refusals.len() == MAX_REFUSALS {
                        state.refusals.remove(0);
                    }
                    state.refusals.push(resp.shown());
                }
                if let Some(id) = waited
                    && resp.response_to(&id).is_none()
                {
                    transcript.note(&format!(
                        "HTTP {}: the answer to the POST carried no response to id {id}",
                        resp.status
                    ));
                    // The case's wait for it ends here, with the transport's answer.
                    let refusal = Refusal {
                        id,
                        status: resp.status,
                        said: resp.shown(),
                        sessionless,
                    };
                    let _ = send_frame(&tx, &self.budget, Frame::Refused(refusal), 1).await;
                }
            }
            Err(e) => {
                transcript.note(&format!("the POST failed: {e}"));
                let gone = matches!(e, HttpError::Connect { .. });
                state.lock().unwrap_or_else(PoisonError::into_inner).trouble = Some(e.to_string());
                if gone {
                    // No connection to the endpoint at all: the server is gone, as a closed
                    // stdout says on stdio.
                    let _ = tx.send(None).await;
                }
            }
        }
    }

    /// Feeds the pieces of the response to the frame queue: the head's session id first (so
    /// the case's next message carries it), then each message. When a request sent before the
    /// session (`sessionless`) gets an HTTP error status, only its own response reaches the
    /// case: an id-less error in such a body is the transport's refusal (HTTP-4), which
    /// [`Frame::Refused`] carries; the rest is recorded and watched all the same. The responses
    /// to a batch's requests, which an SSE stream may carry one event each (MCP 2025-03-26
    /// transports: "These responses MAY be batched"), reach the case as one batch answer when
    /// the stream ends, as stdio's one line would; the watch sees each as it came.
    async fn forward(
        &self,
        mut pieces: mpsc::Receiver<Piece>,
        head: oneshot::Sender<()>,
        expect: &Expect,
    ) {
        let waited = expect.waited.as_ref();
        let mut head = Some(head);
        let mut refused = false;
        let mut held = Vec::new();
        while let Some(piece) = pieces.recv().await {
            match piece {
                Piece::Head { status, headers } => {
                    refused = !(200..300).contains(&status);
                    if refused {
                        // The transport refused the POST before any JSON-RPC reading: an error
                        // under id null in its body answers a request whose id was not read.
                        let sink = self.sink.lock().unwrap_or_else(PoisonError::into_inner);
                        if let Some(o) = &sink.observer {
                            o.unread();
                        }
                    }
                    let issued = headers
                        .iter()
                        .find(|(n, _)| n.eq_ignore_ascii_case("mcp-session-id"))
                        .map(|(_, v)| v.clone());
                    if let Some(id) = issued {
                        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
                        state.id.get_or_insert(id);
                    }
                    if let Some(h) = head.take() {
                        let _ = h.send(());
                    }
                }
                Piece::Message(data) => {
                    let mut frames = Vec::new();
                    {
                        let mut sink = self.sink.lock().unwrap_or_else(PoisonError::into_inner);
                        push_line(&data, &mut frames, &mut sink);
                    }
                    for (frame, size) in frames {
                        if let Frame::Json(m) = &frame {
                            self.learn_version(m);
                        }
                        let answer = matches!((&frame, waited),
                            (Frame::Json(m), Some(id)) if is_response_to(m, id));
                        if let (true, Frame::Json(m)) = (answer, &frame) {
                            self.learn_era(m);
                        }
                        if refused && expect.sessionless && waited.is_some() && !answer {
                            continue;
                        }
                        if let (Frame::Json(m), Some(ids)) = (&frame, &expect.batch)
                            && m.get("method").is_none()
                            && m.get("id").is_some_and(|id| ids.contains(&id.to_string()))
                        {
                            held.push(m.clone());
                            continue;
                        }
                        if send_frame(&self.tx, &self.budget, frame, size)
                            .await
                            .is_err()
                        {
                            return;
                        }
                    }
                }
            }
        }
        if !held.is_empty() {
            self.client.transcript().note(&format!(
                "the {} responses to the batch's requests, each its own message, read as one \
                 batch answer",
                held.len()
            ));
            let _ = send_frame(&self.tx, &self.budget, Frame::Json(Value::Array(held)), 1).await;
        }
    }

    /// A result answering a POST sent in the stateless era makes the link that era's.
    fn learn_era(&self, m: &Value) {
        if let (Some(v), Some(_)) = (&self.offered, m.get("result").filter(|r| r.is_object())) {
            let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
            if state.version.is_none() {
                state.era.get_or_insert_with(|| v.clone());
            }
        }
    }

    /// The revision of the first `InitializeResult` becomes the session's
    /// `MCP-Protocol-Version` (HTTP-1), before the case sees that result.
    fn learn_version(&self, m: &Value) {
        let Some(result) = m.get("result") else {
            return;
        };
        if let (Some(v), Some(_)) = (
            result.get("protocolVersion").and_then(Value::as_str),
            result.get("capabilities").filter(|c| c.is_object()),
        ) {
            let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
            state.version.get_or_insert_with(|| v.to_owned());
        }
    }
}
