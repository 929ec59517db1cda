//! A tiny re-exporting MCP proxy for the runner's own tests: it starts an upstream stdio server
//! and passes messages through both ways, line by line, with bounded frames (T6).
//!
//! - `--gateway` makes it a gateway as META-CONN-1 describes: the tools it lists keep their risk
//!   but lose the connection-local work and continuation declarations; the work resource (the
//!   upstream connection's snapshot, META-WORK-2) is not re-exported; a host's work-invocation in
//!   `tools/call` `_meta` is not passed on (it binds work on the host's connection, not on the
//!   gateway's). `--prefix P` also renames every tool `P<name>`, as gateways do; `--hex-names`
//!   renames every tool to an opaque `x<hex of the name>`, so no name suffix gives a role away.
//! - `--mutate NAME` breaks exactly one rule and passes everything else through untouched, so
//!   the runner's cases can be shown to catch each deviation precisely (tests/it/mutants.rs).
//!
//! Containment: the upstream stays in the proxy's process group, so the runner's group kill and
//! its memory sampling (T6) cover the whole chain. When the proxy ends on its own it ends the
//! upstream too: on stdin EOF it closes the upstream's stdin and waits for it (T8: the upstream
//! cancels its runs and exits), on SIGTERM/SIGINT/SIGHUP it forwards SIGTERM; after a bounded
//! grace the upstream is SIGKILLed and reaped before the proxy exits. After SIGTERM or SIGINT
//! the proxy exits 0 when the upstream exited 0 (T8), else with 128 + the signal number.

use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::process::{ExitCode, ExitStatus, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use clap::{Parser, ValueEnum};
use mcp_wire::{DecodeEvent, FrameDecoder};
use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::OwnedMutexGuard;

/// Bound of a client line the proxy inspects; longer lines stream through untouched (the
/// upstream applies its own bound, T6). Small so the proxy adds little to the group's memory.
const C2S_FRAME: usize = 1024 * 1024;
/// Bound of an upstream line the proxy inspects (tool results can be a few hundred KiB).
const S2C_FRAME: usize = 8 * 1024 * 1024;
/// Requests whose answers the proxy tracks at most (a cancelled request is never answered).
const MAX_PENDING: usize = 4096;
/// How long the upstream may take to exit after stdin EOF (T8: it cancels its runs first).
const EOF_WAIT: Duration = Duration::from_secs(20);
/// How long the upstream may take to exit after SIGTERM before SIGKILL.
const TERM_GRACE: Duration = Duration::from_secs(3);
/// How long upstream output is still forwarded after the upstream exited.
const DRAIN: Duration = Duration::from_secs(2);

const RISK_KEY: &str = "io.github.computer-mcp/risk";
const WORK_KEY: &str = "io.github.computer-mcp/work";
const CONT_KEY: &str = "io.github.computer-mcp/continuation";
const INVOCATION_KEY: &str = "io.github.computer-mcp/work-invocation";
const WORK_URI: &str = "computer-mcp://runtime/work/v1";
/// Notifications a client may send (MCP 2025-06-18); anything else is unknown (T3).
const CLIENT_NOTIFICATIONS: [&str; 4] = [
    "notifications/initialized",
    "notifications/cancelled",
    "notifications/progress",
    "notifications/roots/list_changed",
];

/// A re-exporting MCP proxy (test support of mcp-conformance).
#[derive(Debug, Parser)]
#[command(name = "mcp_proxy")]
struct Cli {
    /// Re-export as a gateway: strip work and continuation declarations, keep risk (META-CONN-1).
    #[arg(long)]
    gateway: bool,
    /// With --gateway: list every tool as PREFIX<name> (and call it back by that name).
    #[arg(
        long,
        value_name = "PREFIX",
        requires = "gateway",
        conflicts_with = "hex_names"
    )]
    prefix: Option<String>,
    /// With --gateway: list every tool as `x<hex of its name>` (an opaque id; decoded on call).
    #[arg(long, requires = "gateway")]
    hex_names: bool,
    /// Break exactly one rule on purpose.
    #[arg(long, value_enum, value_name = "NAME")]
    mutate: Option<Mutation>,
    /// The upstream server command and its arguments.
    #[arg(last = true, required = true, value_name = "UPSTREAM")]
    upstream: Vec<OsString>,
}

