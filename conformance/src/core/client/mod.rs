//! A raw client of one server connection: over stdio it starts the server in its own process
//! group, can send anything (valid messages, raw bytes, a streamed 64 MiB line), reads bounded
//! frames with `mcp-wire`'s decoder, and records every line in the case's [`Transcript`]. Over
//! Streamable HTTP (a [`ServerSpec`] with an endpoint) the same client is a session of the
//! endpoint: each message sent is a POST, each message of an answer a frame (HTTP-1), so the
//! cases and the cross-cutting rules see one kind of connection. What only a process has (stdin
//! EOF, a streamed line, an exit) is [`ClientError::NotApplicable`] over HTTP.
//!
//! It never interprets more than it must: frames come back as parsed JSON or as the raw text of a
//! line that was not JSON (T1), and each case grades them itself.

use std::process::{ExitStatus, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::process::{ChildStdin, Command};
use tokio::sync::{Mutex, mpsc};

use crate::core::process;
use crate::core::transcript::{Peer, Transcript};
use crate::core::watch::Watcher;

pub(crate) mod handle;
mod http_link;
mod message;
pub(crate) mod reader;
mod request_metadata;
mod seen;

pub use handle::{Deadline, ProcHandle, ServerSpec};
use message::MAX_UNMATCHED;
pub use message::{
    ClientError, Frame, NOT_OVER_HTTP, Refusal, error_code, is_response_to, meanwhile,
    message_problem,
};
pub use reader::MAX_SERVER_LINE;
use reader::{
    Incoming, OversizedProbe, QUEUE_BYTES, Sink, StdoutProblems, read_stderr, read_stdout,
};
use seen::{MAX_SEEN, SEEN_BYTES, Seen};

/// Frames buffered between the reader task and the case before the reader waits.
const FRAME_QUEUE: usize = 4096;
/// How a client answers requests the peer sends it (ACP agents ask for permissions and files):
/// `Some(answer)` is sent at once, `None` leaves the request for the case to answer (or not).
/// Without one, [`reply_to_server_request`] answers.
#[derive(Clone)]
pub struct Responder(pub Arc<RespondFn>);

/// The function a [`Responder`] wraps: the peer's request in, the answer to send (if any) out.
pub type RespondFn = dyn Fn(&Value) -> Option<Value> + Send + Sync;

impl std::fmt::Debug for Responder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Responder")
    }
}

/// A connection to one server: a process it started (stdio), or a session of a Streamable HTTP
/// What a connection talks over: a child's stdin (with the handle its group is shut down by),
/// or a Streamable HTTP link.
enum Link {
    Stdio(ProcHandle, Option<ChildStdin>),
    Http(http_link::HttpLink),
}

/// endpoint.
#[derive(Debug)]
pub struct Client {
    proc: ProcHandle,
    stdin: Option<ChildStdin>,
    /// The Streamable HTTP link, for an endpoint (then there is no process and no stdin).
    http: Option<http_link::HttpLink>,
    frames: mpsc::Receiver<Option<Incoming>>,
    /// Frames read while waiting for something else, in arrival order.
    seen: Seen,
    closed: bool,
    transcript: Transcript,
    deadline: Deadline,
    next_id: i64,
    stdout_problems: Arc<std::sync::Mutex<StdoutProblems>>,
    /// The cross-cutting rules' view of this connection (none in unit tests).
    observer: Option<Watcher>,
    /// How long the server took to give its first answer (the handshake), when known: on a
    /// loaded machine a server's exit is slow in the same measure as its start.
    start_latency: Duration,
    /// Answers the peer's requests when set ([`Client::set_responder`]).
    responder: Option<Responder>,
}

