//! The provider-neutral run engine: the run table, bounds, outcome rules and the work snapshot
//! (RUN, BND, OUT, META-WORK-3..7). Providers (claude stream-json, Cursor's agent over ACP: the
//! crates `cmk-provider-claude` and `cmk-provider-cursor`, which depend on this one, so this crate
//! cannot name them) only produce native lines, an exit and,
//! for protocol providers, a completion; everything here is indifferent to which CLI made them
//! (PROV-1). Runs of every provider share one table, one capacity and one snapshot (PROV-2).
//!
//! THIS FILE FIXES THE API the MCP layer (`cmk-mcp-server`) calls. The engine author may extend it
//! (new methods, new fields) but keeps these signatures' meaning.
//!
//! Choices the contract leaves open, made here (and worth a host's knowing):
//! - `run_id` is `run_` + 32 hex digits: opaque, never UUID-shaped, so it cannot be mistaken for
//!   a native session id (RUN-2, NAT-6).
//! - `claude.run.cancel` of an active run answers `{run_id, state: "settling", already_settled:
//!   false}` at once; the run becomes `cancelled` (or `uncertain`) when its cleanup is known.
//!   A cancel that arrives after the native process already exited changes no outcome.
//! - `events_total` counts every non-blank native stdout line, oversized ones included;
//!   `events_dropped` counts buffer overflow (BND-2). In pages, `omitted_oversized` counts the
//!   oversized events omitted in the range the page covers; without a cursor a page starts at
//!   the oldest retained event and `missed_events` says how many were dropped before it.
//! - A native line that is not JSON appears in pages as a JSON string of its text.
//! - Which line is a final, and what makes it valid, is the provider's dialect (claude: a line
//!   whose top-level `type` is `result`, or one cut short that carries `is_error`).
//! - `native_error` is the valid final's error, else the first event carrying one, else, for a
//!   nonzero exit that speaks for the run, the last stderr line.
//! - A run belongs to one provider namespace: the tools of another namespace answer
//!   `unknown_run` for it, saying which namespace holds it.
//! - `list` entries and results carry `native_session_id` / `acquired_by` as `null` when
//!   unknown / unbound.
//!
//! Layout: `request` (argument checks), [`provider`] (the provider boundary and dialect),
//! `table` (run table, capacity, snapshot), `driver` (one run's task), [`ingest`] / [`ring`]
//! (bounded native output, classified by the provider's dialect), [`outcome`] (OUT-1/OUT-2),
//! [`native`] (what the native side said: native errors, cleanup), [`tools`] (tool calls and the
//! loop guard), [`jsonout`] (structured output), [`schema_cost`] (what a `json_schema` may
//! cost), [`results`] (the tools' typed results),
//! `config` ([`EngineConfig`], the host's [`Hooks`], [`ToolNames`]), [`record`] (the `--record`
//! wire recorder), [`diag`] (stderr diagnostics that never block).

#![warn(unreachable_pub)]

mod config;
pub mod diag;
mod driver;
pub mod ingest;
pub mod jsonout;
pub mod native;
pub mod outcome;
pub mod provider;
pub mod record;
mod request;
pub mod results;
pub mod ring;
pub mod schema_cost;
mod table;
pub mod tools;

pub use config::{EngineConfig, Hooks, ToolNames};

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};
use tokio::sync::watch;
use uuid::Uuid;

use provider::Provider;
use results::{CancelAnswer, EventsPage, ListedRun, Released, RunList, RunResult};
use table::{Run, RunData, Table};

/// Serialises a result type into JSON. Infallible for the types of this module (derived
/// `Serialize`, string keys only), like `serde_json::json!`, which makes the same assumption.
#[must_use]
pub fn to_json<T: serde::Serialize + ?Sized>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or_else(|e| {
        // Unreachable for these types; say so rather than answer something undeclared.
        crate::diag::emit(format!(
            "claude-mcp-adapter: a result did not serialise: {e}"
        ));
        Value::Null
    })
}