/// One deliberate violation each (the rule it breaks in brackets).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Mutation {
    /// `claude.run.cancel` declared read-only instead of destructive (META-RISK-2).
    WrongRisk,
    /// `claude.run.list` declares no risk (META-RISK-1).
    MissingRisk,
    /// `claude.run` annotated readOnlyHint true although it is full-shell (META-RISK-3).
    ReadonlyHintOnFullShell,
    /// `claude.run.events` declares work without its uri (META-WORK-1).
    MissingWorkUri,
    /// resources/list leaves the work URI out (META-WORK-2).
    WorkResourceUnlisted,
    /// `claude.run.cancel`'s continuation points at `/id`, not a property of its schema (META-CONT-1).
    ContinuationBadPointer,
    /// `claude.run.list` declares a continuation (META-CONT-2).
    ContinuationOnList,
    /// initialize answers any unsupported proposal back (T2).
    EchoUnsupportedVersion,
    /// initialize claims 2025-11-25, a revision the contract does not list (T2).
    EchoNewerVersion,
    /// tools/call of an unknown tool answered as an isError result, not -32602 (TOOL-3, TOOL-4).
    IserrorForProtocolError,
    /// The text block of tool results mirrors structuredContent.result, not structuredContent (TOOL-4).
    TextMirrorMismatch,
    /// Client lines are read whole into memory before forwarding, without a bound (T6).
    UnboundedFrameRead,
    /// notifications/cancelled is swallowed: the run is not cancelled (T7).
    HangOnCancel,
    /// A cancelled in-flight request is answered with an error at once (T7, MCP: SHOULD NOT answer).
    AnswerCancelled,
    /// Unparseable lines are dropped silently instead of answered -32700 (T4).
    DropMalformed,
    /// Unparseable lines are answered -32700 twice: by the proxy and by the upstream (T4,
    /// JSON-RPC: one response per request).
    ParseErrorTwice,
    /// -32601 answers lose their message (MCP basic: errors include a code and a message).
    ErrorWithoutMessage,
    /// Under 2025-03-26 a batch's answers become -32600 errors, one per element: the batch is
    /// "answered as a batch" but not accepted (MCP 2025-03-26 basic: MUST receive batches).
    BatchAnsweredWithErrors,
    /// ping is answered with a null result instead of `{}` (MCP basic/utilities/ping).
    PingResultNull,
    /// Request ids are held as i64: a u64 id above i64::MAX comes back saturated (T3a).
    WrongIdEcho,
    /// After a refused work read, the next snapshot's revision is below the refusal's (META-WORK-7).
    SnapshotRevisionRegress,
    /// The snapshot's acquired_by follows the latest work-invocation seen (META-WORK-4).
    AcquiredByRebind,
    /// Under 2025-06-18 a batch is split, run and answered as a batch instead of -32600 (T5).
    #[value(name = "batch-under-2025-06-18")]
    BatchUnder2025_06_18,
    /// A succeeded run is reported with is_error true (OUT-1).
    SucceededWithIsError,
    /// notifications/progress from the upstream are dropped (T9).
    NoProgress,
    /// Every notifications/progress is sent twice: its progress value does not increase (T9,
    /// MCP basic/utilities/progress: the value MUST increase with each notification).
    ProgressRepeated,
    /// Work snapshot entries lose their `kind` (META-WORK-3).
    SnapshotEntryWithoutKind,
    /// A banner line that is not JSON-RPC is written to stdout at start (T1).
    StdoutBanner,
    /// A JSON log record (JSON, but no JSON-RPC message) is written to stdout at start (T1).
    StdoutJsonLog,
    /// Responses lose their `"jsonrpc": "2.0"` member (T1, MCP basic: every message is
    /// JSON-RPC 2.0).
    ResponseWithoutJsonrpc,
    /// Exit status 1 after a clean stdin EOF shutdown (T8).
    EofExitNonzero,
    /// Exit status 1 after SIGTERM, although the upstream was still ended and reaped (T8).
    SigtermExitNonzero,
    /// An unknown notification is answered -32601 (T3: notifications are never answered).
    UnknownNotificationAnswered,
    /// `server/discover` answered with a result instead of -32601 (T3: not a method of the
    /// contract; a host would then speak the stateless revision to a server without it).
    DiscoverAnswered,
    /// A failed run's `native_error` reported as null (RUN-11: `{message, source}`).
    NativeErrorDropped,
    /// claude.run.list entries lose `acquired_by`, also for bound runs (RUN-3).
    ListWithoutAcquiredBy,
    /// Run results lose `stderr_tail` (RUN-11: the last 8 KiB of the native stderr are kept).
    StderrTailDropped,
    /// A run of the `grandchild` scenario leaves a native process carrying its prompt alive (in
    /// the proxy's group) while the run reports its cleanup confirmed (SUP-1).
    LeakRunProcess,
    /// `claude.run.list`'s inputSchema no longer sets additionalProperties false (TOOL-2).
    SchemaNotClosed,
    /// resources/read of an unknown URI answered with empty contents, not an error (MCP resources).
    UnknownResourceEmpty,
    /// resources/read of an unknown URI answered -32603, not resource-not-found (MCP resources).
    UnknownResourceWrongCode,
    /// With --gateway: `claude.run.cancel` keeps its continuation declaration (META-CONN-1).
    GatewayKeepsCancelContinuation,
    /// Tool results lose `structuredContent` (TOOL-4); the text block still holds the JSON.
    NoStructuredContent,
    /// Tool results lose `isError` (TOOL-4: a boolean on every result).
    MissingIsError,
    /// A text log line is written on stdout before every tools/call answer (T1).
    LogOnCall,
    /// Answers to `claude.run.list` calls come back under another id (JSON-RPC 2.0 §5).
    WrongIdOnList,
}

/// A request whose answer may need rewriting.
#[derive(Debug, Clone)]
enum Pending {
    Initialize { proposal: Option<String> },
    Ping,
    ToolsCall,
    ResourcesRead { uri: String },
}

/// A client batch split into single requests (mutation `batch-under-2025-06-18`).
#[derive(Debug, Default)]
struct Batch {
    waiting: HashSet<String>,
    answers: Vec<Value>,
}

#[derive(Debug, Default)]
struct State {
    pending: HashMap<String, Pending>,
    /// The protocol version the client was answered.
    negotiated: Option<String>,
    /// `last_revision` of the latest refused work read (META-WORK-5).
    refused_revision: Option<u64>,
    /// The latest work-invocation a client sent.
    last_invocation: Option<String>,
    batches: Vec<Batch>,
    /// Ids of calls whose answers mutation wrong-id-on-list sends back under another id.
    wrong_ids: HashSet<String>,
}

struct Proxy {
    gateway: bool,
    prefix: Option<String>,
    hex_names: bool,
    mutation: Option<Mutation>,
    state: Mutex<State>,
}

type Out = Arc<tokio::sync::Mutex<tokio::io::Stdout>>;

/// What to do with one message.
enum Action {
    Keep,
    Replace(Value),
    Drop,
}

fn id_key(id: &Value) -> String {
    id.to_string()
}

/// Whether `name` is the tool of `dotted` (e.g. `claude.run.cancel`), tolerating a prefix and the
/// underscore projection.
fn tool_is(name: &str, dotted: &str) -> bool {
    let n = name.replace('_', ".");
    n == dotted || n.ends_with(&format!(".{dotted}"))
}

fn error_code(m: &Value) -> Option<i64> {
    m.get("error")?.get("code")?.as_i64()
}