impl Client {
    /// Starts `spec` in a new process group with piped stdio (or, for an endpoint, opens a
    /// connection to it: [`Client::connect`]). `deadline` bounds every wait.
    pub fn spawn(
        spec: &ServerSpec,
        transcript: Transcript,
        deadline: Deadline,
        observer: Option<Watcher>,
    ) -> Result<Self, ClientError> {
        if let Some(endpoint) = &spec.endpoint {
            return Ok(Self::connect(endpoint, transcript, deadline, observer));
        }
        let mut cmd = Command::new(&spec.program);
        cmd.args(&spec.args)
            .envs(spec.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            // A backstop only: the scheduler kills the whole group explicitly.
            .kill_on_drop(true);
        // C-SUP-5: the group is registered with the lifeline from the child, before it execs.
        let mut child =
            cmk_lifeline::spawn_registered(&mut cmd, Command::as_std_mut, Command::spawn).map_err(
                |source| ClientError::Spawn {
                    program: spec.program.to_string_lossy().into_owned(),
                    source,
                },
            )?;
        let pgid = child
            .id()
            .and_then(|p| i32::try_from(p).ok())
            .unwrap_or_default();
        process::register(pgid);
        transcript.note(&format!("started {}, pid {pgid}", transcript.peer().noun()));

        let stdin = child.stdin.take();
        let (tx, rx) = mpsc::channel(FRAME_QUEUE);
        let stdout_problems = Arc::new(std::sync::Mutex::new(StdoutProblems::default()));
        if let Some(stdout) = child.stdout.take() {
            tokio::spawn(read_stdout(
                stdout,
                tx,
                Sink {
                    transcript: transcript.clone(),
                    problems: stdout_problems.clone(),
                    observer: observer.clone(),
                    line: 0,
                    oversized: OversizedProbe::default(),
                },
                Arc::new(tokio::sync::Semaphore::new(QUEUE_BYTES)),
            ));
        }
        if let Some(stderr) = child.stderr.take() {
            tokio::spawn(read_stderr(stderr, transcript.clone()));
        }
        let proc = ProcHandle {
            pgid,
            child: Some(Arc::new(Mutex::new(child))),
        };
        let link = Link::Stdio(proc, stdin);
        Ok(Self::over(
            link,
            rx,
            transcript,
            deadline,
            stdout_problems,
            observer,
        ))
    }

    /// A fresh connection over `link`, whose frames arrive on `frames`: nothing sent yet.
    fn over(
        link: Link,
        frames: mpsc::Receiver<Option<Incoming>>,
        transcript: Transcript,
        deadline: Deadline,
        stdout_problems: Arc<std::sync::Mutex<StdoutProblems>>,
        observer: Option<Watcher>,
    ) -> Self {
        let (proc, stdin, http) = match link {
            Link::Stdio(proc, stdin) => (proc, stdin, None),
            Link::Http(link) => (ProcHandle::none(), None, Some(link)),
        };
        Self {
            proc,
            stdin,
            http,
            frames,
            seen: Seen::default(),
            closed: false,
            transcript,
            deadline,
            next_id: 1,
            stdout_problems,
            observer,
            start_latency: Duration::ZERO,
            responder: None,
        }
    }

    /// A connection to the Streamable HTTP endpoint `endpoint` (HTTP-1): nothing is sent yet;
    /// the session begins with the `initialize` the case sends, whose answer's
    /// `Mcp-Session-Id` and revision every later message carries.
    #[must_use]
    pub fn connect(
        endpoint: &crate::core::http::target::HttpTarget,
        transcript: Transcript,
        deadline: Deadline,
        observer: Option<Watcher>,
    ) -> Self {
        transcript.note(&format!(
            "connecting to the Streamable HTTP endpoint {}",
            endpoint.url()
        ));
        let (tx, rx) = mpsc::channel(FRAME_QUEUE);
        let stdout_problems = Arc::new(std::sync::Mutex::new(StdoutProblems::default()));
        let sink = Sink {
            transcript: transcript.clone(),
            problems: stdout_problems.clone(),
            observer: observer.clone(),
            line: 0,
            oversized: OversizedProbe::default(),
        };
        let client = crate::core::http::HttpClient::new(
            endpoint.clone(),
            transcript.clone(),
            deadline.clone(),
        );
        let link = http_link::HttpLink::new(
            client,
            tx,
            Arc::new(tokio::sync::Semaphore::new(QUEUE_BYTES)),
            sink,
        );
        Self::over(
            Link::Http(link),
            rx,
            transcript,
            deadline,
            stdout_problems,
            observer,
        )
    }

    /// Whether this is a Streamable HTTP connection (no process of the runner's).
    #[must_use]
    pub fn is_http(&self) -> bool {
        self.http.is_some()
    }

    /// Over Streamable HTTP, how the transport refused the POSTs that carried no request since
    /// the last call (`HTTP 400 (text/plain): …`, oldest first); always empty over stdio.
    pub fn take_transport_refusals(&mut self) -> Vec<String> {
        self.http
            .as_ref()
            .map(http_link::HttpLink::take_refusals)
            .unwrap_or_default()
    }

    /// Answers the peer's requests with `responder` from now on (instead of
    /// [`reply_to_server_request`]).
    pub fn set_responder(&mut self, responder: Responder) {
        self.responder = Some(responder);
    }

    /// Records how long the server took to give its first answer (see [`Client::start_latency`]).
    pub fn set_start_latency(&mut self, took: Duration) {
        self.start_latency = took;
    }

    /// How long the server took to give its first answer, zero when not measured. Waits for
    /// what a slow machine slows down as much (an exit after stdin EOF or SIGTERM) add it, so a
    /// verdict does not depend on `--jobs` or load.
    #[must_use]
    pub fn start_latency(&self) -> Duration {
        self.start_latency
    }

    /// Every stdout line so far that was not a valid JSON-RPC message (T1): each as the reason
    /// and the line, the first few kept, then a count of the rest.
    #[must_use]
    pub fn stdout_problems(&self) -> Vec<String> {
        let p = self
            .stdout_problems
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut out = p.kept.clone();
        if p.more > 0 {
            out.push(format!("… and {} more", p.more));
        }
        out
    }

    /// The handle the scheduler uses to kill this server's group.
    #[must_use]
    pub fn handle(&self) -> ProcHandle {
        self.proc.clone()
    }

    /// The server's pid (leader of its own group).
    #[must_use]
    pub fn pid(&self) -> i32 {
        self.proc.pgid
    }

    /// The transcript this client records into.
    #[must_use]
    pub fn transcript(&self) -> &Transcript {
        &self.transcript
    }

    /// A fresh integer request id.
    pub fn fresh_id(&mut self) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        json!(id)
    }

