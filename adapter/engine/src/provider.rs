//! The provider boundary: what the engine needs from a native agent CLI, and nothing more (PROV-1).
//!
//! A provider owns everything specific to one CLI: its command contract (cli-tree), the version
//! assertion (NAT-2), argv, the options it adds to the run tools (their schema for `tools/list`
//! and their validation), its [`Dialect`] (which native event is the final, the session id, a
//! native error), its completion rule (process exit for claude's print mode; the protocol's
//! answer for ACP, delivered as a [`Completion`]), its graceful interrupt and whether the child's
//! stdin is `/dev/null` or a protocol pipe. The engine knows providers only through this trait:
//! runs, bounds, cursors, outcome rules and the work snapshot never depend on which CLI produced
//! the lines. The providers are crates of their own that depend on this one; this crate cannot
//! name them.

use std::fmt;
use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};
use tokio::io::AsyncRead;

use crate::ToolError;
use crate::jsonout::Candidate;
use crate::native::Cleanup;
use crate::native::NativeError;
use crate::tools::{GuardConfig, ToolEvent};
use cmk_supervisor::ExitStatus;

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
    /// The provider's options the caller supplied, by name, as validated against the schema the
    /// provider declared (NAT-4..6); the provider reads them in [`Provider::check`] and `spawn`.
    pub options: Map<String, Value>,
    /// The loop guard's settings (LOOP-4).
    pub guard: GuardConfig,
    /// `json_schema` (JSONOUT-1): claude passes it as `--json-schema`, a provider without such a
    /// flag appends [`crate::jsonout::instruction`] to its prompt.
    pub json_schema: Option<Value>,
}

/// What a successful preflight established (the exact program that passed the version check,
/// so the run starts that same file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked {
    /// The resolved native program.
    pub program: PathBuf,
    /// The check's supervisor, waiting to start the run (C-SUP-1); empty when the preflight ran
    /// none (a run then gets a supervisor of its own). Equality ignores it.
    pub supervisor: cmk_supervisor::Waiting,
}

impl Checked {
    /// A verdict for `program` without a waiting supervisor.
    #[must_use]
    pub fn new(program: PathBuf) -> Self {
        Self {
            program,
            supervisor: cmk_supervisor::Waiting::default(),
        }
    }
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

/// The seven tool roles (TOOL-1), spelled once for the adapter and the gate.
pub use cmk_contract::Role;

/// One option a provider adds to the run tools' input schema (NAT-1, ACP-4).
#[derive(Debug, Clone, PartialEq)]
pub struct OptionDecl {
    /// The argument name.
    pub name: String,
    /// Its JSON Schema fragment (draft 2020-12), description included.
    pub schema: Value,
    /// A bound in UTF-8 bytes the schema's `maxLength` (characters) cannot state (RUN-0).
    pub max_bytes: Option<usize>,
}

/// What a provider says to hosts in its tools' listings.
pub trait Texts: Send + Sync {
    /// The tool's `title` (and its annotations' title).
    fn title(&self, role: Role) -> &'static str;
    /// The tool's `description`.
    fn description(&self, role: Role) -> &'static str;
    /// The description of the `prompt` argument.
    fn prompt_description(&self) -> &'static str;
    /// The server's `instructions` for this family (joined with the others' when several are
    /// served).
    fn instructions(&self) -> &'static str;
    /// The product's name, for texts that cover the family (`Claude Code`).
    fn product(&self) -> &'static str;
    /// What the server runs, for `serverInfo.title` (`Claude Code (print mode)`).
    fn server_title(&self) -> &'static str;
}

/// What a dialect says about one native stdout line before anything is parsed (PROV-1): a
/// dialect decides from bounded state, so a line too long to hold is still recognised.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LineClass {
    /// Whether the line is a final (result) event.
    pub kind: LineKind,
    /// The native session id the line carries at its top level, if any.
    pub session_id: Option<String>,
    /// An ordinary event that may carry a native error (RUN-11): parse it and ask
    /// [`Dialect::event_native_error`].
    pub may_carry_error: bool,
    /// TOOLCALL-1: the line may carry native tool events (decided cheaply, before anything is
    /// parsed): parse it and ask [`Dialect::tool_events`].
    pub may_carry_tool_events: bool,
    /// The line's event type, for the recorder's row of an oversized line.
    pub tag: Option<String>,
}

/// Whether a native line is the run's final (OUT-2).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum LineKind {
    /// An ordinary event.
    #[default]
    Event,
    /// A final (result) event.
    Final,
    /// A final cut short before its tag: a final when the line is not complete JSON
    /// (`malformed_final`); a scanner reports it only for a line that was cut short.
    MaybeCutFinal,
}

/// Classifies a native line too long to hold (BND-1), fed in pieces as it streams past.
pub trait LineScanner: Send + fmt::Debug {
    /// The next piece of the line.
    fn feed(&mut self, chunk: &[u8]);
    /// The line ended.
    fn finish(self: Box<Self>) -> LineClass;
}

/// The scanner of a dialect that learns nothing from its lines' text.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct NoScan;

impl LineScanner for NoScan {
    fn feed(&mut self, _chunk: &[u8]) {}

    fn finish(self: Box<Self>) -> LineClass {
        LineClass::default()
    }
}

