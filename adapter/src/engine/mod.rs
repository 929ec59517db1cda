//! The provider-neutral run engine: the run table, bounds, outcome rules and the work snapshot
//! (RUN, BND, OUT, META-WORK-3..7). Providers (claude stream-json now, Cursor over ACP later)
//! only produce native lines and an exit; everything here is indifferent to which CLI made them.
//!
//! THIS FILE FIXES THE API the MCP layer (`crate::mcp`) calls. The engine author may extend it
//! (new methods, new fields) but keeps these signatures' meaning.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use serde_json::{Map, Value, json};
use uuid::Uuid;

use crate::cli_tree::CliTree;
use crate::record::Recorder;

/// The error codes of TOOL-5, in one place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
        }
    }
}

/// A failed tool operation (TOOL-5): becomes `structuredContent.result.error` with `isError: true`.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolError {
    /// The code.
    pub code: ErrorCode,
    /// A human message (lowercase, with context).
    pub message: String,
    /// Further fields of the error object (e.g. `field` for invalid_arguments, `expected` and
    /// `actual` for version_mismatch).
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
        let mut m = Map::new();
        m.insert("code".into(), self.code.as_str().into());
        m.insert("message".into(), self.message.clone().into());
        for (k, v) in &self.extra {
            m.insert(k.clone(), v.clone());
        }
        Value::Object(m)
    }
}

/// The arguments of `claude.run` / `claude.run.start` after schema validation (RUN-0).
/// `detach_after_s` is a wait option of `claude.run`, handled by the MCP layer, not here.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunRequest {
    pub prompt: String,
    #[serde(default)]
    pub cwd: Option<PathBuf>,
    #[serde(default)]
    pub timeout_s: Option<u64>,
    #[serde(default)]
    pub permission_mode: Option<String>,
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub effort: Option<String>,
    #[serde(default)]
    pub append_system_prompt: Option<String>,
    #[serde(default)]
    pub max_budget_usd: Option<f64>,
    #[serde(default)]
    pub resume_session_id: Option<String>,
    #[serde(default)]
    pub continue_previous: Option<bool>,
    #[serde(default)]
    pub session_id: Option<String>,
    #[serde(default)]
    pub no_session_persistence: Option<bool>,
}

/// The engine's configuration.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// The native binary.
    pub claude: PathBuf,
    /// The pinned command contract.
    pub cli_tree: Arc<CliTree>,
    /// Largest `timeout_s` (BND-4).
    pub max_timeout_s: u64,
    /// The recorder, when `--record` is on.
    pub recorder: Option<Recorder>,
}

/// Why the work snapshot cannot be served (META-WORK-5): answered as JSON-RPC `-32000` with
/// `data: {"unbound_runs": N, "last_revision": R}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotRefused {
    pub unbound_runs: usize,
    pub last_revision: u64,
}

/// The run engine. Cheap to clone; all clones share one run table.
#[derive(Debug, Clone)]
pub struct Engine {
    #[expect(dead_code, reason = "stub until the run engine lands")]
    cfg: Arc<EngineConfig>,
    instance: Uuid,
}

impl Engine {
    /// A new, empty run table with a fresh instance UUID (META-WORK-3).
    #[must_use]
    pub fn new(cfg: EngineConfig) -> Self {
        Self {
            cfg: Arc::new(cfg),
            instance: Uuid::new_v4(),
        }
    }

    /// Reserves and starts a run (RUN-1, RUN-2, RUN-8, NAT-2..8). Returns its `run_id` at once;
    /// the version check, spawn and streaming continue in the background. Argument rules the
    /// schema cannot express (NAT-6 exclusions, cwd existence, timeout bound) are checked here
    /// and fail with `invalid_arguments` and `field`.
    pub fn start(&self, _req: RunRequest, _acquired_by: Option<Uuid>) -> Result<String, ToolError> {
        Err(ToolError::new(
            ErrorCode::Unsupported,
            "the run engine is not built yet",
        ))
    }

    /// Waits until the run settled (cleanup included) or `max_wait` passed. `Ok(true)` when settled.
    pub async fn wait_settled(
        &self,
        _run_id: &str,
        _max_wait: Option<Duration>,
    ) -> Result<bool, ToolError> {
        Err(ToolError::new(ErrorCode::UnknownRun, "no such run"))
    }

    /// A receiver that changes whenever the run's `events_total` changes (for T9 progress), or
    /// `None` for an unknown run.
    #[must_use]
    pub fn progress(&self, _run_id: &str) -> Option<tokio::sync::watch::Receiver<u64>> {
        None
    }

    /// `claude.run.result` (RUN-4): the run's current or settled result object.
    pub fn result(&self, _run_id: &str) -> Result<Value, ToolError> {
        Err(ToolError::new(ErrorCode::UnknownRun, "no such run"))
    }

    /// `claude.run.list` (RUN-3): `{"runs": [...]}`.
    #[must_use]
    pub fn list(&self) -> Value {
        json!({"runs": []})
    }

    /// `claude.run.events` (RUN-5): one bounded page.
    pub fn events(
        &self,
        _run_id: &str,
        _cursor: Option<&str>,
        _limit: usize,
    ) -> Result<Value, ToolError> {
        Err(ToolError::new(ErrorCode::UnknownRun, "no such run"))
    }

    /// `claude.run.cancel` (RUN-6).
    pub fn cancel(&self, _run_id: &str) -> Result<Value, ToolError> {
        Err(ToolError::new(ErrorCode::UnknownRun, "no such run"))
    }

    /// `claude.run.release` (RUN-7).
    pub fn release(&self, _run_id: &str) -> Result<Value, ToolError> {
        Err(ToolError::new(ErrorCode::UnknownRun, "no such run"))
    }

    /// The work snapshot (META-WORK-3..7), or why it cannot be served (META-WORK-5).
    pub fn snapshot(&self) -> Result<Value, SnapshotRefused> {
        Ok(
            json!({"format_version": 1, "instance": self.instance.to_string(), "revision": 0, "work": []}),
        )
    }

    /// T8: cancels every active run and waits (bounded) for their cleanup.
    pub async fn shutdown(&self) {}
}