    /// Time left before the case's deadline.
    #[must_use]
    pub fn remaining(&self) -> Duration {
        self.deadline
            .get()
            .saturating_duration_since(Instant::now())
    }

    /// Sends one JSON message as a line.
    pub async fn send(&mut self, msg: &Value) -> Result<(), ClientError> {
        self.send_raw(&mcp_wire::encode(msg)).await
    }

    /// Sends raw bytes (which should end with `\n` to form a line), recorded as sent.
    pub async fn send_raw(&mut self, bytes: &[u8]) -> Result<(), ClientError> {
        let line = bytes.strip_suffix(b"\n").unwrap_or(bytes);
        self.transcript.record(self.transcript.peer().sent(), line);
        if let Some(o) = &self.observer {
            o.sending(line);
        }
        if let Some(link) = self.http.as_mut() {
            // HTTP-1: one message, one POST (the line's newline is stdio's framing).
            link.post(line).await;
            return Ok(());
        }
        self.write(bytes).await
    }

    /// Writes without recording (used for the pieces of a streamed line).
    pub async fn write(&mut self, bytes: &[u8]) -> Result<(), ClientError> {
        if self.http.is_some() {
            return Err(ClientError::NotApplicable(
                "writing part of a line (stdio's framing)".into(),
            ));
        }
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(ClientError::Closed {
                peer: self.transcript.peer(),
                waiting_for: "writing (stdin already closed)".into(),
                unmatched: Vec::new(),
                note: String::new(),
            });
        };
        // Bounded by the deadline: a server that stops reading its stdin (while it floods us
        // with requests to answer, or before a 64 MiB line is through) must not hang the runner.
        let write = async {
            stdin.write_all(bytes).await?;
            stdin.flush().await
        };
        let started = Instant::now();
        let Ok(res) = tokio::time::timeout_at(self.deadline.get().into(), write).await else {
            return Err(ClientError::Timeout {
                waiting_for: format!(
                    "the {} to read its stdin (a write did not complete)",
                    self.transcript.peer().noun()
                ),
                ms: elapsed_ms(started),
                unmatched: Vec::new(),
                foreign_id: false,
                note: String::new(),
                arrived: Vec::new(),
                first_ms: None,
            });
        };
        match res {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Err(ClientError::Closed {
                peer: self.transcript.peer(),
                waiting_for: format!("writing to the {}'s stdin", self.transcript.peer().noun()),
                unmatched: Vec::new(),
                note: self.how_it_ended().await,
            }),
            Err(e) => Err(ClientError::Io(e)),
        }
    }

    /// Sends a request with a fresh id and returns the id.
    pub async fn send_request(
        &mut self,
        method: &str,
        params: Option<Value>,
    ) -> Result<Value, ClientError> {
        let id = self.fresh_id();
        self.send(&mcp_wire::request(&id, method, params)).await?;
        Ok(id)
    }

    /// Sends a request and waits for its response (the whole message: `result` or `error`).
    pub async fn request(
        &mut self,
        method: &str,
        params: Option<Value>,
    ) -> Result<Value, ClientError> {
        let id = self.send_request(method, params).await?;
        self.response_to(&id, method).await
    }

    /// Sends a notification.
    pub async fn notify(&mut self, method: &str, params: Option<Value>) -> Result<(), ClientError> {
        self.send(&mcp_wire::notification(method, params)).await
    }

    /// Waits (until the deadline) for the response with `id`; other frames are kept in order
    /// and can be taken with [`Client::take_seen`].
    pub async fn response_to(&mut self, id: &Value, what: &str) -> Result<Value, ClientError> {
        let deadline = self.deadline.get();
        self.response_until(id, what, deadline).await
    }

    /// Like [`Client::response_to`] with an earlier deadline of its own.
    pub async fn response_within(
        &mut self,
        id: &Value,
        what: &str,
        wait: Duration,
    ) -> Result<Value, ClientError> {
        let deadline = (Instant::now() + wait).min(self.deadline.get());
        self.response_until(id, what, deadline).await
    }

    /// Waits for the response with `id` until `deadline`, whatever the case's deadline (the
    /// handshake: see [`Deadline`]).
    pub async fn response_before(
        &mut self,
        id: &Value,
        what: &str,
        deadline: Instant,
    ) -> Result<Value, ClientError> {
        self.response_until(id, what, deadline).await
    }

    async fn response_until(
        &mut self,
        id: &Value,
        what: &str,
        deadline: Instant,
    ) -> Result<Value, ClientError> {
        let earlier = self
            .seen
            .iter()
            .position(|f| f.json().is_some_and(|m| is_response_to(m, id)));
        if let Some(pos) = earlier
            && let Some(Frame::Json(m)) = self.seen.remove(pos)
        {
            return Ok(m);
        }
        let started = Instant::now();
        let mut oversized: Option<u64> = None;
        let mut arrived = Vec::new();
        let mut first_ms: Option<u64> = None;
        loop {
            let next = self.next_until(deadline).await?;
            if next.is_some() && first_ms.is_none() {
                first_ms = Some(elapsed_ms(started));
            }
            match next {
                Some((Frame::Json(m), _)) if is_response_to(&m, id) => return Ok(m),
                Some((Frame::Refused(r), _)) if r.id == *id => {
                    return Err(ClientError::Refused {
                        waiting_for: what.to_owned(),
                        refusal: Box::new(r),
                    });
                }
                // An error with no id (JSON-RPC 2.0 §5: null when the request's id could not be
                // read) while this request is all the peer could be answering is its answer:
                // the case grades it at once rather than waiting its whole timeout.
                Some((Frame::Json(m), _)) if is_idless_error(&m) && self.sole_pending(id) => {
                    return Ok(m);
                }
                Some((frame, size)) => {
                    if let Frame::Oversized(len) = frame {
                        oversized = Some(len);
                    }
                    if !is_plain_response(&frame) && arrived.len() < MAX_UNMATCHED {
                        arrived.push(format!("at {} ms {}", elapsed_ms(started), shown(&frame)));
                    }
                    // An answer under an id never sent does not end the wait: only this
                    // request's own answer, or the peer's exit, does. A wait that runs out
                    // after one is blocked by the id rule ([`ClientError::Timeout`]'s
                    // `foreign_id`).
                    self.keep(frame, size);
                }
                None if self.closed => {
                    let mut note = self.how_it_ended().await;
                    note.push_str(&oversized_note(self.transcript.peer(), oversized));
                    return Err(ClientError::Closed {
                        peer: self.transcript.peer(),
                        waiting_for: what.to_owned(),
                        unmatched: self.unmatched_responses(),
                        note,
                    });
                }
                None => {
                    if let Some(status) = self.exited() {
                        // The server is gone though its stdout is not closed: a process it
                        // started holds the pipe. Say so rather than "no answer in time".
                        return Err(ClientError::Closed {
                            peer: self.transcript.peer(),
                            waiting_for: format!(
                                "{what}; the {} exited ({status}) while a process it left \
                                 behind keeps its stdout open",
                                self.transcript.peer().noun()
                            ),
                            unmatched: self.unmatched_responses(),
                            note: oversized_note(self.transcript.peer(), oversized),
                        });
                    }
                    return Err(ClientError::Timeout {
                        waiting_for: what.to_owned(),
                        ms: elapsed_ms(started),
                        unmatched: self.unmatched_responses(),
                        foreign_id: self.foreign_response_seen() || self.idless_hidden(),
                        note: oversized_note(self.transcript.peer(), oversized),
                        arrived,
                        first_ms,
                    });
                }
            }
        }
    }

    /// How the server ended, for a closed connection: its exit status or the signal that
    /// killed it, once it has exited (waiting for that at most a second, on the exit itself).
    async fn how_it_ended(&self) -> String {
        let noun = self.transcript.peer().noun();
        if let Some(link) = &self.http {
            return link.trouble();
        }
        let Some(child) = &self.proc.child else {
            return String::new();
        };
        let mut child = child.lock().await;
        match tokio::time::timeout(Duration::from_secs(1), child.wait()).await {
            Ok(Ok(status)) => format!(" (the {noun} {})", describe_exit(status)),
            _ => format!(" (the {noun} closed its stdout but is still running)"),
        }
    }

    /// Whether a response arrived whose id no request on this connection carried.
    fn foreign_response_seen(&self) -> bool {
        self.seen
            .iter()
            .filter_map(Frame::json)
            .any(|m| self.is_foreign_response(m))
    }

    /// Whether `m` is a response (a result or an error, with a non-null id) whose id no request
    /// on this connection carried. Without an observer nothing is known to be foreign.
    #[must_use]
    pub fn is_foreign_response(&self, m: &Value) -> bool {
        let Some(o) = &self.observer else {
            return false;
        };
        m.get("method").is_none()
            && (m.get("result").is_some() || m.get("error").is_some())
            && m.get("id")
                .is_some_and(|id| !id.is_null() && !o.was_sent(id))
    }

    /// Whether an error under id null that may answer a pending request was hidden on this
    /// connection (see [`crate::core::watch::Owed::idless_hidden`]); without an observer, never.
    fn idless_hidden(&self) -> bool {
        self.observer.as_ref().is_some_and(|o| o.idless_hidden())
    }

    /// Whether `id` is all the peer could be answering on this connection (see
    /// [`crate::core::watch::Owed::sole_pending`]); without an observer, never.
    fn sole_pending(&self, id: &Value) -> bool {
        self.observer.as_ref().is_some_and(|o| o.sole_pending(id))
    }

    /// The server's exit status when it has exited (without waiting).
    fn exited(&self) -> Option<ExitStatus> {
        let mut child = self.proc.child.as_ref()?.try_lock().ok()?;
        child.try_wait().ok().flatten()
    }

    /// Responses seen so far that no wait took (another id than asked), for error messages.
    fn unmatched_responses(&self) -> Vec<String> {
        // Kept in step with `is_plain_response`: what this lists, `arrived` leaves out.
        self.seen
            .iter()
            .filter_map(Frame::json)
            .filter(|m| {
                m.get("method").is_none()
                    && m.get("id").is_some()
                    && (m.get("result").is_some() || m.get("error").is_some())
            })
            .take(MAX_UNMATCHED)
            .map(|m| crate::core::transcript::clip_to(m.to_string().as_bytes(), 200))
            .collect()
    }

    /// Keeps a frame no wait took, for [`Client::take_seen`] (bounded: see [`SEEN_BYTES`]).
    fn keep(&mut self, frame: Frame, size: usize) {
        if self.seen.push(frame, size) {
            self.transcript.note(&format!(
                "the {} sent more than the runner keeps unread ({} MiB, {MAX_SEEN} frames): \
                 the oldest unread frames are dropped",
                self.transcript.peer().noun(),
                SEEN_BYTES / (1024 * 1024)
            ));
        }
    }

    /// Every frame that arrives within `wait` (bounded by the deadline), after those already
    /// seen (bounded as [`Client::take_seen`]). Ends early when the server closes stdout.
    pub async fn collect(&mut self, wait: Duration) -> Result<Vec<Frame>, ClientError> {
        let deadline = (Instant::now() + wait).min(self.deadline.get());
        while let Some((frame, size)) = self.next_until(deadline).await? {
            self.keep(frame, size);
        }
        Ok(self.seen.drain())
    }

    /// Takes the frames seen so far while waiting for other things.
    pub fn take_seen(&mut self) -> Vec<Frame> {
        self.seen.drain()
    }

    /// The next frame before `deadline`, `None` on timeout or when stdout closed. Requests the
    /// server sends to the runner are answered at once so no server waits on us, and are also
    /// passed on: see [`reply_to_server_request`].
    async fn next_until(
        &mut self,
        deadline: Instant,
    ) -> Result<Option<(Frame, usize)>, ClientError> {
        if self.closed {
            return Ok(None);
        }
        // A server that floods keeps the queue always ready, and a ready future wins over its
        // timeout: the deadline is checked first so every wait ends.
        if Instant::now() >= deadline {
            return Ok(None);
        }
        match tokio::time::timeout_at(deadline.into(), self.frames.recv()).await {
            Ok(Some(Some(incoming))) => {
                // Its queue budget goes back to the reader here.
                let Incoming { frame, size, .. } = incoming;
                let reply = match (&frame, &self.responder) {
                    (Frame::Json(m), Some(r))
                        if m.get("method").is_some() && m.get("id").is_some() =>
                    {
                        (r.0)(m)
                    }
                    (Frame::Json(m), None) => reply_to_server_request(m),
                    _ => None,
                };
                if let Some(reply) = reply {
                    // Best effort: a server that stopped reading is graded elsewhere.
                    let _ = self.send(&reply).await;
                }
                Ok(Some((frame, size)))
            }
            Ok(Some(None) | None) => {
                self.closed = true;
                Ok(None)
            }
            Err(_) => Ok(None),
        }
    }

    /// Whether the server closed its stdout.
    #[must_use]
    pub fn is_closed(&self) -> bool {
        self.closed
    }

    /// Closes the server's stdin (EOF); nothing over Streamable HTTP, which has none.
    pub fn close_stdin(&mut self) {
        if self.stdin.take().is_some() {
            self.transcript.note(&format!(
                "closed the {}'s stdin (EOF)",
                self.transcript.peer().noun()
            ));
        }
    }

    /// Waits up to `wait` for the server process to exit (`None` at once for an endpoint: no
    /// process of the runner's).
    pub async fn wait_exit(&mut self, wait: Duration) -> Option<ExitStatus> {
        let mut child = self.proc.child.as_ref()?.lock().await;
        match tokio::time::timeout(wait, child.wait()).await {
            Ok(Ok(status)) => {
                self.transcript.note(&format!(
                    "{} exited: {status}",
                    self.transcript.peer().noun()
                ));
                Some(status)
            }
            _ => None,
        }
    }

    /// Whether the server process is still running (an endpoint's always counts as running).
    pub async fn is_running(&self) -> bool {
        let Some(child) = &self.proc.child else {
            return true;
        };
        let mut child = child.lock().await;
        matches!(child.try_wait(), Ok(None))
    }

    /// Streams one line of `total` bytes (a JSON request whose string parameter pads it out),
    /// in 1 MiB pieces, never holding the whole line; `between` runs after each piece (memory
    /// sampling). The line is recorded in the transcript by its head and length only.
    pub async fn stream_huge_line(
        &mut self,
        total: usize,
        mut between: impl FnMut(),
    ) -> Result<(), ClientError> {
        const PIECE: usize = 1024 * 1024;
        if self.http.is_some() {
            return Err(ClientError::NotApplicable(
                "a streamed 64 MiB line (stdio's framing)".into(),
            ));
        }
        let head = br#"{"jsonrpc":"2.0","id":"huge","method":"ping","params":{"pad":""#;
        let tail = b"\"}}\n";
        let pad = total.saturating_sub(head.len() + tail.len());
        self.transcript.record(
            self.transcript.peer().sent(),
            format!(
                "{}… (one line of {total} bytes, streamed in 1 MiB pieces)",
                String::from_utf8_lossy(head)
            )
            .as_bytes(),
        );
        if let Some(o) = &self.observer {
            // The request inside the line, should a server read it whole and answer it.
            o.sending(br#"{"jsonrpc":"2.0","id":"huge","method":"ping"}"#);
            // And the line as a bounded reader sees it, its head alone (no JSON): a peer that
            // discards it may answer under id null (JSON-RPC 2.0 §5, T6).
            o.sending(head);
        }
        self.write(head).await?;
        let piece = vec![b'x'; PIECE];
        let mut left = pad;
        while left > 0 {
            let n = left.min(PIECE);
            self.write(&piece[..n]).await?;
            left -= n;
            between();
        }
        self.write(tail).await?;
        between();
        Ok(())
    }
}

