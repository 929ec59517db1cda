//! Integration tests of the fake-cursor-agent binary, run as a real process with piped stdio the
//! way the adapter runs `cursor-agent acp`. Every process a test starts is its own group leader
//! and the group is killed when the test's [`Agent`] drops, passed or not.

mod argv;
mod fidelity;
mod handshake;
mod lifecycle;
mod log;
mod replay;
mod scenarios;

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::os::unix::process::CommandExt as _;
use std::path::PathBuf;
use std::process::{ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

/// Generous bound for anything the fake should do at once (shared 2-core machine).
pub const SOON: Duration = Duration::from_secs(20);

/// The fake under test.
pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_fake-cursor-agent"))
}

/// The crate directory (scenarios/, tests/fixtures/).
pub fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A command for the fake with a clean slate (no FAKE_CURSOR_* or CURSOR_API_KEY from the caller).
pub fn command(args: &[&str]) -> Command {
    let mut cmd = Command::new(bin());
    for (k, _) in std::env::vars_os() {
        let k = k.to_string_lossy().into_owned();
        if k.starts_with("FAKE_CURSOR_") || k == "CURSOR_API_KEY" {
            cmd.env_remove(k);
        }
    }
    // A fake leaked by a test harness that died mid-test ends by itself within a minute.
    cmd.env("FAKE_CURSOR_MAX_LIFETIME_S", "60").args(args);
    cmd
}

/// A running fake agent with piped stdio, killed (its whole group) on drop.
pub struct Agent {
    pgid: u32,
    stdin: Option<ChildStdin>,
    lines: Receiver<Vec<u8>>,
    exit: Receiver<ExitStatus>,
    stderr: Arc<Mutex<Vec<u8>>>,
    stderr_closed: Receiver<()>,
    next_id: i64,
}

impl Drop for Agent {
    fn drop(&mut self) {
        self.kill();
    }
}

impl Agent {
    /// Starts `fake-cursor-agent acp` with `env`.
    pub fn start(env: &[(&str, &str)]) -> Self {
        Self::start_args(&["acp"], env)
    }