/// The error codes of TOOL-5, in one place; serialised as [`ErrorCode::as_str`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ErrorCode {
    InvalidArguments,
    UnknownRun,
    RunActive,
    CleanupUnconfirmed,
    CapacityExhausted,
    NativeNotFound,
    VersionMismatch,
    SpawnFailed,
    Timeout,
    Cancelled,
    NonzeroExit,
    MissingFinal,
    DuplicateFinal,
    MalformedFinal,
    OversizedFinal,
    NativeError,
    CleanupFailed,
    Unsupported,
    /// LOOP-3: the loop guard stopped the run.
    LoopDetected,
    /// JSONOUT-3: `json_schema` was given and the final's structured output is missing,
    /// unparsable or schema-invalid.
    InvalidStructuredOutput,
}

impl ErrorCode {
    /// The wire spelling (TOOL-5).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidArguments => "invalid_arguments",
            ErrorCode::UnknownRun => "unknown_run",
            ErrorCode::RunActive => "run_active",
            ErrorCode::CleanupUnconfirmed => "cleanup_unconfirmed",
            ErrorCode::CapacityExhausted => "capacity_exhausted",
            ErrorCode::NativeNotFound => "native_not_found",
            ErrorCode::VersionMismatch => "version_mismatch",
            ErrorCode::SpawnFailed => "spawn_failed",
            ErrorCode::Timeout => "timeout",
            ErrorCode::Cancelled => "cancelled",
            ErrorCode::NonzeroExit => "nonzero_exit",
            ErrorCode::MissingFinal => "missing_final",
            ErrorCode::DuplicateFinal => "duplicate_final",
            ErrorCode::MalformedFinal => "malformed_final",
            ErrorCode::OversizedFinal => "oversized_final",
            ErrorCode::NativeError => "native_error",
            ErrorCode::CleanupFailed => "cleanup_failed",
            ErrorCode::Unsupported => "unsupported",
            ErrorCode::LoopDetected => "loop_detected",
            ErrorCode::InvalidStructuredOutput => "invalid_structured_output",
        }
    }
}

/// A failed tool operation (TOOL-5): becomes `structuredContent.result.error` with `isError: true`.
/// Serialises as the error object `{code, message, ...extra}`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, schemars::JsonSchema)]
pub struct ToolError {
    /// The error code (TOOL-5).
    pub code: ErrorCode,
    /// What went wrong, for a human.
    pub message: String,
    /// Further fields of the error object (e.g. `field` for invalid_arguments, `expected` and
    /// `actual` for version_mismatch).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ToolError {
    /// An error with no extra fields.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            extra: Map::new(),
        }
    }

    /// `invalid_arguments` naming the offending argument by JSON Pointer (TOOL-3).
    pub fn invalid_argument(pointer: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidArguments, message).with("field", pointer.into().into())
    }

    /// Adds a field to the error object.
    #[must_use]
    pub fn with(mut self, key: &str, value: Value) -> Self {
        self.extra.insert(key.into(), value);
        self
    }

    /// The `{code, message, ...}` object.
    #[must_use]
    pub fn to_value(&self) -> Value {
        to_json(self)
    }
}

/// The arguments of `<ns>.run` / `<ns>.run.start` after schema validation (RUN-0): the
/// engine's own (`prompt`, `cwd`, `timeout_s`) and the provider's options, by name.
/// `detach_after_s` is a wait option of `<ns>.run`, handled by the MCP layer, not here.
#[derive(Debug, Clone, Default)]
pub struct RunRequest {
    pub prompt: String,
    pub cwd: Option<PathBuf>,
    pub timeout_s: Option<u64>,
    /// `loop_guard` (LOOP-4): `on` (default) or `off`.
    pub loop_guard: Option<String>,
    /// `loop_limit` (LOOP-4): 2 to 64, default 2.
    pub loop_limit: Option<u64>,
    /// `json_schema` (JSONOUT-1).
    pub json_schema: Option<Value>,
    /// Every other argument: the provider's options (validated against the schema it declared).
    pub options: Map<String, Value>,
}

/// The run arguments the engine owns, for every provider (a provider's options never use these
/// names).
pub const ENGINE_ARGUMENTS: [&str; 6] = [
    "prompt",
    "cwd",
    "timeout_s",
    "loop_guard",
    "loop_limit",
    "json_schema",
];