fn error_answer(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

impl Proxy {
    fn is(&self, m: Mutation) -> bool {
        self.mutation == Some(m)
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// One complete client line: what goes upstream (lines without their newline) and what the
    /// proxy answers the client itself.
    fn client_line(&self, line: &[u8]) -> (Vec<Vec<u8>>, Vec<Value>) {
        let parsed = std::str::from_utf8(line)
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(t).ok());
        let Some(value) = parsed else {
            if self.is(Mutation::DropMalformed) && !line.iter().all(u8::is_ascii_whitespace) {
                return (Vec::new(), Vec::new());
            }
            if self.is(Mutation::ParseErrorTwice) && !line.iter().all(u8::is_ascii_whitespace) {
                let own = error_answer(&Value::Null, -32700, "parse error");
                return (vec![line.to_vec()], vec![own]);
            }
            return (vec![line.to_vec()], Vec::new());
        };
        let mut to_client = Vec::new();
        match value {
            Value::Array(items) => {
                if let Some(lines) = self.split_batch(&items) {
                    return (lines, Vec::new());
                }
                let mut changed = false;
                let mut out = Vec::with_capacity(items.len());
                for item in items {
                    match self.client_message(item.clone(), false, &mut to_client) {
                        Action::Keep => out.push(item),
                        Action::Replace(v) => {
                            changed = true;
                            out.push(v);
                        }
                        Action::Drop => changed = true,
                    }
                }
                if !changed {
                    (vec![line.to_vec()], to_client)
                } else if out.is_empty() {
                    (Vec::new(), to_client)
                } else {
                    (vec![Value::Array(out).to_string().into_bytes()], to_client)
                }
            }
            single => match self.client_message(single, true, &mut to_client) {
                Action::Keep => (vec![line.to_vec()], to_client),
                Action::Replace(v) => (vec![v.to_string().into_bytes()], to_client),
                Action::Drop => (Vec::new(), to_client),
            },
        }
    }

    /// Mutation `batch-under-2025-06-18`: a batch of requests under 2025-06-18 is split into
    /// single lines and its answers gathered into one array (T5 forbids this).
    fn split_batch(&self, items: &[Value]) -> Option<Vec<Vec<u8>>> {
        if !self.is(Mutation::BatchUnder2025_06_18)
            || items.is_empty()
            || !items
                .iter()
                .all(|i| i.get("method").is_some_and(Value::is_string))
        {
            return None;
        }
        let mut st = self.state();
        if st.negotiated.as_deref() != Some("2025-06-18") {
            return None;
        }
        let waiting: HashSet<String> = items
            .iter()
            .filter_map(|i| i.get("id"))
            .map(id_key)
            .collect();
        if !waiting.is_empty() {
            st.batches.push(Batch {
                waiting,
                answers: Vec::new(),
            });
        }
        Some(items.iter().map(|i| i.to_string().into_bytes()).collect())
    }

    /// One client message (alone or in a batch).
    fn client_message(&self, mut m: Value, single: bool, to_client: &mut Vec<Value>) -> Action {
        let method = m.get("method").and_then(Value::as_str).map(str::to_owned);
        let Some(method) = method else {
            return Action::Keep;
        };
        let Some(id) = m.get("id").cloned() else {
            return self.client_notification(&method, &m, single, to_client);
        };
        let mut changed = false;
        if self.is(Mutation::WrongIdEcho)
            && id.as_u64().is_some_and(|n| n > i64::MAX.unsigned_abs())
        {
            // The bug: an i64 id type, saturating on the way in.
            m["id"] = json!(i64::MAX);
            changed = true;
        }
        if method == "server/discover" && self.is(Mutation::DiscoverAnswered) {
            to_client.push(json!({"jsonrpc": "2.0", "id": id, "result": {
                "supportedVersions": ["2025-06-18"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "mcp_proxy", "version": "0.1.0"}
            }}));
            return Action::Drop;
        }
        let params = m.get("params").cloned().unwrap_or(Value::Null);
        let pending = match method.as_str() {
            "initialize" => Some(Pending::Initialize {
                proposal: params
                    .get("protocolVersion")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
            }),
            // Single pings only: mutation ping-result-null leaves batches to the batch cases.
            "ping" if single => Some(Pending::Ping),
            "tools/call" => {
                if self.is(Mutation::WrongIdOnList)
                    && params
                        .get("name")
                        .and_then(Value::as_str)
                        .is_some_and(|n| tool_is(n, "claude.run.list"))
                {
                    self.state().wrong_ids.insert(id_key(&id));
                }
                if let Some(inv) = params
                    .get("_meta")
                    .and_then(|x| x.get(INVOCATION_KEY))
                    .and_then(Value::as_str)
                {
                    self.state().last_invocation = Some(inv.to_owned());
                }
                if self.is(Mutation::LeakRunProcess)
                    && let Some(prompt) = params
                        .get("arguments")
                        .and_then(|a| a.get("prompt"))
                        .and_then(Value::as_str)
                    && prompt.starts_with("fake-claude:scenario=grandchild\n")
                {
                    // The leak: a native process of the run (`claude` on PATH is the fake,
                    // argv holding the run's prompt) that nobody supervises or kills; the
                    // runner's group kill ends it after the case.
                    let hang =
                        prompt.replacen("scenario=grandchild", "scenario=hang-before-final", 1);
                    let _ = std::process::Command::new("claude")
                        .args([
                            "-p",
                            "--output-format",
                            "stream-json",
                            "--verbose",
                            "--",
                            &hang,
                        ])
                        .stdin(Stdio::null())
                        .stdout(Stdio::null())
                        .stderr(Stdio::null())
                        .spawn();
                }
                if self.gateway {
                    // An answer of the gateway's own goes out as a single message, even for an
                    // element of a batch (no runner case batches tools/call).
                    match self.gateway_call(&id, &mut m) {
                        Ok(c) => changed |= c,
                        Err(answer) => {
                            to_client.push(answer);
                            return Action::Drop;
                        }
                    }
                }
                Some(Pending::ToolsCall)
            }
            "resources/read" => {
                let uri = params
                    .get("uri")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned();
                if self.gateway && uri == WORK_URI {
                    // The upstream connection's work is not this connection's (META-CONN-1).
                    to_client.push(error_answer(&id, -32002, "resource not found"));
                    return Action::Drop;
                }
                Some(Pending::ResourcesRead { uri })
            }
            _ => None,
        };
        if let Some(p) = pending {
            let key = id_key(&m["id"]);
            let mut st = self.state();
            if st.pending.len() < MAX_PENDING {
                st.pending.insert(key, p);
            }
        }
        if changed {
            Action::Replace(m)
        } else {
            Action::Keep
        }
    }

    /// Gateway rewriting of a `tools/call`: the prefix comes off the name, and the host's work
    /// invocation stays on the host's connection. `Err` is the gateway's own answer.
    fn gateway_call(&self, id: &Value, m: &mut Value) -> Result<bool, Value> {
        let mut changed = false;
        let Some(params) = m.get_mut("params").and_then(Value::as_object_mut) else {
            return Ok(false);
        };
        if let Some(name) = params.get("name").and_then(Value::as_str) {
            let inner = match &self.prefix {
                Some(prefix) => name.strip_prefix(prefix.as_str()).map(str::to_owned),
                None if self.hex_names => unhex_name(name),
                None => Some(name.to_owned()),
            };
            // A name this gateway never listed is an unknown tool (TOOL-3).
            let Some(inner) = inner else {
                return Err(error_answer(id, -32602, &format!("unknown tool {name:?}")));
            };
            if inner != name {
                params.insert("name".into(), json!(inner));
                changed = true;
            }
        }
        if let Some(meta) = params.get_mut("_meta").and_then(Value::as_object_mut)
            && meta.remove(INVOCATION_KEY).is_some()
        {
            changed = true;
        }
        Ok(changed)
    }

    fn client_notification(
        &self,
        method: &str,
        m: &Value,
        single: bool,
        to_client: &mut Vec<Value>,
    ) -> Action {
        if method == "notifications/cancelled" {
            if self.is(Mutation::HangOnCancel) {
                return Action::Drop;
            }
            if self.is(Mutation::AnswerCancelled)
                && let Some(req) = m.get("params").and_then(|p| p.get("requestId"))
                && self.state().pending.remove(&id_key(req)).is_some()
            {
                to_client.push(error_answer(req, -32800, "request cancelled"));
            }
        }
        if single
            && self.is(Mutation::UnknownNotificationAnswered)
            && !CLIENT_NOTIFICATIONS.contains(&method)
        {
            to_client.push(error_answer(
                &Value::Null,
                -32601,
                &format!("method not found: {method}"),
            ));
        }
        Action::Keep
    }

    /// One complete upstream line: the bytes for the client (without the newline), or nothing.
    fn upstream_line(&self, line: &[u8]) -> Option<Vec<u8>> {
        let parsed = std::str::from_utf8(line)
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(t).ok());
        let Some(value) = parsed else {
            return Some(line.to_vec());
        };
        match value {
            Value::Array(items)
                if self.is(Mutation::BatchAnsweredWithErrors)
                    && self.state().negotiated.as_deref() == Some("2025-03-26") =>
            {
                let errors: Vec<Value> = items
                    .iter()
                    .map(|m| error_answer(&m["id"], -32600, "not accepted"))
                    .collect();
                Some(Value::Array(errors).to_string().into_bytes())
            }
            Value::Array(items) => {
                let mut changed = false;
                let mut out = Vec::with_capacity(items.len());
                for item in items {
                    match self.upstream_message(item.clone()) {
                        Action::Keep => out.push(item),
                        Action::Replace(v) => {
                            changed = true;
                            out.push(v);
                        }
                        Action::Drop => changed = true,
                    }
                }
                if !changed {
                    Some(line.to_vec())
                } else if out.is_empty() {
                    None
                } else {
                    Some(Value::Array(out).to_string().into_bytes())
                }
            }
            single => match self.upstream_message(single) {
                Action::Keep
                    if self.is(Mutation::ProgressRepeated)
                        && line.starts_with(b"{")
                        && is_progress(line) =>
                {
                    let mut twice = line.to_vec();
                    twice.push(b'\n');
                    twice.extend_from_slice(line);
                    Some(twice)
                }
                Action::Keep if self.is(Mutation::LogOnCall) && is_call_result(line) => {
                    let mut logged = b"mcp_proxy: INFO answered tools/call\n".to_vec();
                    logged.extend_from_slice(line);
                    Some(logged)
                }
                Action::Keep => Some(line.to_vec()),
                Action::Replace(v) => Some(v.to_string().into_bytes()),
                Action::Drop => None,
            },
        }
    }

    fn upstream_message(&self, mut m: Value) -> Action {
        if let Some(method) = m.get("method").and_then(Value::as_str) {
            if m.get("id").is_none()
                && method == "notifications/progress"
                && self.is(Mutation::NoProgress)
            {
                return Action::Drop;
            }
            return Action::Keep;
        }
        let Some(id) = m.get("id").cloned() else {
            return Action::Keep;
        };
        let pending = self.state().pending.remove(&id_key(&id));
        let mut changed = match pending {
            Some(p) => self.answer(&p, &mut m),
            None => false,
        };
        if self.state().wrong_ids.remove(&id_key(&id)) {
            m["id"] = json!(format!("wrong-{}", id_key(&id)));
            changed = true;
        }
        if let Some(result) = m.get_mut("result") {
            changed |= self.listing(result);
        }
        if self.is(Mutation::ResponseWithoutJsonrpc)
            && let Some(obj) = m.as_object_mut()
        {
            changed |= obj.remove("jsonrpc").is_some();
        }
        if self.is(Mutation::ErrorWithoutMessage)
            && error_code(&m) == Some(-32601)
            && let Some(error) = m.get_mut("error").and_then(Value::as_object_mut)
        {
            changed |= error.remove("message").is_some();
        }
        let mut st = self.state();
        let key = id_key(&id);
        if let Some(i) = st.batches.iter().position(|b| b.waiting.contains(&key)) {
            let batch = &mut st.batches[i];
            batch.waiting.remove(&key);
            batch.answers.push(m);
            if batch.waiting.is_empty() {
                let done = st.batches.remove(i);
                return Action::Replace(Value::Array(done.answers));
            }
            return Action::Drop;
        }
        if changed {
            Action::Replace(m)
        } else {
            Action::Keep
        }
    }

    /// Rewrites the answer to a tracked request; returns whether it changed.
    fn answer(&self, pending: &Pending, m: &mut Value) -> bool {
        match pending {
            Pending::Ping => {
                if self.is(Mutation::PingResultNull) && m.get("result").is_some() {
                    m["result"] = Value::Null;
                    return true;
                }
                false
            }
            Pending::Initialize { proposal } => {
                let Some(result) = m.get_mut("result").and_then(Value::as_object_mut) else {
                    return false;
                };
                let answered = result
                    .get("protocolVersion")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                let echo = match (self.mutation, proposal.as_deref()) {
                    (Some(Mutation::EchoUnsupportedVersion), Some(p)) => {
                        answered.as_deref() != Some(p)
                    }
                    (Some(Mutation::EchoNewerVersion), Some(p)) => p == "2025-11-25",
                    _ => false,
                };
                let client_sees = if echo { proposal.clone() } else { answered };
                if echo {
                    result.insert("protocolVersion".into(), json!(proposal));
                }
                self.state().negotiated = client_sees;
                echo
            }
            Pending::ToolsCall => self.tool_answer(m),
            Pending::ResourcesRead { uri } => self.resource_answer(uri, m),
        }
    }

    fn tool_answer(&self, m: &mut Value) -> bool {
        if let Some(result) = m.get_mut("result").and_then(Value::as_object_mut) {
            if self.is(Mutation::NoStructuredContent) {
                return result.remove("structuredContent").is_some();
            }
            if self.is(Mutation::MissingIsError) {
                return result.remove("isError").is_some();
            }
        }
        if self.is(Mutation::IserrorForProtocolError)
            && error_code(m) == Some(-32602)
            && let Some(obj) = m.as_object_mut()
        {
            let message = obj
                .remove("error")
                .and_then(|e| e.get("message").cloned())
                .unwrap_or_else(|| json!("unknown tool"));
            let text = message.as_str().unwrap_or("unknown tool").to_owned();
            obj.insert(
                "result".into(),
                json!({"content": [{"type": "text", "text": text}], "isError": true}),
            );
            return true;
        }
        let Some(result) = m.get_mut("result") else {
            return false;
        };
        if self.is(Mutation::TextMirrorMismatch) {
            let inner = result
                .get("structuredContent")
                .and_then(|s| s.get("result"))
                .cloned();
            if let Some(inner) = inner {
                set_text(result, &inner.to_string());
                return true;
            }
        }
        if self.is(Mutation::NativeErrorDropped)
            || self.is(Mutation::ListWithoutAcquiredBy)
            || self.is(Mutation::StderrTailDropped)
        {
            let mut edited = false;
            if let Some(inner) = result
                .get_mut("structuredContent")
                .and_then(|s| s.get_mut("result"))
            {
                if self.is(Mutation::NativeErrorDropped)
                    && inner.get("native_error").is_some_and(|e| !e.is_null())
                {
                    inner["native_error"] = Value::Null;
                    edited = true;
                }
                if self.is(Mutation::StderrTailDropped)
                    && let Some(obj) = inner.as_object_mut()
                {
                    edited |= obj.remove("stderr_tail").is_some();
                }
                if self.is(Mutation::ListWithoutAcquiredBy)
                    && let Some(runs) = inner.get_mut("runs").and_then(Value::as_array_mut)
                {
                    for run in runs.iter_mut().filter_map(Value::as_object_mut) {
                        edited |= run.remove("acquired_by").is_some();
                    }
                }
            }
            if edited {
                let mirror = result
                    .get("structuredContent")
                    .map(Value::to_string)
                    .unwrap_or_default();
                set_text(result, &mirror);
            }
            return edited;
        }
        if self.is(Mutation::SucceededWithIsError) {
            let inner = result
                .get_mut("structuredContent")
                .and_then(|s| s.get_mut("result"));
            if let Some(inner) = inner
                && inner.get("state") == Some(&json!("succeeded"))
            {
                inner["is_error"] = json!(true);
                // TOOL-4 stays true: the text mirrors the altered structuredContent.
                let mirror = result
                    .get("structuredContent")
                    .map(Value::to_string)
                    .unwrap_or_default();
                set_text(result, &mirror);
                return true;
            }
        }
        false
    }

    fn resource_answer(&self, uri: &str, m: &mut Value) -> bool {
        if uri != WORK_URI {
            if self.is(Mutation::UnknownResourceEmpty)
                && let Some(obj) = m.as_object_mut()
                && obj.remove("error").is_some()
            {
                obj.insert("result".into(), json!({"contents": []}));
                return true;
            }
            if self.is(Mutation::UnknownResourceWrongCode)
                && let Some(error) = m.get_mut("error").and_then(Value::as_object_mut)
            {
                error.insert("code".into(), json!(-32603));
                return true;
            }
            return false;
        }
        if error_code(m) == Some(-32000) {
            let last = m
                .get("error")
                .and_then(|e| e.get("data"))
                .and_then(|d| d.get("last_revision"))
                .and_then(Value::as_u64);
            if last.is_some() {
                self.state().refused_revision = last;
            }
            return false;
        }
        let Some(result) = m.get_mut("result") else {
            return false;
        };
        if self.is(Mutation::SnapshotRevisionRegress) {
            let refused = self.state().refused_revision.take();
            if let Some(last) = refused {
                return edit_snapshot(result, |snap| {
                    snap["revision"] = json!(last.saturating_sub(1));
                });
            }
        }
        if self.is(Mutation::SnapshotEntryWithoutKind) {
            return edit_snapshot(result, |snap| {
                if let Some(work) = snap.get_mut("work").and_then(Value::as_array_mut) {
                    for entry in work.iter_mut().filter_map(Value::as_object_mut) {
                        entry.remove("kind");
                    }
                }
            });
        }
        if self.is(Mutation::AcquiredByRebind) {
            let latest = self.state().last_invocation.clone();
            if let Some(latest) = latest {
                return edit_snapshot(result, |snap| {
                    if let Some(work) = snap.get_mut("work").and_then(Value::as_array_mut) {
                        for entry in work.iter_mut().filter(|e| e.get("acquired_by").is_some()) {
                            entry["acquired_by"] = json!(latest);
                        }
                    }
                });
            }
        }
        false
    }

    /// Rewrites listings by their shape (whatever request they answer, so a request the proxy
    /// did not track still gets the gateway's stripping): `tools` and `resources` arrays.
    fn listing(&self, result: &mut Value) -> bool {
        let mut changed = false;
        if let Some(tools) = result.get_mut("tools").and_then(Value::as_array_mut) {
            for tool in tools.iter_mut() {
                changed |= self.tool(tool);
            }
        }
        if let Some(resources) = result.get_mut("resources").and_then(Value::as_array_mut) {
            let hide = self.gateway || self.is(Mutation::WorkResourceUnlisted);
            let before = resources.len();
            if hide {
                resources.retain(|r| r.get("uri").and_then(Value::as_str) != Some(WORK_URI));
            }
            changed |= resources.len() != before;
        }
        changed
    }

    /// Rewrites one listed tool.
    fn tool(&self, tool: &mut Value) -> bool {
        let Some(name) = tool.get("name").and_then(Value::as_str).map(str::to_owned) else {
            return false;
        };
        let Some(obj) = tool.as_object_mut() else {
            return false;
        };
        let mut changed = false;
        if self.gateway {
            let keep_cont = self.is(Mutation::GatewayKeepsCancelContinuation)
                && tool_is(&name, "claude.run.cancel");
            if let Some(meta) = meta(obj) {
                changed |= meta.remove(WORK_KEY).is_some();
                if !keep_cont {
                    changed |= meta.remove(CONT_KEY).is_some();
                }
            }
            if let Some(prefix) = &self.prefix {
                obj.insert("name".into(), json!(format!("{prefix}{name}")));
                changed = true;
            } else if self.hex_names {
                obj.insert("name".into(), json!(hex_name(&name)));
                changed = true;
            }
        }
        let Some(mutation) = self.mutation else {
            return changed;
        };
        match mutation {
            Mutation::WrongRisk if tool_is(&name, "claude.run.cancel") => {
                if let Some(m) = meta(obj) {
                    m.insert(RISK_KEY.into(), json!("read-only"));
                    changed = true;
                }
            }
            Mutation::MissingRisk if tool_is(&name, "claude.run.list") => {
                if let Some(m) = meta(obj) {
                    changed |= m.remove(RISK_KEY).is_some();
                }
            }
            Mutation::ReadonlyHintOnFullShell if tool_is(&name, "claude.run") => {
                let annotations = obj.entry("annotations").or_insert_with(|| json!({}));
                if let Some(a) = annotations.as_object_mut() {
                    a.insert("readOnlyHint".into(), json!(true));
                    changed = true;
                }
            }
            Mutation::MissingWorkUri if tool_is(&name, "claude.run.events") => {
                if let Some(w) = meta(obj)
                    .and_then(|m| m.get_mut(WORK_KEY))
                    .and_then(Value::as_object_mut)
                {
                    changed |= w.remove("uri").is_some();
                }
            }
            Mutation::ContinuationBadPointer if tool_is(&name, "claude.run.cancel") => {
                if let Some(c) = meta(obj)
                    .and_then(|m| m.get_mut(CONT_KEY))
                    .and_then(Value::as_object_mut)
                {
                    c.insert("id_pointer".into(), json!("/id"));
                    changed = true;
                }
            }
            Mutation::SchemaNotClosed if tool_is(&name, "claude.run.list") => {
                if let Some(schema) = obj.get_mut("inputSchema").and_then(Value::as_object_mut) {
                    changed |= schema.remove("additionalProperties").is_some();
                }
            }
            Mutation::ContinuationOnList if tool_is(&name, "claude.run.list") => {
                if let Some(m) = meta(obj) {
                    m.insert(
                        CONT_KEY.into(),
                        json!({"format_version": 1, "kind": "claude.run", "id_pointer": "/run_id"}),
                    );
                    changed = true;
                }
            }
            _ => {}
        }
        changed
    }
}