    /// Starts the fake with `args` and `env`.
    pub fn start_args(args: &[&str], env: &[(&str, &str)]) -> Self {
        let mut cmd = command(args);
        cmd.envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        let mut child = cmd.spawn().expect("spawn fake-cursor-agent");
        let pgid = child.id();
        let stdin = child.stdin.take();
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut err_pipe = child.stderr.take().expect("stderr");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            loop {
                let mut line = Vec::new();
                match stdout.read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {
                        if line.last() == Some(&b'\n') {
                            line.pop();
                        }
                        if tx.send(line).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&stderr);
        let (closed_tx, stderr_closed) = channel();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = err_pipe.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock()
                    .expect("stderr lock")
                    .extend_from_slice(&buf[..n]);
            }
            let _ = closed_tx.send(());
        });
        let (etx, exit) = channel();
        std::thread::spawn(move || {
            if let Ok(status) = child.wait() {
                let _ = etx.send(status);
            }
        });
        Self {
            pgid,
            stdin,
            lines,
            exit,
            stderr,
            stderr_closed,
            next_id: 1,
        }
    }

    /// Writes raw bytes to the agent's stdin.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write stdin");
        stdin.flush().expect("flush stdin");
    }

    /// Writes one JSON message and a newline.
    pub fn send(&mut self, v: &Value) {
        let mut line = v.to_string().into_bytes();
        line.push(b'\n');
        self.send_raw(&line);
    }

    /// Sends request `method` with a fresh integer id; returns the id.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = json!(self.next_id);
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    /// Sends notification `method`.
    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Closes stdin (EOF for the agent).
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// The next stdout line within `within`, `None` on timeout or EOF.
    pub fn line_within(&self, within: Duration) -> Option<Vec<u8>> {
        self.lines.recv_timeout(within).ok()
    }

    /// The next stdout line as JSON (panics on timeout, EOF or non-JSON).
    pub fn next_msg(&self) -> Value {
        let line = self
            .line_within(SOON)
            .unwrap_or_else(|| panic!("no line from the agent; stderr: {}", self.stderr_text()));
        serde_json::from_slice(&line)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&line)))
    }

    /// Messages until the answer to request `id` (returned last).
    pub fn until_answer(&self, id: &Value) -> Vec<Value> {
        let mut seen = Vec::new();
        loop {
            let msg = self.next_msg();
            let done = msg.get("method").is_none() && msg.get("id") == Some(id);
            seen.push(msg);
            if done {
                return seen;
            }
        }
    }

    /// The exit status, if the agent exits within `within`.
    pub fn exit_within(&self, within: Duration) -> Option<ExitStatus> {
        self.exit.recv_timeout(within).ok()
    }

    /// What the agent wrote on stderr so far.
    pub fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr.lock().expect("stderr lock")).into_owned()
    }

    /// Sends `sig` to the agent's process group.
    pub fn signal(&self, sig: nix::sys::signal::Signal) {
        let pgid = nix::unistd::Pid::from_raw(i32::try_from(self.pgid).expect("pgid"));
        nix::sys::signal::killpg(pgid, sig).expect("signal the agent's group");
    }

    /// Kills the agent's process group now.
    pub fn kill(&self) {
        testkit::procs::kill_group(self.pgid);
    }

    /// All the agent wrote on stderr, once its stderr is closed (after it exited).
    pub fn stderr_at_exit(&self) -> String {
        let _ = self.stderr_closed.recv_timeout(SOON);
        self.stderr_text()
    }

    /// `initialize` and `session/new`; returns the session id.
    pub fn handshake(&mut self) -> String {
        let id = self.request("initialize", initialize_params());
        let answer = self.until_answer(&id).pop().expect("answer");
        assert!(
            answer.get("result").is_some(),
            "initialize failed: {answer}"
        );
        let id = self.request(
            "session/new",
            json!({"cwd": "/workspace", "mcpServers": []}),
        );
        let answer = self.until_answer(&id).pop().expect("answer");
        answer["result"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("session/new failed: {answer}"))
            .to_owned()
    }

    /// Sends a prompt; returns its id.
    pub fn prompt(&mut self, session: &str, text: &str) -> Value {
        self.request(
            "session/prompt",
            json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]}),
        )
    }

    /// Runs a whole turn, answering every agent request with `answer(request)` (a full message
    /// body: `{"result": …}` or `{"error": …}`; `None` leaves it unanswered). Returns every
    /// message up to and including the prompt's answer.
    pub fn turn(
        &mut self,
        session: &str,
        text: &str,
        mut answer: impl FnMut(&Value) -> Option<Value>,
    ) -> Vec<Value> {
        let id = self.prompt(session, text);
        let mut seen = Vec::new();
        loop {
            let msg = self.next_msg();
            let is_answer = msg.get("method").is_none() && msg.get("id") == Some(&id);
            if msg.get("method").is_some()
                && msg.get("id").is_some()
                && let Some(body) = answer(&msg)
            {
                let mut reply = json!({"jsonrpc": "2.0", "id": msg["id"]});
                if let (Some(r), Some(b)) = (reply.as_object_mut(), body.as_object()) {
                    r.extend(b.clone());
                }
                self.send(&reply);
            }
            seen.push(msg);
            if is_answer {
                return seen;
            }
        }
    }
}

/// The client's `initialize` params (ACP-2).
pub fn initialize_params() -> Value {
    json!({
        "protocolVersion": 1,
        "clientCapabilities": {"fs": {"readTextFile": false, "writeTextFile": false}, "terminal": false},
        "clientInfo": {"name": "it", "version": "0.1.0"}
    })
}

/// Answers a permission request by option kind (first offered option of `kind`); other requests
/// get -32601, as the adapter's client answers them (ACP-5).
pub fn answer_with_kind(kind: &'static str) -> impl FnMut(&Value) -> Option<Value> {
    move |req| {
        if req["method"] == "session/request_permission" {
            let opt = req["params"]["options"]
                .as_array()
                .and_then(|o| o.iter().find(|o| o["kind"] == kind))
                .map(|o| o["optionId"].clone());
            return Some(match opt {
                Some(id) => json!({"result": {"outcome": {"outcome": "selected", "optionId": id}}}),
                None => json!({"result": {"outcome": {"outcome": "cancelled"}}}),
            });
        }
        Some(json!({"error": {"code": -32601, "message": "Method not found"}}))
    }
}

/// The `update` objects of the `session/update` notifications in `msgs`.
pub fn updates(msgs: &[Value]) -> Vec<&Value> {
    msgs.iter()
        .filter(|m| m["method"] == "session/update")
        .map(|m| &m["params"]["update"])
        .collect()
}

/// The concatenated agent_message_chunk text of `msgs`.
pub fn text(msgs: &[Value]) -> String {
    updates(msgs)
        .iter()
        .filter(|u| u["sessionUpdate"] == "agent_message_chunk")
        .filter_map(|u| u["content"]["text"].as_str())
        .collect()
}

/// The last message of `msgs` (a turn's prompt answer).
pub fn last(msgs: &[Value]) -> &Value {
    msgs.last().expect("at least one message")
}