impl RunRequest {
    /// Splits validated arguments into the engine's own and the provider's options.
    pub fn from_arguments(mut args: Map<String, Value>) -> Result<Self, ToolError> {
        let prompt = match args.remove("prompt") {
            Some(Value::String(p)) => p,
            _ => {
                return Err(ToolError::invalid_argument(
                    "/prompt",
                    "prompt must be a string",
                ));
            }
        };
        let cwd = match args.remove("cwd") {
            None => None,
            Some(Value::String(c)) => Some(PathBuf::from(c)),
            Some(_) => return Err(ToolError::invalid_argument("/cwd", "cwd must be a string")),
        };
        let timeout_s = match args.remove("timeout_s") {
            None => None,
            Some(v) => Some(v.as_u64().ok_or_else(|| {
                ToolError::invalid_argument("/timeout_s", "timeout_s must be a whole number")
            })?),
        };
        let loop_guard = match args.remove("loop_guard") {
            None => None,
            Some(Value::String(g)) => Some(g),
            Some(_) => {
                return Err(ToolError::invalid_argument(
                    "/loop_guard",
                    "loop_guard must be \"on\" or \"off\"",
                ));
            }
        };
        let loop_limit = match args.remove("loop_limit") {
            None => None,
            Some(v) => Some(v.as_u64().ok_or_else(|| {
                ToolError::invalid_argument("/loop_limit", "loop_limit must be a whole number")
            })?),
        };
        let json_schema = args.remove("json_schema");
        Ok(Self {
            prompt,
            cwd,
            timeout_s,
            loop_guard,
            loop_limit,
            json_schema,
            options: args,
        })
    }
}

/// Why the work snapshot cannot be served (META-WORK-5): answered as JSON-RPC `-32000` with
/// `data: {"unbound_runs": N, "last_revision": R, "unbound": [{run_id, kind, state}...]}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotRefused {
    pub unbound_runs: usize,
    pub last_revision: u64,
    /// The unbound runs (at most the table's 32): `(run_id, kind, state)`.
    pub unbound: Vec<(String, String, RunState)>,
}

/// A run's state (RUN-10); serialised as [`RunState::as_str`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RunState {
    /// Admitted; the version check runs.
    Pending,
    /// The native process is being started.
    Starting,
    /// The native process runs and streams.
    Running,
    /// Execution ended or was stopped; waiting for the exit, cleanup and the drain.
    Settling,
    /// OUT-1 holds.
    Succeeded,
    /// Settled with an error, cleanup confirmed.
    Failed,
    /// Cancelled, cleanup confirmed.
    Cancelled,
    /// Timed out, cleanup confirmed.
    TimedOut,
    /// Settled without confirmed cleanup, whatever the execution outcome.
    Uncertain,
}

impl RunState {
    /// The wire spelling.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            RunState::Pending => "pending",
            RunState::Starting => "starting",
            RunState::Running => "running",
            RunState::Settling => "settling",
            RunState::Succeeded => "succeeded",
            RunState::Failed => "failed",
            RunState::Cancelled => "cancelled",
            RunState::TimedOut => "timed_out",
            RunState::Uncertain => "uncertain",
        }
    }

    /// Settled (`completed: true`): the run will not change any more.
    #[must_use]
    pub(crate) fn is_settled(self) -> bool {
        self.rank() >= 4
    }

    /// Not settled yet.
    #[must_use]
    pub(crate) fn is_active(self) -> bool {
        !self.is_settled()
    }

    /// Settled with confirmed cleanup: may be released or evicted (RUN-7, RUN-8).
    #[must_use]
    pub(crate) fn is_evictable(self) -> bool {
        self.is_settled() && self != RunState::Uncertain
    }

    /// Position along RUN-10's order; states only move to a higher rank.
    #[must_use]
    fn rank(self) -> u8 {
        match self {
            RunState::Pending => 0,
            RunState::Starting => 1,
            RunState::Running => 2,
            RunState::Settling => 3,
            _ => 4,
        }
    }
}

/// Bound of [`Engine::shutdown`]'s wait for cleanup (T8).
pub const SHUTDOWN_WAIT: Duration = Duration::from_secs(20);

/// The run engine. Cheap to clone; all clones share one run table.
#[derive(Debug, Clone)]
pub struct Engine {
    cfg: Arc<EngineConfig>,
    providers: Arc<[Arc<dyn Provider>]>,
    table: Arc<Table>,
    instance: Uuid,
}