/// Whether an upstream line is a `notifications/progress`.
/// Whether `line` is the answer to a tools/call (a result with a content array).
fn is_call_result(line: &[u8]) -> bool {
    serde_json::from_slice::<Value>(line).is_ok_and(|m| {
        m.get("result")
            .and_then(|r| r.get("content"))
            .is_some_and(Value::is_array)
    })
}

fn is_progress(line: &[u8]) -> bool {
    serde_json::from_slice::<Value>(line)
        .is_ok_and(|m| m.get("method") == Some(&json!("notifications/progress")))
}

/// The opaque name `--hex-names` lists a tool under.
fn hex_name(name: &str) -> String {
    let mut out = String::with_capacity(1 + 2 * name.len());
    out.push('x');
    for b in name.bytes() {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// The upstream name of an opaque name, `None` when it is not one.
fn unhex_name(opaque: &str) -> Option<String> {
    let hex = opaque.strip_prefix('x')?;
    if hex.len() % 2 != 0 {
        return None;
    }
    let bytes = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect::<Option<Vec<u8>>>()?;
    String::from_utf8(bytes).ok()
}

/// The `_meta` object of a listed tool.
fn meta(tool: &mut Map<String, Value>) -> Option<&mut Map<String, Value>> {
    tool.get_mut("_meta").and_then(Value::as_object_mut)
}

/// Sets the text of a tool result's first text block.
fn set_text(result: &mut Value, text: &str) {
    if let Some(block) = result
        .get_mut("content")
        .and_then(Value::as_array_mut)
        .and_then(|c| c.iter_mut().find(|b| b.get("type") == Some(&json!("text"))))
    {
        block["text"] = json!(text);
    }
}

/// Edits the work snapshot held in a resources/read result; returns whether it did.
fn edit_snapshot(result: &mut Value, edit: impl FnOnce(&mut Value)) -> bool {
    let Some(content) = result
        .get_mut("contents")
        .and_then(Value::as_array_mut)
        .and_then(|c| c.first_mut())
    else {
        return false;
    };
    let Some(mut snap) = content
        .get("text")
        .and_then(Value::as_str)
        .and_then(|t| serde_json::from_str::<Value>(t).ok())
    else {
        return false;
    };
    edit(&mut snap);
    content["text"] = json!(snap.to_string());
    true
}

async fn write_line(out: &Out, bytes: &[u8]) -> std::io::Result<()> {
    let mut o = out.lock().await;
    o.write_all(bytes).await?;
    o.write_all(b"\n").await?;
    o.flush().await
}

/// A piece of client input, after framing.
enum Piece {
    Line(Vec<u8>),
    /// Raw bytes of a line too long to inspect (passed through as they come).
    Raw(Vec<u8>),
}

/// Client → upstream: bounded framing (or, mutation `unbounded-frame-read`, whole lines read
/// into memory). Returns at stdin EOF, dropping the upstream's stdin so it sees EOF too.
async fn client_to_upstream(proxy: Arc<Proxy>, mut upstream: ChildStdin, out: Out) {
    let result = if proxy.is(Mutation::UnboundedFrameRead) {
        unbounded_reader(&proxy, &mut upstream, &out).await
    } else {
        bounded_reader(&proxy, &mut upstream, &out).await
    };
    if let Err(e) = result {
        eprintln!("mcp_proxy: client → upstream: {e}");
    }
}

async fn bounded_reader(
    proxy: &Proxy,
    upstream: &mut ChildStdin,
    out: &Out,
) -> std::io::Result<()> {
    let mut stdin = tokio::io::stdin();
    let mut decoder = FrameDecoder::new(C2S_FRAME);
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = stdin.read(&mut buf).await?;
        let mut pieces = Vec::new();
        let mut sink = |ev: DecodeEvent<'_>| match ev {
            DecodeEvent::Line(l) => pieces.push(Piece::Line(l.to_vec())),
            DecodeEvent::OversizedStart => {}
            DecodeEvent::OversizedChunk(c) => pieces.push(Piece::Raw(c.to_vec())),
            DecodeEvent::OversizedEnd { .. } => pieces.push(Piece::Raw(b"\n".to_vec())),
        };
        if n == 0 {
            decoder.finish(&mut sink);
        } else {
            decoder.decode(&buf[..n], &mut sink);
        }
        for piece in pieces {
            match piece {
                Piece::Line(l) => forward_line(proxy, upstream, out, &l).await?,
                Piece::Raw(r) => upstream.write_all(&r).await?,
            }
        }
        upstream.flush().await?;
        if n == 0 {
            return Ok(());
        }
    }
}