/// How the engine reads a provider's native event lines (PROV-1): which line is the final, the
/// session id and native errors. A dialect classifies each line itself ([`Dialect::classify`],
/// [`Dialect::line_scanner`]) before the engine parses anything; the engine knows no native
/// key. A protocol provider whose final comes out of band keeps the defaults.
pub trait Dialect: Send + Sync + fmt::Debug {
    /// What a whole line (at most the line bound) is. Default: an ordinary event that needs no
    /// parsing.
    fn classify(&self, _line: &[u8]) -> LineClass {
        LineClass::default()
    }
    /// A scanner for a line longer than the line bound, which is never held (BND-1, BND-3).
    fn line_scanner(&self) -> Box<dyn LineScanner> {
        Box::new(NoScan)
    }
    /// OUT-2: why a parsed final is not valid.
    fn validate_final(&self, v: &Value) -> Result<(), String>;
    /// The native session id a valid final carries.
    fn final_session_id(&self, v: &Value) -> Option<String>;
    /// The native error a valid final carries, if any.
    fn final_native_error(&self, v: &Value) -> Option<NativeError>;
    /// The native error an ordinary event carries (asked only when its [`LineClass`] says it
    /// may).
    fn event_native_error(&self, _v: &Value) -> Option<NativeError> {
        None
    }
    /// The completion rule (PROV-1): `true` when the process exit settles execution and its
    /// status is part of success (claude's print mode, OUT-1); `false` when the protocol's
    /// answer settles it and the client ends the process (ACP-6).
    fn exit_decides(&self) -> bool;
    /// TOOLCALL-1/2/3: the normalised tool events of a parsed line (a final's included), with
    /// canonical tools and arguments and outcome classes.
    fn tool_events(&self, _v: &Value) -> Vec<ToolEvent> {
        Vec::new()
    }
    /// JSONOUT-1/2: what a valid final offers as structured output (claude's
    /// `structured_output`, Cursor's final text to parse strictly).
    fn structured_candidate(&self, _final_value: &Value) -> Candidate {
        Candidate::Missing
    }
}

/// What a protocol provider learned when its turn settled (ACP-6): delivered out of band, so no
/// native line can forge a final.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Completion {
    /// The final, as the provider builds it (`None`: no answer came).
    pub final_value: Option<Value>,
    /// The final exceeded the final bound (BND-3): its size, when known to be over.
    pub final_oversized: Option<u64>,
    /// The native session id.
    pub session_id: Option<String>,
    /// A failure the protocol reported without a final (an error answer, a refused handshake):
    /// the run's primary error, ranked right after a start failure.
    pub error: Option<ToolError>,
    /// The native error to report with it.
    pub native_error: Option<NativeError>,
}

/// A native agent CLI.
pub trait Provider: Send + Sync + fmt::Debug {
    /// The tool namespace (PROV-2): `claude` gives `claude.run…` and `kind: "claude.run"`.
    fn namespace(&self) -> &'static str;

    /// What the tools of this namespace say to hosts.
    fn texts(&self) -> &dyn Texts;

    /// The options this provider adds to `<ns>.run` / `<ns>.run.start`, in listing order.
    fn options(&self) -> Vec<OptionDecl>;

    /// How its native lines are read.
    fn dialect(&self) -> Arc<dyn Dialect>;

    /// Whether `--record` should record its native stdout lines as `n2a` rows (a protocol
    /// provider records its own wire as `c2a` / `a2c` rows instead).
    fn records_native_lines(&self) -> bool {
        true
    }

    /// After a termination is asked for, how long the process group may take to end before
    /// SIGKILL (SUP-3) plus any graceful interrupt's own grace (ACP-7).
    fn term_grace(&self) -> Duration;

    /// Checks what a schema cannot (value rules of the command contract, exclusions): errors are
    /// `invalid_arguments` with `field`.
    fn check(&self, spec: &RunSpec) -> Result<(), ToolError>;

    /// NAT-2: asserts the native version before each run, bounded by its own limit and by
    /// `deadline`. On failure nothing else is executed. A passing [`Checked`] may carry the
    /// check's supervisor, waiting for [`Provider::spawn`] to start the run (C-SUP-1).
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
    /// A cancel (RUN-6): the provider's graceful interrupt (ACP's `session/cancel`, then the
    /// kill), else [`NativeProcess::terminate`]. Idempotent, returns at once.
    fn interrupt(&self) {
        self.terminate();
    }
    /// The out-of-band completion of a protocol provider (once; `None` for providers whose
    /// completion is the process exit). The future resolves when the turn settled.
    fn take_completion(&mut self) -> Option<BoxFuture<'static, Completion>> {
        None
    }
    /// The group leader ended (`None`: it cannot be known, e.g. the supervisor died).
    fn exited(&mut self) -> BoxFuture<'_, Option<ExitStatus>>;
    /// The cleanup outcome (SUP-3): confirmed only when acknowledged.
    fn cleanup(&mut self) -> BoxFuture<'_, Cleanup>;
}

/// Kernel buffer asked for the native stdout pipe: a larger pipe means far fewer wake-ups
/// while a child streams fast (the ingest benchmark, `bench/ingest.md`). Kernel memory, not the
/// adapter's; the request is capped by `/proc/sys/fs/pipe-max-size` and may fail harmlessly.
pub(crate) const STDOUT_PIPE_BYTES: i32 = 1024 * 1024;

impl NativeProcess for cmk_supervisor::Supervised {
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
        cmk_supervisor::Supervised::terminate(self);
    }

    fn exited(&mut self) -> BoxFuture<'_, Option<ExitStatus>> {
        Box::pin(cmk_supervisor::Supervised::exited(self))
    }

    fn cleanup(&mut self) -> BoxFuture<'_, Cleanup> {
        Box::pin(async move {
            let r = cmk_supervisor::Supervised::cleanup(self).await;
            Cleanup {
                confirmed: r.confirmed,
                survivors: r.survivors,
                error: r.error,
            }
        })
    }
}
