//! The private per-run supervisor process (SUP-1..4).
//!
//! The engine never forks the native CLI itself: it starts this binary again with the hidden
//! [`SUBCOMMAND`], which makes the native process the leader of a new session and process group,
//! pins it until the group is dead, watches a lifeline (EOF = the adapter died or let go: SIGKILL
//! the group at once, SUP-2), becomes subreaper for re-parented descendants, and reports over its
//! own bounded channel. `docs/supervision.md` describes the process tree, the channel and the
//! termination sequence; `protocol` holds the message formats.
//!
//! ```text
//! adapter ──(tokio)──▶ supervisor (own process group, subreaper)
//!    │  control socket: lifeline + commands ▶ / ◀ reports     │
//!    │◀── native stdout/stderr pipes ──────────── native leader (setsid: own session + group)
//!                                                   └── its descendants (same group)
//! ```
//!
//! The engine's side: [`spawn`] returns a [`Supervised`] with the native stdout/stderr read ends;
//! [`Supervised::exited`] reports the leader's end, [`Supervised::terminate`] (or a
//! [`SupervisorHandle`]) starts SUP-3, and [`Supervised::cleanup`] returns the final word.

#![warn(unreachable_pub)]

use std::ffi::{OsStr, OsString};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

mod client;
mod fds;
mod order;
mod protocol;
mod report;
mod spare;
mod supervise;
mod watch;

pub use client::{Supervised, SupervisorHandle};
pub use spare::{keep_spares, refill as refill_spare, retire as retire_spare};

/// Name of the hidden subcommand that turns this binary into a supervisor.
pub const SUBCOMMAND: &str = "__supervise";

/// Default grace between SIGTERM and SIGKILL of the native group (SUP-3); [`SpawnSpec::grace`]
/// carries the value a run uses.
pub const TERM_GRACE: Duration = Duration::from_secs(2);

/// How long the supervisor waits, after SIGKILL, for the group to vanish before it reports the
/// survivors (`cleanup_failed`). SIGKILL cannot be caught, but a process in uninterruptible sleep
/// (`D`) dies only when its I/O returns.
pub(crate) const KILL_CONFIRM_BOUND: Duration = Duration::from_secs(5);

/// Fallback re-check interval, used only where child-exit events cannot tell whether the group is
/// empty: live children of the supervisor outside the group (SUP-4 escapees) under which a member
/// could sit (see `watch.rs`), or no signalfd. Every other wait of the supervisor is on events.
pub(crate) const POLL_INTERVAL: Duration = Duration::from_millis(25);

/// How long [`spawn`] waits for the supervisor's `spawned`/`spawn_failed` report.
pub(crate) const SPAWN_REPORT_BOUND: Duration = Duration::from_secs(30);

/// Slack added to `grace + KILL_CONFIRM_BOUND` when [`Supervised::cleanup`] waits for the report
/// (a loaded machine schedules the supervisor late; past this the run is cleanup_unconfirmed).
pub(crate) const REPORT_SLACK: Duration = Duration::from_secs(10);

/// What the native process gets as its stdin.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum StdinMode {
    /// `/dev/null` (NAT-7: never the MCP stream). What print-mode runs and the version check use.
    #[default]
    Null,
    /// A pipe whose write end is [`Supervised::stdin`] in the adapter (a provider that talks to
    /// the native process over its stdin, e.g. ACP). Only the adapter holds the write end, so
    /// dropping it is EOF for the native process; only the native group holds the read end, so a
    /// write after the group is gone fails with `EPIPE` instead of blocking.
    Pipe,
}

/// What to run under supervision. The environment is complete and already scrubbed (NAT-8):
/// the supervisor passes exactly this to the native process, and the native process inherits no
/// descriptor beyond stdin ([`SpawnSpec::stdin`]), stdout and stderr.
#[derive(Debug, Clone)]
pub struct SpawnSpec {
    /// The native program.
    pub program: PathBuf,
    /// Its arguments (without the program name).
    pub args: Vec<OsString>,
    /// Its working directory.
    pub cwd: PathBuf,
    /// Its complete environment.
    pub env: Vec<(OsString, OsString)>,
    /// SIGTERM → SIGKILL grace (SUP-3).
    pub grace: Duration,
    /// Its stdin: `/dev/null` ([`StdinMode::Null`], the default) or a pipe from the adapter.
    pub stdin: StdinMode,
}