/// The deliberate bug of `unbounded-frame-read`: a whole line is held in memory, however long.
async fn unbounded_reader(
    proxy: &Proxy,
    upstream: &mut ChildStdin,
    out: &Out,
) -> std::io::Result<()> {
    let mut stdin = BufReader::new(tokio::io::stdin());
    loop {
        let mut line = Vec::new();
        if stdin.read_until(b'\n', &mut line).await? == 0 {
            return Ok(());
        }
        if line.last() == Some(&b'\n') {
            line.pop();
        }
        if line.len() > C2S_FRAME {
            upstream.write_all(&line).await?;
            upstream.write_all(b"\n").await?;
        } else {
            forward_line(proxy, upstream, out, &line).await?;
        }
        upstream.flush().await?;
    }
}

async fn forward_line(
    proxy: &Proxy,
    upstream: &mut ChildStdin,
    out: &Out,
    line: &[u8],
) -> std::io::Result<()> {
    let (lines, answers) = proxy.client_line(line);
    for l in lines {
        upstream.write_all(&l).await?;
        upstream.write_all(b"\n").await?;
    }
    for a in answers {
        write_line(out, a.to_string().as_bytes()).await?;
    }
    Ok(())
}

/// Upstream → client: bounded framing; an oversized line streams through untouched while the
/// client's stdout is held, so nothing interleaves with it.
async fn upstream_to_client(proxy: Arc<Proxy>, mut upstream: ChildStdout, out: Out) {
    if let Err(e) = upstream_reader(&proxy, &mut upstream, &out).await {
        eprintln!("mcp_proxy: upstream → client: {e}");
    }
}