impl Engine {
    /// A new, empty run table with a fresh instance UUID (META-WORK-3) shared by `providers`
    /// (PROV-2: one table, one capacity, one snapshot), each under its own namespace. The first
    /// is the default of [`Engine::start`].
    #[must_use]
    pub fn new(cfg: EngineConfig, providers: Vec<Arc<dyn Provider>>) -> Self {
        Self {
            cfg: Arc::new(cfg),
            providers: providers.into(),
            table: Arc::new(Table::default()),
            instance: Uuid::new_v4(),
        }
    }

    /// An engine with one provider.
    #[must_use]
    pub fn with_provider(cfg: EngineConfig, provider: Arc<dyn Provider>) -> Self {
        Self::new(cfg, vec![provider])
    }

    /// The providers, in the order given.
    #[must_use]
    pub fn providers(&self) -> &[Arc<dyn Provider>] {
        &self.providers
    }

    /// The provider of a namespace.
    fn provider(&self, namespace: Option<&str>) -> Result<&Arc<dyn Provider>, ToolError> {
        let found = match namespace {
            None => self.providers.first(),
            Some(ns) => self.providers.iter().find(|p| p.namespace() == ns),
        };
        found.ok_or_else(|| {
            ToolError::new(
                ErrorCode::Unsupported,
                format!("no provider serves {}", namespace.unwrap_or("runs")),
            )
        })
    }

    /// The run, when it belongs to `namespace` (any namespace when `None`).
    fn run_in(
        &self,
        namespace: Option<&str>,
        run_id: &str,
    ) -> Result<(Arc<Run>, RunState, Option<Uuid>), ToolError> {
        let found = self.table.get(run_id)?;
        match namespace {
            Some(ns) if found.0.namespace != ns => Err(ToolError::new(
                ErrorCode::UnknownRun,
                format!(
                    "run {run_id} is a {0} run; read it with the {0} tools",
                    self.cfg
                        .tool_names
                        .project(&format!("{}.run", found.0.namespace))
                ),
            )
            .with("run_id", run_id.into())),
            _ => Ok(found),
        }
    }

    /// This adapter process's instance UUID (META-WORK-3).
    #[must_use]
    pub fn instance(&self) -> Uuid {
        self.instance
    }

    /// Reserves and starts a run (RUN-1, RUN-2, RUN-8, NAT-2..8). Returns its `run_id` at once;
    /// the version check, spawn and streaming continue in the background. Argument rules the
    /// schema cannot express (NAT-6 exclusions, cwd existence, timeout bound) are checked here
    /// and fail with `invalid_arguments` and `field`. Must be called inside a tokio runtime.
    pub fn start(&self, req: RunRequest, acquired_by: Option<Uuid>) -> Result<String, ToolError> {
        self.start_in(None, req, acquired_by)
    }

    /// [`Engine::start`] with the provider of `namespace` (the first when `None`).
    pub fn start_in(
        &self,
        namespace: Option<&str>,
        req: RunRequest,
        acquired_by: Option<Uuid>,
    ) -> Result<String, ToolError> {
        let provider = self.provider(namespace)?.clone();
        let spec = request::validate(req, self.cfg.max_timeout_s)?;
        provider.check(&spec)?;
        let handle = tokio::runtime::Handle::try_current().map_err(|e| {
            ToolError::new(
                ErrorCode::SpawnFailed,
                format!("no async runtime to run in: {e}"),
            )
        })?;
        // RUN-2: opaque, adapter-owned; not a pid, not a native session id (no UUID shape).
        let run_id = format!("run_{}", Uuid::new_v4().simple());
        let nonce = rand_u32();
        let run = Arc::new(Run {
            run_id: run_id.clone(),
            namespace: provider.namespace(),
            timeout_s: spec.timeout.as_secs(),
            data: std::sync::Mutex::new(RunData {
                ingest: ingest::Ingest::new(
                    nonce,
                    self.cfg
                        .recorder
                        .clone()
                        .filter(|_| provider.records_native_lines()),
                    provider.dialect(),
                )
                .with_guard(spec.guard),
                exit: None,
                cleanup: None,
                outcome: None,
            }),
            progress: watch::Sender::new(0),
            state: watch::Sender::new(RunState::Pending),
            cancel: watch::Sender::new(false),
        });
        self.table.admit(run.clone(), acquired_by)?;
        let task = handle.spawn(driver::drive(
            self.table.clone(),
            provider,
            run.clone(),
            spec,
            self.cfg.recorder.clone(),
        ));
        // A driver that panicked never settles its run by itself: settle it as uncertain (its
        // supervisor handle was dropped while unwinding, which SIGKILLs the group, SUP-2, but
        // nobody saw the acknowledgement).
        let table = self.table.clone();
        handle.spawn(async move {
            if let Err(e) = task.await
                && e.is_panic()
            {
                driver::abandon(&table, &run, "the run's task panicked");
            }
        });
        Ok(run_id)
    }

