//! The runner's client side of the ACP `terminal/*` methods (schema CreateTerminalRequest,
//! TerminalOutputRequest, WaitForTerminalExitRequest, KillTerminalRequest,
//! ReleaseTerminalRequest; docs protocol/terminals), served only in the cases that advertise
//! `clientCapabilities.terminal`.
//!
//! Each command runs in the case's scratch directory (or a `cwd` inside it), in a process group
//! of its own registered with [`crate::core::process`] (so Ctrl-C of the runner kills it too) and,
//! before the command execs, with the lifeline watchdog (so does a SIGKILL of the runner at any
//! instant: [`cmk_lifeline::spawn_registered`], C-SUP-5), stdin
//! closed, stdout and stderr kept in one bounded buffer. `terminal/kill` and `terminal/release`
//! SIGKILL the group; whatever is still live when the case ends is killed by
//! [`Terminals::end`] (the case's explicit cleanup) or, should the case be aborted, by `Drop`.
//! Containment: nothing a terminal started survives its case.
//!
//! The buffer keeps at most `outputByteLimit` bytes (never more than [`MAX_OUTPUT`]): the oldest
//! bytes go first, the cut moved forward to a character boundary as the schema requires, and
//! `truncated` says so. The audit ([`Audit`]) is what `capabilities/terminal-requests` grades:
//! the ids the runner issued, those released, and every request that named an id it never
//! issued or had released already.

use std::collections::HashMap;
use std::os::unix::process::ExitStatusExt as _;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use mcp_wire::ErrorObject;
use nix::sys::signal::Signal;
use serde_json::{Value, json};
use tokio::io::AsyncReadExt as _;
use tokio::sync::watch;

/// The most output kept per terminal whatever the agent asks (bounds: memory stays flat).
pub const MAX_OUTPUT: usize = 1024 * 1024;
/// The most terminals live at once per agent; more are refused.
pub const MAX_LIVE: usize = 16;
/// How long output still in the pipes is read after the command exited (a background child
/// holding them open must not delay the exit status).
const DRAIN_GRACE: std::time::Duration = std::time::Duration::from_millis(200);

/// How a command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exit {
    /// The exit code, when it exited normally.
    pub code: Option<i32>,
    /// The signal that ended it, when one did.
    pub signal: Option<i32>,
}

impl Exit {
    /// The schema's `TerminalExitStatus` / `WaitForTerminalExitResponse` object.
    #[must_use]
    pub fn to_json(self) -> Value {
        let signal = self
            .signal
            .map(|s| Signal::try_from(s).map_or_else(|_| s.to_string(), |s| s.as_str().to_owned()));
        json!({"exitCode": self.code, "signal": signal})
    }
}

/// A terminal's output, bounded.
#[derive(Debug, Default)]
struct Output {
    bytes: Vec<u8>,
    limit: usize,
    truncated: bool,
}

impl Output {
    /// Appends `chunk`, dropping the oldest bytes past the limit at a character boundary.
    fn push(&mut self, chunk: &[u8]) {
        self.bytes.extend_from_slice(chunk);
        if self.bytes.len() > self.limit {
            let mut cut = self.bytes.len() - self.limit;
            // Never start inside a UTF-8 sequence: skip its continuation bytes too.
            while self
                .bytes
                .get(cut)
                .is_some_and(|b| (0x80..0xC0).contains(b))
            {
                cut += 1;
            }
            self.bytes.drain(..cut);
            self.truncated = true;
        }
    }

    /// The output as text: an incomplete character at the end (still being written) is left
    /// out, bytes that are not UTF-8 become U+FFFD.
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.bytes[..complete_prefix(&self.bytes)]).into_owned()
    }
}

/// The length of `b` without a UTF-8 sequence cut short at its end.
fn complete_prefix(b: &[u8]) -> usize {
    for back in 1..=b.len().min(4) {
        let i = b.len() - back;
        let lead = b[i];
        if (0x80..0xC0).contains(&lead) {
            continue; // a continuation byte: look further back for its lead
        }
        let need = match lead {
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF7 => 4,
            _ => 1,
        };
        return if back < need { i } else { b.len() };
    }
    b.len()
}

/// One live terminal.
#[derive(Debug)]
struct Term {
    pgid: i32,
    output: Arc<Mutex<Output>>,
    exit: watch::Receiver<Option<Exit>>,
}

/// What the agent did with its terminals, for the grading case.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Audit {
    /// Every id the runner issued, in order.
    pub issued: Vec<String>,
    /// Every id the agent released, in order.
    pub released: Vec<String>,
    /// Each request that named an id the runner never issued or had released already.
    pub misuse: Vec<String>,
}