impl SpawnSpec {
    /// A spec with stdin `/dev/null` and the default grace [`TERM_GRACE`].
    #[must_use]
    pub fn new(
        program: impl Into<PathBuf>,
        args: Vec<OsString>,
        cwd: impl Into<PathBuf>,
        env: Vec<(OsString, OsString)>,
    ) -> Self {
        Self {
            program: program.into(),
            args,
            cwd: cwd.into(),
            env,
            grace: TERM_GRACE,
            stdin: StdinMode::Null,
        }
    }
}

/// How the native group leader ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExitStatus {
    /// Exit code, when it exited.
    pub code: Option<i32>,
    /// Signal number, when a signal killed it.
    pub signal: Option<i32>,
}

/// The supervisor's final word on cleanup (SUP-3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CleanupReport {
    /// `true` only when the supervisor acknowledged that no process of the group is left.
    pub confirmed: bool,
    /// Pids of the group still alive after SIGKILL (cleanup_failed), if any.
    pub survivors: Vec<u32>,
    /// Cleanup detail for `cleanup_error` (e.g. "supervisor ended without acknowledgement" when
    /// its channel hit EOF first: cleanup_unconfirmed).
    pub error: Option<String>,
}

/// Failure to start the supervisor or the native process (`spawn_failed`).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct SpawnError(pub String);

/// Starts `spec` under a supervisor process (the current executable re-run with [`SUBCOMMAND`]:
/// the kept spare when there is one, C-SUP-2, else a new one); returns once the native process was
/// spawned (or failed to: `spawn_failed`).
pub async fn spawn(spec: SpawnSpec) -> Result<Supervised, SpawnError> {
    let exe = std::env::current_exe()
        .map_err(|e| SpawnError(format!("cannot locate the adapter executable: {e}")))?;
    spawn_with(exe.as_os_str(), spec).await
}

/// [`spawn`] with an explicit supervisor executable (tests and benches run the adapter binary).
pub async fn spawn_with(supervisor_exe: &OsStr, spec: SpawnSpec) -> Result<Supervised, SpawnError> {
    client::spawn_with(supervisor_exe, spec).await
}

/// [`spawn_with`] for a version check (NAT-2, C-NAT-2) that the run may follow under the same
/// supervisor (C-SUP-1): once [`Supervised::cleanup`] confirmed the check's group gone, the
/// caller judges the check and gives its go, [`Supervised::run`] with the run's spec, or its
/// no-go, [`Supervised::release`] (or a drop: the lifeline's EOF). One supervisor start per run
/// instead of two (`bench/run-overhead.md`).
pub async fn spawn_check_with(
    supervisor_exe: &OsStr,
    spec: SpawnSpec,
) -> Result<Supervised, SpawnError> {
    client::spawn_check_with(supervisor_exe, spec).await
}

/// A version check's supervisor waiting for the adapter's go, carried from a provider's
/// preflight to its spawn (inside `Checked`). Taken at most once; dropping it un-taken is the
/// no-go (the lifeline closes, the supervisor exits, tokio reaps it). Compares equal to any
/// other: it is a handle, not part of a verdict.
#[derive(Debug, Clone, Default)]
pub struct Waiting(std::sync::Arc<std::sync::Mutex<Option<Supervised>>>);

impl Waiting {
    /// Holds `check` for the run.
    #[must_use]
    pub fn new(check: Supervised) -> Self {
        Self(std::sync::Arc::new(std::sync::Mutex::new(Some(check))))
    }

    /// The waiting supervisor, once.
    #[must_use]
    pub fn take(&self) -> Option<Supervised> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
    }
}

impl PartialEq for Waiting {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for Waiting {}

/// Entry point of the supervisor process (no tokio runtime is started for it). `args` are the
/// arguments after [`SUBCOMMAND`].
pub fn main(args: &[OsString]) -> ExitCode {
    supervise::main(args)
}