    /// Waits until the run settled (cleanup included) or `max_wait` passed. `Ok(true)` when settled.
    pub async fn wait_settled(
        &self,
        run_id: &str,
        max_wait: Option<Duration>,
    ) -> Result<bool, ToolError> {
        let (run, _, _) = self.table.get(run_id)?;
        let mut rx = run.state.subscribe();
        drop(run);
        let wait = async {
            // A closed channel means the run was dropped, which only happens once settled.
            let _ = rx.wait_for(|s| s.is_settled()).await;
        };
        match max_wait {
            None => {
                wait.await;
                Ok(true)
            }
            Some(d) => Ok(tokio::time::timeout(d, wait).await.is_ok()),
        }
    }

    /// A receiver that changes whenever the run's `events_total` changes (for T9 progress), or
    /// `None` for an unknown run.
    #[must_use]
    pub fn progress(&self, run_id: &str) -> Option<tokio::sync::watch::Receiver<u64>> {
        self.table
            .get(run_id)
            .ok()
            .map(|(r, _, _)| r.progress.subscribe())
    }

    /// The run's current state, or `None` for an unknown run.
    #[must_use]
    pub fn state(&self, run_id: &str) -> Option<RunState> {
        self.table.get(run_id).ok().map(|(_, s, _)| s)
    }

    /// `claude.run.result` (RUN-4): the run's current or settled result object, plus
    /// `stderr_tail` (RUN-11).
    pub fn result(&self, run_id: &str) -> Result<RunResult, ToolError> {
        self.result_in(None, run_id)
    }

    /// [`Engine::result`] of a run of `namespace` only.
    pub fn result_in(&self, namespace: Option<&str>, run_id: &str) -> Result<RunResult, ToolError> {
        let (run, state, _) = self.run_in(namespace, run_id)?;
        let d = run.data();
        Ok(result_of(&run.run_id, state, &d))
    }

    /// `claude.run.list` (RUN-3): `{"runs": [...]}`, oldest first. `native_session_id` and
    /// `acquired_by` are `null` when unknown / unbound.
    #[must_use]
    pub fn list(&self) -> RunList {
        self.list_in(None)
    }

    /// [`Engine::list`] of the runs of `namespace` only.
    #[must_use]
    pub fn list_in(&self, namespace: Option<&str>) -> RunList {
        let runs = self
            .table
            .all()
            .into_iter()
            .filter(|(run, _, _)| namespace.is_none_or(|ns| run.namespace == ns))
            .map(|(run, state, by)| ListedRun {
                run_id: run.run_id.clone(),
                state,
                completed: state.is_settled(),
                is_error: is_error(state),
                native_session_id: run.data().ingest.sink.session_id.clone(),
                acquired_by: by.map(|u| u.to_string()),
            })
            .collect();
        RunList { runs }
    }

    /// `claude.run.events` (RUN-5): one bounded page.
    pub fn events(
        &self,
        run_id: &str,
        cursor: Option<&str>,
        limit: usize,
    ) -> Result<EventsPage, ToolError> {
        self.events_in(None, run_id, cursor, limit)
    }

    /// [`Engine::events`] of a run of `namespace` only.
    pub fn events_in(
        &self,
        namespace: Option<&str>,
        run_id: &str,
        cursor: Option<&str>,
        limit: usize,
    ) -> Result<EventsPage, ToolError> {
        if !(1..=ring::MAX_EVENTS).contains(&limit) {
            return Err(ToolError::invalid_argument(
                "/limit",
                format!("limit {limit} is outside 1..={}", ring::MAX_EVENTS),
            ));
        }
        let (run, _, _) = self.run_in(namespace, run_id)?;
        let d = run.data();
        let page = d.ingest.sink.ring.page(cursor, limit).map_err(|_| {
            ToolError::invalid_argument("/cursor", "cursor was not issued for this run")
        })?;
        Ok(EventsPage {
            events: page.events,
            next_cursor: page.next_cursor,
            has_more: page.has_more,
            missed_events: page.missed_events,
            stale_cursor: page.stale_cursor,
            omitted_oversized: page.omitted_oversized,
        })
    }