enum Up {
    Line(Vec<u8>),
    Start,
    Chunk(Vec<u8>),
    End,
}

async fn upstream_reader(
    proxy: &Proxy,
    upstream: &mut (impl AsyncRead + Unpin),
    out: &Out,
) -> std::io::Result<()> {
    let mut decoder = FrameDecoder::new(S2C_FRAME);
    let mut buf = vec![0u8; 64 * 1024];
    let mut held: Option<OwnedMutexGuard<tokio::io::Stdout>> = None;
    loop {
        let n = upstream.read(&mut buf).await?;
        let mut pieces = Vec::new();
        let mut sink = |ev: DecodeEvent<'_>| match ev {
            DecodeEvent::Line(l) => pieces.push(Up::Line(l.to_vec())),
            DecodeEvent::OversizedStart => pieces.push(Up::Start),
            DecodeEvent::OversizedChunk(c) => pieces.push(Up::Chunk(c.to_vec())),
            DecodeEvent::OversizedEnd { .. } => pieces.push(Up::End),
        };
        if n == 0 {
            decoder.finish(&mut sink);
        } else {
            decoder.decode(&buf[..n], &mut sink);
        }
        for piece in pieces {
            match piece {
                Up::Line(l) => {
                    if let Some(bytes) = proxy.upstream_line(&l) {
                        write_line(out, &bytes).await?;
                    }
                }
                Up::Start => held = Some(out.clone().lock_owned().await),
                Up::Chunk(c) => {
                    if let Some(o) = held.as_mut() {
                        o.write_all(&c).await?;
                    }
                }
                Up::End => {
                    if let Some(mut o) = held.take() {
                        o.write_all(b"\n").await?;
                        o.flush().await?;
                    }
                }
            }
        }
        if n == 0 {
            return Ok(());
        }
    }
}

