//! A raw stdio MCP session against the built adapter binary, shared by every test module.
//!
//! [`Adapter`] configures a spawn (extra args, env, a PATH whose `claude` is fake-claude);
//! [`Session`] drives it: send raw bytes or JSON values, receive the next stdout message with a
//! timeout (a reader thread feeds a channel, so a test never hangs on a silent server), wait for
//! a response by id while collecting notifications, and close, signal or kill the adapter. The
//! adapter runs in its own process group, killed with SIGKILL when the session drops.
//!
//! fake-claude and fake-cursor-agent are workspace binaries: `cargo test --workspace` builds them
//! next to the adapter (`target/<profile>/fake-claude`, `…/fake-cursor-agent`). With
//! `cargo test -p claude-mcp-adapter` alone, build them first (`cargo build -p fake-claude
//! -p fake-cursor-agent`); [`fake_claude_bin`] and [`fake_cursor_bin`] say so when missing.
//! [`FakeCursorLog`] is the fake agent's `FAKE_CURSOR_LOG` in a temporary directory, read back.

#![allow(
    dead_code,
    reason = "shared helpers: not every test module uses every helper"
)]

use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

pub mod client;
pub mod family;
pub mod outputs;

/// Generous bound for anything a test waits on (shared, slow machine): only to avoid hangs.
pub const TIMEOUT: Duration = Duration::from_secs(20);

/// The most stderr a session keeps (the tail), so a chatty adapter cannot grow the test.
const STDERR_KEEP: usize = 1 << 20;

/// The built adapter binary.
#[must_use]
pub fn adapter_bin() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_claude-mcp-adapter"))
}

/// The adapter binary for an `assert_cmd` check of its command line (usage errors, exit
/// statuses, stderr). Its stdin is an empty pipe closed at once (assert_cmd's own), so the server
/// mode ends at once too.
#[must_use]
pub fn adapter_cli() -> assert_cmd::Command {
    assert_cmd::Command::new(adapter_bin())
}

/// The built fake-claude binary, next to the adapter binary. Panics with instructions when it has
/// not been built.
#[must_use]
pub fn fake_claude_bin() -> PathBuf {
    let p = adapter_bin().with_file_name("fake-claude");
    assert!(
        p.is_file(),
        "fake-claude is not built at {}: run `cargo build -p fake-claude` (or test the workspace)",
        p.display()
    );
    p
}

/// A temporary directory holding a `claude` symlink to fake-claude, to put first on PATH.
#[must_use]
pub fn fake_claude_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::os::unix::fs::symlink(fake_claude_bin(), dir.path().join("claude"))
        .expect("symlink claude -> fake-claude");
    dir
}

/// The built fake-cursor-agent binary, next to the adapter binary. Panics with instructions when
/// it has not been built.
#[must_use]
pub fn fake_cursor_bin() -> PathBuf {
    let p = adapter_bin().with_file_name("fake-cursor-agent");
    assert!(
        p.is_file(),
        "fake-cursor-agent is not built at {}: run `cargo build -p fake-cursor-agent` (or test \
         the workspace)",
        p.display()
    );
    p
}

/// A temporary directory holding a `cursor-agent` symlink to fake-cursor-agent, to put first on
/// PATH (the adapter's default `--cursor` is `cursor-agent` looked up on PATH).
#[must_use]
pub fn fake_cursor_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::os::unix::fs::symlink(fake_cursor_bin(), dir.path().join("cursor-agent"))
        .expect("symlink cursor-agent -> fake-cursor-agent");
    dir
}

/// fake-cursor-agent's log (`FAKE_CURSOR_LOG`, JSON Lines) in a temporary directory of its own:
/// every process start (argv, pgid, environment) and every line the client sent.
#[derive(Debug)]
pub struct FakeCursorLog {
    dir: tempfile::TempDir,
}

impl FakeCursorLog {
    /// A log file path in a fresh temporary directory (the file appears at the fake's first
    /// start).
    #[must_use]
    pub fn new() -> Self {
        Self {
            dir: tempfile::tempdir().expect("temp dir"),
        }
    }

    /// The file to pass as `FAKE_CURSOR_LOG`.
    #[must_use]
    pub fn path(&self) -> PathBuf {
        self.dir.path().join("fake-cursor.jsonl")
    }

