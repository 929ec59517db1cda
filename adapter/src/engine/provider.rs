//! The provider boundary: what the engine needs from a native agent CLI, and nothing more.
//!
//! A provider checks a request against its command contract, asserts the native version
//! (NAT-2), and starts one supervised native process that yields stdout/stderr bytes, an exit
//! and a cleanup report. Runs, bounds, cursors, outcome rules and the work snapshot live in the
//! engine and never depend on which provider produced the lines: claude stream-json today
//! ([`super::claude::ClaudeProvider`]); Cursor over ACP can plug in later by translating its
//! session updates into one JSON event per line on its `stdout` reader.

use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::time::Duration;

use tokio::io::AsyncRead;

use super::ToolError;
use super::outcome::Cleanup;
use crate::cli_tree::OptionValue;
use crate::supervisor::ExitStatus;

/// A boxed, sendable future (the trait is used as `dyn Provider`).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A native output stream.
pub type NativeReader = Pin<Box<dyn AsyncRead + Send>>;

/// A run request after the engine's checks (RUN-0, BND-4, NAT-7), provider-neutral.
#[derive(Debug, Clone, PartialEq)]
pub struct RunSpec {
    /// The prompt (1 byte to 128 KiB, no NUL).
    pub prompt: String,
    /// An existing directory.
    pub cwd: PathBuf,
    /// The run's deadline, from its start.
    pub timeout: Duration,
    /// Declared options the caller supplied, by name (NAT-4..6).
    pub options: BTreeMap<String, OptionValue>,
}

/// What a successful preflight established (the exact program that passed the version check,
/// so the run starts that same file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked {
    /// The resolved native program.
    pub program: PathBuf,
}

/// Why a preflight did not pass.
#[derive(Debug, Clone, PartialEq)]
pub enum PreflightError {
    /// `native_not_found` / `version_mismatch` (nothing else was executed).
    Refused(ToolError),
    /// The run's deadline passed during the check (the check was killed and reaped).
    DeadlinePassed,
    /// The check's own processes were not confirmed gone (RUN-10): nothing more runs, and the
    /// run is `uncertain`. `verdict` is what the check established otherwise.
    Uncleaned {
        /// The check's verdict apart from its cleanup.
        verdict: Box<Result<Checked, PreflightError>>,
        /// The check's cleanup, not confirmed.
        cleanup: Cleanup,
    },
}

/// A native agent CLI.
pub trait Provider: Send + Sync + fmt::Debug {
    /// Checks what a schema cannot (value rules of the command contract, exclusions): errors are
    /// `invalid_arguments` with `field`.
    fn check(&self, spec: &RunSpec) -> Result<(), ToolError>;

    /// NAT-2: asserts the native version before each run, bounded by its own limit and by
    /// `deadline`. On failure nothing else is executed.
    fn preflight(
        &self,
        deadline: tokio::time::Instant,
    ) -> BoxFuture<'_, Result<Checked, PreflightError>>;

    /// Starts the native process under supervision. `Err` means nothing is left running
    /// (`spawn_failed`).
    fn spawn<'a>(
        &'a self,
        checked: &'a Checked,
        spec: &'a RunSpec,
    ) -> BoxFuture<'a, Result<Box<dyn NativeProcess>, ToolError>>;
}

/// One running native process.
///
/// The engine polls [`NativeProcess::exited`] and [`NativeProcess::cleanup`] inside `select!`
/// loops, so both must be cancel-safe: dropping an unfinished call loses nothing, and the next
/// call picks up where it stood. `cleanup` is only called once `exited` returned.
pub trait NativeProcess: Send {
    /// The native stdout (once).
    fn take_stdout(&mut self) -> Option<NativeReader>;
    /// The native stderr (once).
    fn take_stderr(&mut self) -> Option<NativeReader>;
    /// SUP-3: SIGTERM to the group, a grace, SIGKILL, reap. Idempotent, returns at once. Also
    /// called after a natural exit, so members left in the group are ended too.
    fn terminate(&self);
    /// The group leader ended (`None`: it cannot be known, e.g. the supervisor died).
    fn exited(&mut self) -> BoxFuture<'_, Option<ExitStatus>>;
    /// The cleanup outcome (SUP-3): confirmed only when acknowledged.
    fn cleanup(&mut self) -> BoxFuture<'_, Cleanup>;
}

/// Kernel buffer asked for the native stdout pipe: a larger pipe means far fewer wake-ups
/// while a child streams fast (the ingest benchmark, `bench/ingest.md`). Kernel memory, not the
/// adapter's; the request is capped by `/proc/sys/fs/pipe-max-size` and may fail harmlessly.
pub const STDOUT_PIPE_BYTES: i32 = 1024 * 1024;

impl NativeProcess for crate::supervisor::Supervised {
    fn take_stdout(&mut self) -> Option<NativeReader> {
        self.stdout.take().map(|r| {
            let _ = nix::fcntl::fcntl(&r, nix::fcntl::FcntlArg::F_SETPIPE_SZ(STDOUT_PIPE_BYTES));
            Box::pin(r) as NativeReader
        })
    }

    fn take_stderr(&mut self) -> Option<NativeReader> {
        self.stderr.take().map(|r| Box::pin(r) as NativeReader)
    }

    fn terminate(&self) {
        crate::supervisor::Supervised::terminate(self);
    }

    fn exited(&mut self) -> BoxFuture<'_, Option<ExitStatus>> {
        Box::pin(crate::supervisor::Supervised::exited(self))
    }

    fn cleanup(&mut self) -> BoxFuture<'_, Cleanup> {
        Box::pin(async move {
            let r = crate::supervisor::Supervised::cleanup(self).await;
            Cleanup {
                confirmed: r.confirmed,
                survivors: r.survivors,
                error: r.error,
            }
        })
    }
}