/// Milliseconds since `started`.
fn elapsed_ms(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// The note for a wait during which the peer sent a line longer than the runner keeps.
fn oversized_note(peer: Peer, len: Option<u64>) -> String {
    len.map_or_else(String::new, |len| {
        format!(
            "; meanwhile the {} sent a line of {len} bytes, more than the runner keeps \
             ({} MiB): the answer may have been in it",
            peer.noun(),
            MAX_SERVER_LINE / (1024 * 1024)
        )
    })
}

/// "exited with status 3", "was killed by signal 6 (SIGABRT)".
#[must_use]
pub fn describe_exit(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt as _;
    if let Some(code) = status.code() {
        return format!("exited with status {code}");
    }
    match status.signal() {
        Some(sig) => {
            let name = nix::sys::signal::Signal::try_from(sig)
                .map(|s| format!(" ({})", s.as_str()))
                .unwrap_or_default();
            format!("was killed by signal {sig}{name}")
        }
        None => format!("ended ({status})"),
    }
}

/// The runner's answer to a request the server sent it, or `None` when `msg` is no request.
/// `ping` gets the empty result MCP requires of every receiver (basic/utilities/ping: "The
/// receiver MUST respond promptly with an empty response"); anything else (sampling, roots,
/// elicitation …) is `-32601`, since the runner declares no client capability.
#[must_use]
pub fn reply_to_server_request(msg: &Value) -> Option<Value> {
    let id = msg.get("id")?;
    let method = msg.get("method")?.as_str()?;
    if method == "ping" {
        return Some(mcp_wire::response(id, json!({})));
    }
    let err = mcp_wire::ErrorObject::method_not_found(method);
    Some(mcp_wire::error_response(Some(id), &err))
}

/// Whether `m` is an error response whose id is missing or null.
fn is_idless_error(m: &Value) -> bool {
    m.get("method").is_none() && m.get("error").is_some() && m.get("id").is_none_or(Value::is_null)
}

/// Whether `frame` is one response object (a result or an error with an id): such frames are
/// listed as responses with other ids, not as what else arrived.
fn is_plain_response(frame: &Frame) -> bool {
    frame.json().is_some_and(|m| {
        m.get("method").is_none()
            && m.get("id").is_some()
            && (m.get("result").is_some() || m.get("error").is_some())
    })
}

/// A frame as a deadline's message quotes it: compact, clipped.
fn shown(frame: &Frame) -> String {
    match frame {
        Frame::Json(m) => crate::core::transcript::clip_to(m.to_string().as_bytes(), 200),
        Frame::NotJson(line) => format!(
            "a line that is no JSON: {}",
            crate::core::transcript::clip_to(line.as_bytes(), 200)
        ),
        Frame::Oversized(len) => format!("a line of {len} bytes"),
        Frame::Refused(r) => format!("HTTP's answer to id {} without it: {}", r.id, r.said),
    }
}

#[cfg(test)]
mod tests;
