//! Helpers of these tests: the built binaries, a scripted line client that plays a host over a
//! child's stdio (every wait bounded), and the standard session recorded against the defect
//! server.

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Output, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::{Value, json};

/// The bound of every wait for an answer in these tests.
pub const BOUND: Duration = Duration::from_secs(20);

/// The built `mcp-replay`.
pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_mcp-replay"))
}

/// A built example of this crate (`cargo test` builds them beside the binaries).
pub fn example(name: &str) -> PathBuf {
    let path = bin().parent().expect("bin dir").join("examples").join(name);
    assert!(
        path.is_file(),
        "{} missing: cargo test -p mcp-replay builds the examples",
        path.display()
    );
    path
}

/// The defect server, with a defect or none.
pub fn defect_server(defect: Option<&str>) -> Vec<String> {
    let mut argv = vec![example("defect_server").display().to_string()];
    if let Some(d) = defect {
        argv.extend(["--defect".to_owned(), d.to_owned()]);
    }
    argv
}

/// A host played by the test over a child's stdio.
pub struct LineClient {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Value>,
    next_id: i64,
    /// Every message received so far.
    pub received: Vec<Value>,
}

impl LineClient {
    /// Starts `cmd` with piped stdin and stdout (stderr inherited).
    pub fn spawn(cmd: &mut Command) -> Self {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("spawn");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let Ok(v) = serde_json::from_str::<Value>(&line)
                    && tx.send(v).is_err()
                {
                    break;
                }
            }
        });
        Self {
            stdin: child.stdin.take(),
            child,
            lines,
            next_id: 1,
            received: Vec::new(),
        }
    }

    /// Writes one message.
    pub fn send(&mut self, msg: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{msg}").expect("write");
        stdin.flush().expect("flush");
    }

    /// Sends a request and waits (bounded) for its response.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.response(&json!(id))
    }

    /// Waits (bounded) for the response with `id`.
    pub fn response(&mut self, id: &Value) -> Value {
        loop {
            if let Some(r) = self
                .received
                .iter()
                .find(|m| m.get("method").is_none() && m.get("id") == Some(id))
            {
                return r.clone();
            }
            let m = self
                .lines
                .recv_timeout(BOUND)
                .unwrap_or_else(|e| panic!("no response to id {id} ({e})"));
            self.received.push(m);
        }
    }

    /// Sends a notification.
    pub fn notify(&mut self, method: &str) {
        self.send(&json!({"jsonrpc": "2.0", "method": method}));
    }

    /// Closes stdin and waits for the exit (bounded by the child's own bounds).
    pub fn close(mut self) -> std::process::ExitStatus {
        drop(self.stdin.take());
        self.child.wait().expect("wait")
    }
}

/// The standard session: initialize, initialized, tools/list, echo, add, resources/list.
pub fn standard_session(c: &mut LineClient) {
    let init = c.request(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "replay-tests", "version": "0"}}),
    );
    assert!(init.get("result").is_some(), "initialize: {init}");
    c.notify("notifications/initialized");
    c.request("tools/list", json!({}));
    c.request(
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "hello"}}),
    );
    c.request(
        "tools/call",
        json!({"name": "add", "arguments": {"a": 2, "b": 3}}),
    );
    c.request("resources/list", json!({}));
}

/// `mcp-replay record --out FILE -- SERVER…` as a command.
pub fn record_cmd(out: &Path, server: &[String]) -> Command {
    let mut cmd = Command::new(bin());
    cmd.arg("record")
        .arg("--out")
        .arg(out)
        .arg("--")
        .args(server);
    cmd
}

/// Records the standard session against the clean defect server.
pub fn record_defect_session(out: &Path) {
    let mut c = LineClient::spawn(&mut record_cmd(out, &defect_server(None)));
    standard_session(&mut c);
    assert!(c.close().success());
}

/// `mcp-replay run RECORDING ARGS -- SERVER…`, its output.
pub fn run(recording: &Path, args: &[&str], server: &[String]) -> Output {
    Command::new(bin())
        .arg("run")
        .arg(recording)
        .args(args)
        .arg("--")
        .args(server)
        .output()
        .expect("run mcp-replay")
}

/// The exit code and stdout of an output, for assertion messages.
pub fn show(o: &Output) -> String {
    format!(
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

impl LineClient {
    /// Waits for the child to exit on its own, stdin still open (bounded by the child).
    pub fn close_after_exit(mut self) -> std::process::ExitStatus {
        let status = self.child.wait().expect("wait");
        drop(self.stdin.take());
        status
    }
}

impl LineClient {
    /// The child's pid.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}