    /// The directory the log lives in (for other files a test needs, e.g. scripts).
    #[must_use]
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// Every record so far.
    #[must_use]
    pub fn records(&self) -> Vec<Value> {
        std::fs::read_to_string(self.path())
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).expect("a fake-cursor-agent log record is JSON"))
            .collect()
    }

    /// The `start` records of ACP processes (argv holding `acp`), not of `--version` checks.
    #[must_use]
    pub fn agent_starts(&self) -> Vec<Value> {
        self.records()
            .into_iter()
            .filter(|r| r["event"] == "start")
            .filter(|r| {
                r["argv"]
                    .as_array()
                    .is_some_and(|a| a.iter().any(|x| x == "acp"))
            })
            .collect()
    }

    /// The `start` records of `--version` checks.
    #[must_use]
    pub fn version_checks(&self) -> Vec<Value> {
        self.records()
            .into_iter()
            .filter(|r| r["event"] == "start" && r["argv"] == json!(["--version"]))
            .collect()
    }

    /// Every line the client sent, parsed (`Null` for a line that is not JSON).
    #[must_use]
    pub fn sent(&self) -> Vec<Value> {
        self.records()
            .into_iter()
            .filter(|r| r["event"] == "c2a")
            .map(|r| {
                serde_json::from_str(r["raw"].as_str().unwrap_or_default()).unwrap_or_default()
            })
            .collect()
    }

    /// The client's requests and notifications with this method, in order.
    #[must_use]
    pub fn sent_method(&self, method: &str) -> Vec<Value> {
        self.sent()
            .into_iter()
            .filter(|m| m["method"] == method)
            .collect()
    }

    /// ACP-2, ACP-4: the client never sent `authenticate`, and every option it selected in
    /// answer to a `session/request_permission` was one the agent offered, of a kind other than
    /// `allow_always` / `reject_always` (by the offered option's `kind`, as the agent's logged
    /// `a2c` lines show it; the option's id is checked too, for an answer whose request the log
    /// lacks).
    pub fn assert_never_authenticated_nor_always(&self) {
        let records = self.records();
        // Every permission request the agent wrote: its id, then each offered (optionId, kind).
        // Runs of one test may reuse request ids, so an id can have several offers.
        let mut offers: Vec<(Value, Vec<(String, String)>)> = Vec::new();
        for r in records.iter().filter(|r| r["event"] == "a2c") {
            for line in r["raw"].as_str().unwrap_or_default().lines() {
                let Ok(m) = serde_json::from_str::<Value>(line) else {
                    continue;
                };
                if m["method"] != "session/request_permission" {
                    continue;
                }
                let options = m["params"]["options"]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .map(|o| {
                                let field = |k: &str| o[k].as_str().unwrap_or_default().to_owned();
                                (field("optionId"), field("kind"))
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                offers.push((m["id"].clone(), options));
            }
        }
        for r in records.iter().filter(|r| r["event"] == "c2a") {
            let raw = r["raw"].as_str().unwrap_or_default();
            let m: Value = serde_json::from_str(raw).unwrap_or_default();
            assert_ne!(
                m["method"], "authenticate",
                "ACP-2: authenticate was sent: {raw}"
            );
            let Some(selected) = m["result"]["outcome"]["optionId"].as_str() else {
                continue;
            };
            assert!(
                !selected.contains("always"),
                "ACP-4: an always option was selected: {raw}"
            );
            let kinds: Vec<&str> = offers
                .iter()
                .filter(|(id, _)| *id == m["id"])
                .flat_map(|(_, options)| options.iter())
                .filter(|(option, _)| option == selected)
                .map(|(_, kind)| kind.as_str())
                .collect();
            let asked = offers.iter().any(|(id, _)| *id == m["id"]);
            assert!(
                !asked || !kinds.is_empty(),
                "ACP-4: the client selected an option the agent never offered: {raw}"
            );
            for kind in kinds {
                assert!(
                    !kind.ends_with("_always"),
                    "ACP-4: an option of kind {kind} was selected: {raw}"
                );
            }
        }
    }
}

impl Default for FakeCursorLog {
    fn default() -> Self {
        Self::new()
    }
}

/// How to start the adapter.
#[derive(Debug, Default)]
pub struct Adapter {
    args: Vec<OsString>,
    env: Vec<(OsString, OsString)>,
    fake_claude: bool,
    fake_cursor: bool,
    clear_env: bool,
    env_remove: Vec<OsString>,
}

impl Adapter {
    /// The adapter with no extra arguments and the test's environment.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a command-line argument.
    #[must_use]
    pub fn arg(mut self, a: impl AsRef<OsStr>) -> Self {
        self.args.push(a.as_ref().to_owned());
        self
    }

    /// Adds several command-line arguments.
    #[must_use]
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_owned()));
        self
    }

    /// Sets an environment variable for the adapter (and so for the native CLI it runs).
    #[must_use]
    pub fn env(mut self, k: impl AsRef<OsStr>, v: impl AsRef<OsStr>) -> Self {
        self.env
            .push((k.as_ref().to_owned(), v.as_ref().to_owned()));
        self
    }

    /// Removes an environment variable the test process has from the adapter's environment.
    #[must_use]
    pub fn env_remove(mut self, k: impl AsRef<OsStr>) -> Self {
        self.env_remove.push(k.as_ref().to_owned());
        self
    }

    /// Starts the adapter with a cleared environment: only what [`Adapter::env`] sets (and the
    /// PATH of [`Adapter::fake_claude`]). The adapter passes its environment on to the native CLI
    /// (NAT-7), so a test of the real `claude` must not leak a key or base URL of the caller's.
    #[must_use]
    pub fn clear_env(mut self) -> Self {
        self.clear_env = true;
        self
    }

    /// Puts a directory whose `claude` is fake-claude first on PATH (kept alive by the session).
    #[must_use]
    pub fn fake_claude(mut self) -> Self {
        self.fake_claude = true;
        self
    }

    /// Puts a directory whose `cursor-agent` is fake-cursor-agent first on PATH (kept alive by
    /// the session).
    #[must_use]
    pub fn fake_cursor(mut self) -> Self {
        self.fake_cursor = true;
        self
    }

    /// Starts the adapter in its own process group with piped stdio.
    #[must_use]
    pub fn spawn(self) -> Session {
        let mut cmd = Command::new(adapter_bin());
        cmd.args(&self.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        if self.clear_env {
            cmd.env_clear();
        }
        for k in &self.env_remove {
            cmd.env_remove(k);
        }
        let fake_dirs: Vec<tempfile::TempDir> = [
            self.fake_claude.then(fake_claude_dir),
            self.fake_cursor.then(fake_cursor_dir),
        ]
        .into_iter()
        .flatten()
        .collect();
        if !fake_dirs.is_empty() {
            let mut path = OsString::new();
            for dir in &fake_dirs {
                path.push(dir.path());
                path.push(":");
            }
            match std::env::var_os("PATH") {
                Some(old) => path.push(old),
                None => path.push("/usr/bin:/bin"),
            }
            cmd.env("PATH", path);
        }
        // A tree `cli-tree refresh` left in the developer's own configuration directory must not
        // change what the tests see: unless a test sets its own, the adapter looks in none.
        cmd.env("XDG_CONFIG_HOME", "/nonexistent/cmk-tests-config");
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("spawn the adapter");
        let stdout = child.stdout.take().expect("stdout piped");
        let stderr = child.stderr.take().expect("stderr piped");
        let stdin = child.stdin.take();

        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            loop {
                let mut line = Vec::new();
                match r.read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        if tx.send(line).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        let err_buf = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&err_buf);
        std::thread::spawn(move || {
            let mut r = stderr;
            let mut chunk = [0u8; 8192];
            while let Ok(n) = r.read(&mut chunk) {
                if n == 0 {
                    break;
                }
                let mut b = sink.lock().expect("stderr lock");
                b.extend_from_slice(&chunk[..n]);
                if b.len() > STDERR_KEEP {
                    let cut = b.len() - STDERR_KEEP;
                    b.drain(..cut);
                }
            }
        });
        Session {
            child,
            stdin,
            stdout: rx,
            stderr: err_buf,
            stash: VecDeque::new(),
            notifications: Vec::new(),
            next_id: 1000,
            tool_calls: Vec::new(),
            _fake_dirs: fake_dirs,
        }
    }
}

