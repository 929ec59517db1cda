//! Commands for the real `claude` (or any program standing in for it) that are safe to run in
//! tests: a fresh temporary `HOME` (transcripts land in `$HOME/.claude/projects/`, never in a
//! real user's files), a clean environment, the stand-in's base URL and a dummy key, at most one
//! retry, and no traffic besides the Messages API.
//!
//! Found with the real 2.1.328 (strace of `connect`): without
//! `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC` it resolves outside hosts through DNS (telemetry,
//! feature flags) and pre-warms the connection with `HEAD /api/hello`; with it, the only
//! connection is to `ANTHROPIC_BASE_URL`, and the no-account case makes none at all.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use serde_json::Value;

/// SIGKILL to a process group: [`crate::procs::kill_group`], kept here for older callers.
pub use crate::procs::kill_group;
use tempfile::TempDir;

/// The dummy key given to the CLI; any string works against the stand-in.
pub const DUMMY_API_KEY: &str = "sk-ant-dummy-not-a-real-key";

/// Variables set on every run, to keep the CLI quiet, offline and short:
/// `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC` (implies no telemetry, error reporting, auto-update,
/// feature flags, connection pre-warm), the individual switches for clarity, and
/// `CLAUDE_CODE_MAX_RETRIES=1` (it retries 10 times by default, even on 401).
pub const QUIET_ENV: [(&str, &str); 6] = [
    ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"),
    ("DISABLE_TELEMETRY", "1"),
    ("DISABLE_ERROR_REPORTING", "1"),
    ("DISABLE_AUTOUPDATER", "1"),
    ("DISABLE_BUG_COMMAND", "1"),
    ("CLAUDE_CODE_MAX_RETRIES", "1"),
];

/// Variables passed through from the caller's environment; everything else is cleared (no
/// `ANTHROPIC_*`, `CLAUDE_*`, proxy or `CI` variable of the caller leaks into a run).
pub const PASSED_THROUGH: [&str; 5] = ["PATH", "TMPDIR", "LANG", "LC_ALL", "TZ"];

/// A recipe for running `claude`: program, temporary `HOME`, environment. The `HOME` folder
/// lives as long as this value: keep it until the process has ended.
#[derive(Debug)]
pub struct ClaudeCommand {
    program: PathBuf,
    home: TempDir,
    envs: Vec<(String, OsString)>,
}

impl ClaudeCommand {
    /// Runs `program` against a stand-in at `base_url` with [`DUMMY_API_KEY`].
    pub fn for_standin(program: impl Into<PathBuf>, base_url: &str) -> std::io::Result<Self> {
        let mut cmd = ClaudeCommand::bare(program)?;
        cmd.envs
            .push(("ANTHROPIC_BASE_URL".into(), base_url.into()));
        cmd.envs
            .push(("ANTHROPIC_API_KEY".into(), DUMMY_API_KEY.into()));
        Ok(cmd)
    }

    /// Runs `program` with no base URL and no key: the real CLI then fails fast with
    /// "Not logged in · Please run /login" (a `result` with `is_error: true`, exit 1) without
    /// any network connection.
    pub fn not_logged_in(program: impl Into<PathBuf>) -> std::io::Result<Self> {
        ClaudeCommand::bare(program)
    }

    fn bare(program: impl Into<PathBuf>) -> std::io::Result<Self> {
        let home = tempfile::Builder::new()
            .prefix("cmk-claude-home-")
            .tempdir()?;
        std::fs::create_dir_all(home.path().join("work"))?;
        Ok(ClaudeCommand {
            program: program.into(),
            home,
            envs: Vec::new(),
        })
    }

    /// Adds or overrides an environment variable.
    pub fn env(mut self, key: &str, value: impl Into<OsString>) -> Self {
        self.envs.retain(|(k, _)| k != key);
        self.envs.push((key.to_owned(), value.into()));
        self
    }

    /// The temporary `HOME`.
    pub fn home(&self) -> &Path {
        self.home.path()
    }

    /// The working directory of runs: `$HOME/work` (so a tool the CLI runs touches nothing
    /// outside the temporary folder).
    pub fn workdir(&self) -> PathBuf {
        self.home.path().join("work")
    }

    /// Where the CLI writes session transcripts.
    pub fn transcripts(&self) -> PathBuf {
        self.home.path().join(".claude").join("projects")
    }