/// Why the proxy is ending.
enum End {
    /// The upstream exited (on its own or after stdin EOF).
    Exited(ExitStatus),
    /// The upstream did not exit within [`EOF_WAIT`] of stdin EOF.
    Stuck,
    /// A termination signal.
    Signal(i32),
}

/// SIGTERM to the upstream, a grace, then SIGKILL; always reaped. Returns the upstream's status
/// when it exited on its own within the grace.
async fn terminate(child: &mut Child) -> Option<ExitStatus> {
    if let Some(pid) = child.id().and_then(|p| i32::try_from(p).ok()) {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(pid),
            nix::sys::signal::Signal::SIGTERM,
        );
    }
    match tokio::time::timeout(TERM_GRACE, child.wait()).await {
        Ok(status) => status.ok(),
        Err(_) => {
            let _ = child.kill().await;
            None
        }
    }
}

async fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let Some((program, args)) = cli.upstream.split_first() else {
        anyhow::bail!("no upstream command");
    };
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| anyhow::anyhow!("cannot start {}: {e}", program.to_string_lossy()))?;
    let (Some(up_in), Some(up_out)) = (child.stdin.take(), child.stdout.take()) else {
        anyhow::bail!("the upstream's stdio is not piped");
    };
    let proxy = Arc::new(Proxy {
        gateway: cli.gateway,
        prefix: cli.prefix,
        hex_names: cli.hex_names,
        mutation: cli.mutate,
        state: Mutex::default(),
    });
    let out: Out = Arc::new(tokio::sync::Mutex::new(tokio::io::stdout()));
    if proxy.is(Mutation::StdoutBanner) {
        write_line(&out, b"mcp_proxy: ready").await?;
    }
    if proxy.is(Mutation::StdoutJsonLog) {
        write_line(&out, br#"{"level":"info","message":"mcp_proxy ready"}"#).await?;
    }
    let mut c2s = tokio::spawn(client_to_upstream(proxy.clone(), up_in, out.clone()));
    let mut s2c = tokio::spawn(upstream_to_client(proxy.clone(), up_out, out.clone()));
    let mut term = signal(SignalKind::terminate())?;
    let mut int = signal(SignalKind::interrupt())?;
    let mut hup = signal(SignalKind::hangup())?;
    let mut stdin_closed = false;
    // Armed at stdin EOF; until then far in the future.
    let eof_timer = tokio::time::sleep(Duration::from_secs(365 * 24 * 3600));
    tokio::pin!(eof_timer);
    let end = loop {
        tokio::select! {
            status = child.wait() => break status.map_or(End::Stuck, End::Exited),
            _ = &mut c2s, if !stdin_closed => {
                // T8: the upstream saw EOF too; give it time to cancel its runs and exit.
                stdin_closed = true;
                eof_timer.as_mut().reset(tokio::time::Instant::now() + EOF_WAIT);
            }
            () = &mut eof_timer, if stdin_closed => break End::Stuck,
            _ = term.recv() => break End::Signal(libc::SIGTERM),
            _ = int.recv() => break End::Signal(libc::SIGINT),
            _ = hup.recv() => break End::Signal(libc::SIGHUP),
        }
    };
    let terminated = if matches!(end, End::Exited(_)) {
        None
    } else {
        terminate(&mut child).await
    };
    c2s.abort();
    if tokio::time::timeout(DRAIN, &mut s2c).await.is_err() {
        s2c.abort();
    }
    let _ = out.lock().await.flush().await;
    Ok(match end {
        End::Exited(_) if stdin_closed && proxy.is(Mutation::EofExitNonzero) => ExitCode::from(1),
        End::Exited(status) => ExitCode::from(
            status
                .code()
                .and_then(|c| u8::try_from(c).ok())
                .unwrap_or(1),
        ),
        End::Stuck => ExitCode::from(1),
        End::Signal(libc::SIGTERM) if proxy.is(Mutation::SigtermExitNonzero) => ExitCode::from(1),
        // T8 / C-T8: SIGTERM or SIGINT is a clean shutdown; an upstream that ended cleanly on
        // the forwarded SIGTERM makes the proxy's exit clean too (status 0).
        End::Signal(libc::SIGTERM | libc::SIGINT) if terminated.is_some_and(|s| s.success()) => {
            ExitCode::SUCCESS
        }
        End::Signal(sig) => ExitCode::from(u8::try_from(128 + sig).unwrap_or(1)),
    })
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("mcp_proxy: cannot start the runtime: {e}");
            return ExitCode::from(2);
        }
    };
    let code = match runtime.block_on(run(cli)) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("mcp_proxy: {e:#}");
            ExitCode::from(2)
        }
    };
    // tokio's stdin is a blocking read on a pool thread that cannot be cancelled: do not wait
    // for it (the upstream is already reaped).
    runtime.shutdown_background();
    code
}