/// A running adapter and the client side of its stdio.
pub struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: Receiver<Vec<u8>>,
    stderr: Arc<Mutex<Vec<u8>>>,
    /// Messages received but not yet claimed (responses to other ids).
    stash: VecDeque<Value>,
    /// Notifications seen while waiting for responses, in arrival order.
    pub notifications: Vec<Value>,
    next_id: i64,
    /// `tools/call` requests awaiting their answer: `(id, tool name)`, for [`outputs::check`].
    tool_calls: Vec<(Value, String)>,
    _fake_dirs: Vec<tempfile::TempDir>,
}

impl Session {
    /// Spawns the adapter with default options.
    #[must_use]
    pub fn start() -> Self {
        Adapter::new().spawn()
    }

    /// The adapter's pid (= its process group id), e.g. for `/proc/PID/status` sampling.
    #[must_use]
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Writes raw bytes to the adapter's stdin and flushes. Returns the write error, if any
    /// (e.g. a broken pipe after the adapter exited).
    pub fn try_send_raw(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| std::io::Error::other("stdin already closed"))?;
        stdin.write_all(bytes)?;
        stdin.flush()
    }

    /// Writes raw bytes to the adapter's stdin; panics when that fails.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.try_send_raw(bytes).expect("write to the adapter");
    }

    /// Sends one JSON value as a line. The `tools/call` requests in it (one message or a batch)
    /// get their answers checked against their tools' outputSchemas ([`outputs`]).
    pub fn send(&mut self, msg: &Value) {
        self.expect_answers_to(msg);
        let mut bytes = msg.to_string().into_bytes();
        bytes.push(b'\n');
        self.send_raw(&bytes);
    }

    /// Sends a request with a fresh integer id and returns that id.
    pub fn request(&mut self, method: &str, params: Option<Value>) -> Value {
        self.next_id += 1;
        let id = json!(self.next_id);
        self.request_with_id(&id, method, params);
        id
    }

    /// Sends a request with the given id.
    pub fn request_with_id(&mut self, id: &Value, method: &str, params: Option<Value>) {
        let mut m = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if let Some(p) = params {
            m["params"] = p;
        }
        self.send(&m);
    }

    /// Sends a notification.
    pub fn notify(&mut self, method: &str, params: Option<Value>) {
        let mut m = json!({"jsonrpc": "2.0", "method": method});
        if let Some(p) = params {
            m["params"] = p;
        }
        self.send(&m);
    }

    /// The next stdout line as bytes (with its newline), or `None` after `timeout` or at EOF.
    pub fn recv_line(&mut self, timeout: Duration) -> Option<Vec<u8>> {
        // Timeout and EOF (the reader thread ended) both mean "nothing came".
        self.stdout.recv_timeout(timeout).ok()
    }

    /// The next stdout message (stashed ones first), or `None` after `timeout` or at EOF.
    /// Panics when stdout carries a line that is not one JSON value (T1), or an answer to a
    /// `tools/call` sent through [`Session::send`] that does not conform to its outputSchema.
    pub fn recv(&mut self, timeout: Duration) -> Option<Value> {
        let msg = match self.stash.pop_front() {
            Some(v) => v,
            None => parse_line(&self.recv_line(timeout)?),
        };
        self.check_answer(&msg);
        Some(msg)
    }

    /// Registers the `tools/call` requests in `sent` (one message or a batch), so their answers
    /// get the outputSchema check wherever they are received ([`Session::recv`],
    /// [`Session::response`], [`Session::check_answer`]). [`Session::send`] does this itself; a
    /// test that writes a request as raw bytes calls it with the parsed request.
    pub fn expect_answers_to(&mut self, sent: &Value) {
        let one = |m: &Value| {
            let name = m.get("params")?.get("name")?.as_str()?;
            (m.get("method")? == "tools/call").then(|| (m.get("id").cloned(), name.to_owned()))
        };
        let calls: Vec<(Option<Value>, String)> = match sent {
            Value::Array(batch) => batch.iter().filter_map(one).collect(),
            m => one(m).into_iter().collect(),
        };
        for (id, name) in calls {
            if let Some(id) = id {
                self.tool_calls.push((id, name));
            }
        }
    }

    /// TOOL-6: checks the answers in `answer` (one response or a batch of them) to registered
    /// `tools/call` requests against their tools' outputSchemas; panics on a non-conforming one.
    /// For answers a test read as raw bytes ([`Session::recv_line`]).
    pub fn check_answer(&mut self, answer: &Value) {
        match answer {
            Value::Array(batch) => {
                for entry in batch {
                    self.check_output(entry);
                }
            }
            msg => self.check_output(msg),
        }
    }

    /// Like [`Session::recv`] with [`TIMEOUT`], panicking when nothing arrives.
    pub fn recv_expect(&mut self) -> Value {
        match self.recv(TIMEOUT) {
            Some(v) => v,
            None => panic!(
                "no message from the adapter; stderr:\n{}",
                self.stderr_text()
            ),
        }
    }

    /// Waits for the response (result or error) with `id`, stashing other responses and
    /// collecting notifications into [`Session::notifications`]. Panics after [`TIMEOUT`].
    pub fn response(&mut self, id: &Value) -> Value {
        self.response_within(id, TIMEOUT)
            .unwrap_or_else(|| panic!("no response to id {id}; stderr:\n{}", self.stderr_text()))
    }

    /// [`Session::response`] with an explicit bound; `None` when it did not come in time.
    /// Every `tools/call` result is checked against its tool's outputSchema ([`outputs`]).
    pub fn response_within(&mut self, id: &Value, timeout: Duration) -> Option<Value> {
        if let Some(pos) = self.stash.iter().position(|m| is_response_to(m, id)) {
            let msg = self.stash.remove(pos)?;
            self.check_output(&msg);
            return Some(msg);
        }
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.checked_duration_since(Instant::now())?;
            let line = self.recv_line(left)?;
            let msg = parse_line(&line);
            if is_response_to(&msg, id) {
                self.check_output(&msg);
                return Some(msg);
            }
            if msg.get("method").is_some() && msg.get("id").is_none() {
                self.notifications.push(msg);
            } else {
                self.stash.push_back(msg);
            }
        }
    }

    /// TOOL-6: a `tools/call` result conforms to its tool's outputSchema.
    fn check_output(&mut self, msg: &Value) {
        if msg.get("method").is_some() {
            return; // A request or notification from the server, not an answer.
        }
        let Some(id) = msg.get("id") else { return };
        let Some(pos) = self.tool_calls.iter().position(|(i, _)| i == id) else {
            return;
        };
        let (_, tool) = self.tool_calls.swap_remove(pos);
        if let Some(result) = msg.get("result")
            && let Err(e) = outputs::check(&tool, result)
        {
            panic!("{e}");
        }
    }

    /// Sends a request and waits for its response message.
    pub fn call(&mut self, method: &str, params: Option<Value>) -> Value {
        let id = self.request(method, params);
        self.response(&id)
    }

    /// Sends `initialize` proposing `version` (`None`: no `protocolVersion` at all; any JSON,
    /// e.g. a number, otherwise), then `notifications/initialized`. Returns the response message.
    pub fn initialize(&mut self, version: Option<Value>) -> Value {
        let mut params = json!({
            "capabilities": {},
            "clientInfo": {"name": "adapter-it", "version": "0"}
        });
        if let Some(v) = version {
            params["protocolVersion"] = v;
        }
        let resp = self.call("initialize", Some(params));
        self.notify("notifications/initialized", None);
        resp
    }

    /// `initialize` proposing `2025-06-18`; panics unless it succeeded.
    pub fn init(&mut self) -> Value {
        let resp = self.initialize(Some(json!("2025-06-18")));
        assert!(resp.get("result").is_some(), "initialize failed: {resp}");
        resp
    }

    /// Sends `tools/call` and returns the whole response message (result or JSON-RPC error).
    pub fn call_tool_response(&mut self, name: &str, args: Value, meta: Option<Value>) -> Value {
        let mut params = json!({"name": name, "arguments": args});
        if let Some(m) = meta {
            params["_meta"] = m;
        }
        self.call("tools/call", Some(params))
    }

    /// Sends `tools/call` and returns its `result` (a tool result, `isError` or not); panics when
    /// the answer was a JSON-RPC error.
    pub fn call_tool(&mut self, name: &str, args: Value, meta: Option<Value>) -> Value {
        let resp = self.call_tool_response(name, args, meta);
        match resp.get("result") {
            Some(r) => r.clone(),
            None => panic!("tools/call {name} answered with a protocol error: {resp}"),
        }
    }

    /// Closes the adapter's stdin (EOF, T8).
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Sends a signal to the adapter process itself.
    pub fn signal(&self, sig: nix::sys::signal::Signal) {
        let pid = nix::unistd::Pid::from_raw(self.pid() as i32);
        nix::sys::signal::kill(pid, sig).expect("signal the adapter");
    }

    /// Waits for the adapter to exit; `None` when it is still running after `timeout`.
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Ok(Some(st)) = self.child.try_wait() {
                return Some(st);
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Everything the adapter wrote to stderr so far (the last MiB), lossily decoded.
    #[must_use]
    pub fn stderr_text(&self) -> String {
        let b = self.stderr.lock().map(|b| b.clone()).unwrap_or_default();
        String::from_utf8_lossy(&b).into_owned()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.stdin = None;
        if let Ok(None) = self.child.try_wait() {
            // The adapter leads its own group (process_group(0)): kill the whole group.
            testkit::procs::kill_group(self.pid());
        }
        let _ = self.child.wait();
    }
}

fn parse_line(line: &[u8]) -> Value {
    let text = line.strip_suffix(b"\n").unwrap_or(line);
    serde_json::from_slice(text).unwrap_or_else(|e| {
        panic!(
            "stdout carried a line that is not JSON (T1): {e}: {:?}",
            String::from_utf8_lossy(text)
        )
    })
}

/// A response (no `method`) with this `id`.
#[must_use]
pub fn is_response_to(msg: &Value, id: &Value) -> bool {
    msg.get("method").is_none() && msg.get("id") == Some(id)
}