    /// `claude.run.cancel` (RUN-6): `{run_id, state, already_settled}`. An active run is asked to
    /// stop (its group is killed through the supervisor) and is `settling` until its cleanup is
    /// known; a settled run is left as it is.
    pub fn cancel(&self, run_id: &str) -> Result<CancelAnswer, ToolError> {
        self.table.cancel(run_id)
    }

    /// [`Engine::cancel`] of a run of `namespace` only.
    pub fn cancel_in(
        &self,
        namespace: Option<&str>,
        run_id: &str,
    ) -> Result<CancelAnswer, ToolError> {
        self.run_in(namespace, run_id)?;
        self.table.cancel(run_id)
    }

    /// `claude.run.release` (RUN-7): `{run_id, released: true}`.
    pub fn release(&self, run_id: &str) -> Result<Released, ToolError> {
        self.table.release(run_id, || self.cfg.hooks.idle())
    }

    /// [`Engine::release`] of a run of `namespace` only.
    pub fn release_in(&self, namespace: Option<&str>, run_id: &str) -> Result<Released, ToolError> {
        self.run_in(namespace, run_id)?;
        self.table.release(run_id, || self.cfg.hooks.idle())
    }

    /// The work snapshot (META-WORK-3..7), or why it cannot be served (META-WORK-5).
    pub fn snapshot(&self) -> Result<Value, SnapshotRefused> {
        self.table.snapshot(self.instance)
    }

    /// T8: cancels every active run and waits (bounded by [`SHUTDOWN_WAIT`]) for their cleanup.
    pub async fn shutdown(&self) {
        let active: Vec<String> = self
            .table
            .all()
            .into_iter()
            .filter(|(_, s, _)| s.is_active())
            .map(|(r, _, _)| r.run_id.clone())
            .collect();
        for id in &active {
            let _ = self.table.cancel(id);
        }
        let all = async {
            for id in &active {
                let _ = self.wait_settled(id, None).await;
            }
        };
        let _ = tokio::time::timeout(SHUTDOWN_WAIT, all).await;
        self.cfg.hooks.shut_down();
    }
}

fn is_error(state: RunState) -> bool {
    state.is_settled() && state != RunState::Succeeded
}

/// RUN-4's shape, exactly, plus `stderr_tail` (RUN-11), the tool calls, denials and loop guard
/// (TOOLCALL-4, LOOP-4) and `structured` (JSONOUT-3).
fn result_of(run_id: &str, state: RunState, d: &RunData) -> RunResult {
    let sink = &d.ingest.sink;
    let settled = state.is_settled();
    let outcome = d.outcome.as_ref().filter(|_| settled);
    let native_error = match outcome {
        Some(o) => o.native_error.clone(),
        None => d.ingest.stream_native_error(),
    };
    let tools = &sink.tools;
    RunResult {
        run_id: run_id.to_owned(),
        state,
        completed: settled,
        is_error: is_error(state),
        native_session_id: sink.session_id.clone(),
        final_event: sink.finals.kept.clone(),
        native_error,
        error: outcome.and_then(|o| o.error.clone()),
        cleanup_confirmed: settled && d.cleanup.as_ref().is_some_and(|c| c.confirmed),
        cleanup_error: d
            .cleanup
            .as_ref()
            .filter(|_| settled)
            .and_then(native::Cleanup::error_text),
        exit_code: d.exit.and_then(|e| e.code),
        signal: d.exit.and_then(|e| e.signal),
        events_total: sink.events_total,
        events_dropped: sink.ring.dropped(),
        stderr_tail: d.ingest.stderr_tail(),
        // TOOLCALL-4, LOOP-4, JSONOUT-3.
        tool_calls: tools.calls_summary(),
        permission_denials: tools.denials_summary(),
        loop_guard: tools.guard_summary(),
        structured: outcome.and_then(|o| o.structured.clone()),
    }
}

/// A random nonce for cursors (from a v4 UUID: no extra dependency).
fn rand_u32() -> u32 {
    let b = Uuid::new_v4().into_bytes();
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

#[cfg(test)]
mod tests;
