//! A stdio MCP client of the built adapter with a fully controlled environment, for making the
//! golden recordings (`BLESS`) and the real-claude and model tests.
//!
//! It drives a [`Session`] (the spawn, reader threads and group kill of `support`) started with
//! a *cleared* environment plus exactly the variables given: the adapter passes its environment
//! on to the native CLI (NAT-7), so a key or base URL of the developer's shell must never reach
//! a real `claude` run from a test. Unlike `Session`'s own receiving, it keeps every stdout
//! message in arrival order (the replay compares them all) and never panics on what the adapter
//! sends: a line that is not JSON is kept as a string.

use std::ffi::OsString;
use std::path::Path;
use std::process::ExitStatus;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::{Adapter, Session, is_response_to};

/// The variables of the test's own environment a fake-claude session keeps (everything else is
/// cleared; `HOME` is set by the caller).
pub const BASE_ENV: [&str; 4] = ["PATH", "TMPDIR", "LANG", "TZ"];

/// [`BASE_ENV`] as found in this process.
#[must_use]
pub fn base_env() -> Vec<(OsString, OsString)> {
    BASE_ENV
        .iter()
        .filter_map(|k| std::env::var_os(k).map(|v| ((*k).into(), v)))
        .collect()
}

/// A running adapter and the client side of its stdio.
pub struct Client {
    session: Session,
    /// Every stdout message so far, in arrival order (a non-JSON line as a JSON string).
    pub received: Vec<Value>,
    next_id: i64,
}

impl Client {
    /// Starts the adapter with `args`, a cleared environment plus `env`, in its own process
    /// group; with `record`, `--record FILE` is added.
    #[must_use]
    pub fn spawn(args: &[OsString], env: &[(OsString, OsString)], record: Option<&Path>) -> Self {
        let mut adapter = Adapter::new().clear_env().args(args);
        for (k, v) in env {
            adapter = adapter.env(k, v);
        }
        if let Some(r) = record {
            adapter = adapter.arg("--record").arg(r);
        }
        Self {
            session: adapter.spawn(),
            received: Vec::new(),
            next_id: 0,
        }
    }

    /// Whether the adapter process is still running.
    pub fn is_running(&mut self) -> bool {
        self.session.wait_exit(Duration::ZERO).is_none()
    }

    /// Writes one line (a newline is appended). A write error (the adapter is gone) is ignored:
    /// the transcript then shows what was missing.
    pub fn send_line(&mut self, line: &[u8]) {
        let mut bytes = line.to_vec();
        bytes.push(b'\n');
        let _ = self.session.try_send_raw(&bytes);
    }

    /// Sends one JSON message.
    pub fn send(&mut self, msg: &Value) {
        self.send_line(msg.to_string().as_bytes());
    }

    /// Receives what is available within `wait` into [`Client::received`]; `false` when nothing
    /// came (timeout or EOF).
    pub fn pump(&mut self, wait: Duration) -> bool {
        let Some(line) = self.session.recv_line(wait) else {
            return false;
        };
        self.received.push(parse(&line));
        while let Some(line) = self.session.recv_line(Duration::ZERO) {
            self.received.push(parse(&line));
        }
        true
    }

    /// The response (result or error) with `id`, if it has arrived.
    #[must_use]
    pub fn response(&self, id: &Value) -> Option<&Value> {
        self.received.iter().find(|m| is_response_to(m, id))
    }

    /// Waits up to `bound` for the response with `id`.
    pub fn wait_response(&mut self, id: &Value, bound: Duration) -> Option<Value> {
        let deadline = Instant::now() + bound;
        loop {
            if let Some(r) = self.response(id) {
                return Some(r.clone());
            }
            let left = deadline.checked_duration_since(Instant::now())?;
            self.pump(left.min(Duration::from_millis(50)));
        }
    }

    /// Sends a request with a fresh id and waits up to `bound` for its response; panics when
    /// none came.
    pub fn call(&mut self, method: &str, params: Option<Value>, bound: Duration) -> Value {
        self.next_id += 1;
        let id = json!(self.next_id);
        let mut m = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if let Some(p) = params {
            m["params"] = p;
        }
        self.send(&m);
        self.wait_response(&id, bound).unwrap_or_else(|| {
            panic!(
                "no answer to {method} within {bound:?}; adapter stderr:\n{}",
                self.stderr_text()
            )
        })
    }

    /// Sends a notification.
    pub fn notify(&mut self, method: &str, params: Option<Value>) {
        let mut m = json!({"jsonrpc": "2.0", "method": method});
        if let Some(p) = params {
            m["params"] = p;
        }
        self.send(&m);
    }

    /// `initialize` (2025-06-18) then `notifications/initialized`; panics unless it succeeded.
    pub fn init(&mut self) -> Value {
        let resp = self.call(
            "initialize",
            Some(json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "claude-mcp-kit-recordings", "version": "0"}
            })),
            Duration::from_secs(20),
        );
        assert!(resp.get("result").is_some(), "initialize failed: {resp}");
        self.notify("notifications/initialized", None);
        resp
    }

    /// `tools/call` of `tool` with `args` (and `_meta` when given); returns the tool result and
    /// panics on a protocol error.
    pub fn tool(&mut self, tool: &str, args: Value, meta: Option<Value>, bound: Duration) -> Value {
        let mut params = json!({"name": tool, "arguments": args});
        if let Some(m) = meta {
            params["_meta"] = m;
        }
        let resp = self.call("tools/call", Some(params), bound);
        let result = resp
            .get("result")
            .cloned()
            .unwrap_or_else(|| panic!("tools/call {tool} answered with a protocol error: {resp}"));
        // TOOL-6: the result conforms to the tool's outputSchema (real CLI runs included).
        if let Err(e) = super::outputs::check(tool, &result) {
            panic!("{e}");
        }
        result
    }

    /// Closes the adapter's stdin (EOF: the adapter cancels what runs and exits, T8).
    pub fn close_stdin(&mut self) {
        self.session.close_stdin();
    }

    /// Waits up to `bound` for the adapter to exit, then collects what it still wrote (the
    /// reader thread buffers stdout, so the adapter never blocks on it meanwhile).
    pub fn wait_exit(&mut self, bound: Duration) -> Option<ExitStatus> {
        let status = self.session.wait_exit(bound)?;
        // The reader thread ends at EOF; take what it still holds.
        while self.pump(Duration::from_millis(200)) {}
        Some(status)
    }

    /// The adapter's stderr so far (its tail), lossily decoded.
    #[must_use]
    pub fn stderr_text(&self) -> String {
        self.session.stderr_text()
    }
}

fn parse(line: &[u8]) -> Value {
    let text = line.strip_suffix(b"\n").unwrap_or(line);
    serde_json::from_slice(text)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(text).into_owned()))
}

/// What a tool result's text block holds (TOOL-4), parsed: `structuredContent` with a run's
/// `final` reduced to its scalar members (object- and array-valued ones left out).
#[must_use]
pub fn text_mirror(structured_content: &Value) -> Value {
    let mut text = structured_content.clone();
    if let Some(Value::Object(fin)) = text.get_mut("result").and_then(|r| r.get_mut("final")) {
        fin.retain(|_, v| !v.is_object() && !v.is_array());
    }
    text
}

/// `structuredContent.result` of a tool result (TOOL-4).
#[must_use]
pub fn structured(tool_result: &Value) -> &Value {
    &tool_result["structuredContent"]["result"]
}