/// The terminals of one agent.
#[derive(Debug)]
pub struct Terminals {
    scratch: PathBuf,
    /// `terminal/wait_for_exit` blocks at most until then (the case's deadline).
    wait_until: Instant,
    live: HashMap<String, Term>,
    audit: Audit,
}

fn invalid(msg: impl Into<String>) -> ErrorObject {
    ErrorObject::new(mcp_wire::code::INVALID_PARAMS, msg)
}

fn internal(msg: impl Into<String>) -> ErrorObject {
    ErrorObject::new(mcp_wire::code::INTERNAL_ERROR, msg)
}

/// The kind of answer a request needs after the lock is released.
#[derive(Debug)]
pub enum Pending {
    /// Answer now.
    Now(Result<Value, ErrorObject>),
    /// Wait for this exit (then answer with it), without holding the terminals' lock.
    Wait(watch::Receiver<Option<Exit>>, Instant),
}

impl Terminals {
    /// Terminals confined to `scratch`; waits end at `wait_until` at the latest.
    #[must_use]
    pub fn new(scratch: PathBuf, wait_until: Instant) -> Self {
        Self {
            scratch,
            wait_until,
            live: HashMap::new(),
            audit: Audit::default(),
        }
    }

    /// Moves the bound of `terminal/wait_for_exit` to `at` (the case's deadline once the
    /// handshake, whose time is not the case's, is over).
    pub fn set_wait_until(&mut self, at: Instant) {
        self.wait_until = at;
    }

    /// What the agent did so far.
    #[must_use]
    pub fn audit(&self) -> Audit {
        self.audit.clone()
    }

    /// Serves one `terminal/*` request (`method` is the whole method name).
    pub fn serve(&mut self, method: &str, params: &Value) -> Pending {
        if method == "terminal/create" {
            return Pending::Now(self.create(params));
        }
        let id = match params.get("terminalId").and_then(Value::as_str) {
            Some(id) => id.to_owned(),
            None => return Pending::Now(Err(invalid("terminalId (a string) is required"))),
        };
        let Some(term) = self.live.get(&id) else {
            let why = if self.audit.released.contains(&id) {
                "released already"
            } else {
                "never issued by the client"
            };
            self.audit
                .misuse
                .push(format!("{method} named terminal {id:?}, {why}"));
            return Pending::Now(Err(invalid(format!("unknown terminal {id:?} ({why})"))));
        };
        match method {
            "terminal/output" => {
                let out = term.output.lock().unwrap_or_else(PoisonError::into_inner);
                let mut v = json!({"output": out.text(), "truncated": out.truncated});
                if let Some(exit) = *term.exit.borrow() {
                    v["exitStatus"] = exit.to_json();
                }
                Pending::Now(Ok(v))
            }
            "terminal/wait_for_exit" => Pending::Wait(term.exit.clone(), self.wait_until),
            "terminal/kill" => {
                crate::core::process::signal_group(term.pgid, Signal::SIGKILL);
                Pending::Now(Ok(json!({})))
            }
            "terminal/release" => {
                if let Some(term) = self.live.remove(&id) {
                    kill(&term);
                }
                self.audit.released.push(id);
                Pending::Now(Ok(json!({})))
            }
            other => Pending::Now(Err(ErrorObject::method_not_found(other))),
        }
    }

