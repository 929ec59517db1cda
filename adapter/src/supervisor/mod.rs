//! The private per-run supervisor process (SUP-1..4).
//!
//! The engine never forks the native CLI itself: it starts this binary again with the hidden
//! [`SUBCOMMAND`], which makes the native process a group leader, pins it until the group is dead,
//! watches a lifeline pipe (EOF = the adapter died: SIGKILL the group at once, SUP-2), becomes
//! subreaper for re-parented descendants, and reports over its own bounded channel.
//!
//! THIS FILE FIXES THE API the engine calls ([`spawn`], [`Supervised`]). The supervisor author
//! may extend it but keeps these signatures' meaning.

use std::ffi::{OsStr, OsString};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Name of the hidden subcommand that turns this binary into a supervisor.
pub const SUBCOMMAND: &str = "__supervise";

/// Grace between SIGTERM and SIGKILL of the native group (SUP-3).
pub const TERM_GRACE: Duration = Duration::from_secs(2);

/// What to run under supervision. The environment is complete and already scrubbed (NAT-8):
/// the supervisor passes exactly this to the native process, and the native process inherits no
/// descriptor beyond stdin (`/dev/null`), stdout and stderr.
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

/// A running, supervised native process.
#[derive(Debug)]
pub struct Supervised {
    /// The native process's stdout (read end of its pipe).
    pub stdout: Option<tokio::net::unix::pipe::Receiver>,
    /// The native process's stderr (read end of its pipe).
    pub stderr: Option<tokio::net::unix::pipe::Receiver>,
}

impl Supervised {
    /// The native group leader's pid (= its process group id).
    #[must_use]
    pub fn native_pid(&self) -> Option<u32> {
        None
    }

    /// Asks for termination: SIGTERM to the group, [`SpawnSpec::grace`], SIGKILL, reap (SUP-3).
    /// Idempotent; returns at once.
    pub fn terminate(&self) {}

    /// Waits for the group leader to end (without it being reaped before the group is dead).
    pub async fn exited(&mut self) -> Option<ExitStatus> {
        None
    }

    /// Waits for the cleanup report: every process of the group is gone (confirmed), or not.
    /// EOF of the report channel without an acknowledgement is `confirmed: false` with an error.
    pub async fn cleanup(&mut self) -> CleanupReport {
        CleanupReport {
            confirmed: false,
            survivors: Vec::new(),
            error: Some("the supervisor is not built yet".into()),
        }
    }
}

/// Starts `spec` under a new supervisor process (the current executable re-run with
/// [`SUBCOMMAND`]); returns once the native process was spawned (or failed to).
pub async fn spawn(_spec: SpawnSpec) -> Result<Supervised, SpawnError> {
    Err(SpawnError("the supervisor is not built yet".into()))
}

/// [`spawn`] with an explicit supervisor executable (tests and benches run the adapter binary).
pub async fn spawn_with(
    _supervisor_exe: &OsStr,
    spec: SpawnSpec,
) -> Result<Supervised, SpawnError> {
    spawn(spec).await
}

/// Entry point of the supervisor process (no tokio runtime is started for it).
pub fn main(_args: &[OsString]) -> ExitCode {
    eprintln!("claude-mcp-adapter: the supervisor is not built yet");
    ExitCode::from(2)
}