    /// The complete environment of a run, in the order it is applied (later entries win): the
    /// [`PASSED_THROUGH`] variables the caller has, [`QUIET_ENV`], `HOME`, then [`Self::env`]'s.
    /// For a program that runs the CLI itself (the adapter passes its environment on to the
    /// native process, NAT-7): start it with a cleared environment plus exactly these.
    pub fn environment(&self) -> Vec<(OsString, OsString)> {
        let mut vars: Vec<(OsString, OsString)> = Vec::new();
        for name in PASSED_THROUGH {
            if let Some(value) = std::env::var_os(name) {
                vars.push((name.into(), value));
            }
        }
        vars.extend(QUIET_ENV.iter().map(|(k, v)| ((*k).into(), (*v).into())));
        vars.push(("HOME".into(), self.home.path().into()));
        vars.extend(self.envs.iter().map(|(k, v)| (k.into(), v.clone())));
        vars
    }

    /// A `std::process::Command` with the environment applied, in [`Self::workdir`], in a
    /// process group of its own (so a test can kill the CLI with every child it started).
    pub fn command(&self) -> Command {
        let mut cmd = Command::new(&self.program);
        cmd.env_clear().envs(self.environment());
        cmd.current_dir(self.workdir()).process_group(0);
        cmd
    }

    /// The same as a `tokio::process::Command` (killed on drop as a last resort).
    pub fn tokio_command(&self) -> tokio::process::Command {
        let mut cmd = tokio::process::Command::from(self.command());
        cmd.kill_on_drop(true);
        cmd
    }
}

/// What a bounded run produced.
#[derive(Debug)]
pub struct Finished {
    /// Exit status (a signal if it was killed).
    pub status: ExitStatus,
    /// Everything written on stdout.
    pub stdout: Vec<u8>,
    /// Everything written on stderr.
    pub stderr: Vec<u8>,
    /// Whether the time limit was hit and the group was killed.
    pub timed_out: bool,
}

impl Finished {
    /// stdout parsed as JSON lines (non-JSON lines are skipped).
    pub fn events(&self) -> Vec<Value> {
        parse_stream(&self.stdout)
    }

    /// stderr as text.
    pub fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }
}

/// Runs `cmd` (stdin closed, output captured) for at most `limit`, then SIGKILLs its process
/// group. Whatever happens, the group is killed once the leader has exited, so no child of the
/// CLI outlives the run. `cmd` should be in its own process group ([`ClaudeCommand::command`]).
pub fn run_bounded(cmd: &mut Command, limit: Duration) -> std::io::Result<Finished> {
    run_bounded_with_input(cmd, None, limit)
}

/// [`run_bounded`] with `input` written to stdin (then closed), e.g. stream-json user turns.
pub fn run_bounded_with_input(
    cmd: &mut Command,
    input: Option<&[u8]>,
    limit: Duration,
) -> std::io::Result<Finished> {
    let stdin = if input.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    };
    let mut child = cmd
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let pid = child.id();
    if let (Some(input), Some(mut pipe)) = (input, child.stdin.take()) {
        let input = input.to_vec();
        // Written from a thread so a child that does not read cannot block us; a child that
        // exits early just makes the write fail.
        std::thread::spawn(move || {
            let _ = pipe.write_all(&input);
        });
    }
    let out = child.stdout.take().map(drain);
    let err = child.stderr.take().map(drain);
    let deadline = Instant::now() + limit;
    let mut timed_out = false;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if Instant::now() >= deadline {
            timed_out = true;
            kill_group(pid);
            break child.wait()?;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    kill_group(pid);
    // A process that escaped the group could hold a pipe open forever: wait a bounded time.
    let collect = |rx: Option<Receiver<Vec<u8>>>| {
        rx.and_then(|rx| rx.recv_timeout(PIPE_GRACE).ok())
            .unwrap_or_default()
    };
    Ok(Finished {
        status,
        stdout: collect(out),
        stderr: collect(err),
        timed_out,
    })
}

/// How long captured pipes may stay open after the process group was killed.
const PIPE_GRACE: Duration = Duration::from_secs(5);

fn drain(mut pipe: impl Read + Send + 'static) -> Receiver<Vec<u8>> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        // A read error ends the capture; what was read is kept.
        let _ = pipe.read_to_end(&mut bytes);
        let _ = tx.send(bytes);
    });
    rx
}

/// Parses stream-json output: one JSON value per line, other lines skipped.
pub fn parse_stream(stdout: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect()
}

/// The last `{"type":"result"}` event of a stream.
pub fn final_result(events: &[Value]) -> Option<&Value> {
    events
        .iter()
        .rev()
        .find(|e| e.get("type").and_then(Value::as_str) == Some("result"))
}