    fn create(&mut self, params: &Value) -> Result<Value, ErrorObject> {
        let command = params
            .get("command")
            .and_then(Value::as_str)
            .ok_or_else(|| invalid("command (a string) is required"))?;
        let args: Vec<&str> = match params.get("args") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(a)) => a
                .iter()
                .map(|x| x.as_str().ok_or_else(|| invalid("args must be strings")))
                .collect::<Result<_, _>>()?,
            Some(_) => return Err(invalid("args must be an array of strings")),
        };
        let cwd = match params.get("cwd").and_then(Value::as_str) {
            None => self.scratch.clone(),
            Some(c) => confined_dir(&self.scratch, c)?,
        };
        if self.live.len() >= MAX_LIVE {
            return Err(internal(format!(
                "the runner keeps at most {MAX_LIVE} live terminals: release one first"
            )));
        }
        let limit = params
            .get("outputByteLimit")
            .and_then(Value::as_u64)
            .and_then(|l| usize::try_from(l).ok())
            .map_or(MAX_OUTPUT, |l| l.min(MAX_OUTPUT));
        // stdout and stderr share one pipe, as they share a terminal: the output is in the
        // order the command wrote it, not in the order two readers happened to run.
        let (pipe, out) =
            std::io::pipe().map_err(|e| internal(format!("cannot make a pipe: {e}")))?;
        let err = out
            .try_clone()
            .map_err(|e| internal(format!("cannot make a pipe: {e}")))?;
        let mut cmd = tokio::process::Command::new(command);
        cmd.args(&args)
            .current_dir(&cwd)
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .process_group(0)
            // A backstop only: release, kill and the case's end kill the whole group.
            .kill_on_drop(true);
        if let Some(Value::Array(env)) = params.get("env") {
            for e in env {
                if let (Some(n), Some(v)) = (
                    e.get("name").and_then(Value::as_str),
                    e.get("value").and_then(Value::as_str),
                ) {
                    cmd.env(n, v);
                }
            }
        }
        // C-SUP-5: the group is registered with the lifeline from the child, before it execs.
        let spawned = cmk_lifeline::spawn_registered(
            &mut cmd,
            tokio::process::Command::as_std_mut,
            tokio::process::Command::spawn,
        );
        // The command's copies of the write end: the reader sees EOF once the command (and
        // whatever it started that kept them) is done writing.
        drop(cmd);
        let mut child = spawned.map_err(|e| internal(format!("cannot run {command:?}: {e}")))?;
        let pipe = tokio::net::unix::pipe::Receiver::from_owned_fd(pipe.into())
            .map_err(|e| internal(format!("cannot read the command's output: {e}")))?;
        let pgid = child
            .id()
            .and_then(|p| i32::try_from(p).ok())
            .unwrap_or_default();
        crate::core::process::register(pgid);
        let output = Arc::new(Mutex::new(Output {
            limit,
            ..Output::default()
        }));
        let reader = tokio::spawn(read_into(pipe, output.clone()));
        let (tx, rx) = watch::channel(None);
        tokio::spawn(async move {
            let status = child.wait().await;
            let _ = tokio::time::timeout(DRAIN_GRACE, reader).await;
            let exit = match status {
                Ok(s) => Exit {
                    code: s.code(),
                    signal: s.signal(),
                },
                Err(_) => Exit {
                    code: None,
                    signal: None,
                },
            };
            let _ = tx.send(Some(exit));
        });
        let id = format!("term-{}", self.audit.issued.len() + 1);
        self.audit.issued.push(id.clone());
        self.live.insert(
            id.clone(),
            Term {
                pgid,
                output,
                exit: rx,
            },
        );
        Ok(json!({"terminalId": id}))
    }

    /// Kills every live terminal's group (the case is over).
    pub fn end(&mut self) {
        for (_, term) in self.live.drain() {
            kill(&term);
        }
    }
}

impl Drop for Terminals {
    fn drop(&mut self) {
        self.end();
    }
}

fn kill(term: &Term) {
    crate::core::process::signal_group(term.pgid, Signal::SIGKILL);
    crate::core::process::unregister(term.pgid);
}

async fn read_into(mut r: tokio::net::unix::pipe::Receiver, out: Arc<Mutex<Output>>) {
    let mut buf = vec![0u8; 8192];
    while let Ok(n) = r.read(&mut buf).await {
        if n == 0 {
            break;
        }
        out.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(&buf[..n]);
    }
}

/// `dir` when it is absolute and inside `scratch`.
fn confined_dir(scratch: &Path, dir: &str) -> Result<PathBuf, ErrorObject> {
    let p = PathBuf::from(dir);
    if !p.is_absolute() {
        return Err(invalid("cwd must be an absolute path"));
    }
    if p.components()
        .any(|c| matches!(c, std::path::Component::ParentDir))
        || !p.starts_with(scratch)
    {
        return Err(invalid(
            "the runner runs commands only inside the session's cwd",
        ));
    }
    Ok(p)
}

/// Waits for `exit` until `until`; the `WaitForTerminalExitResponse`, or an error when the
/// case's time ran out first.
pub async fn wait(
    mut exit: watch::Receiver<Option<Exit>>,
    until: Instant,
) -> Result<Value, ErrorObject> {
    let waited = tokio::time::timeout_at(until.into(), exit.wait_for(Option::is_some)).await;
    match waited {
        Ok(Ok(e)) => Ok((*e).map_or(Value::Null, Exit::to_json)),
        Ok(Err(_)) => Err(internal("the terminal's supervisor is gone")),
        Err(_) => Err(internal(
            "the command did not exit before the case's deadline",
        )),
    }
}

#[cfg(test)]
mod tests;
