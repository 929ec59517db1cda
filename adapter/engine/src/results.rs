//! The typed results of the run tools (RUN-2..7, RUN-11, TOOLCALL-4, LOOP-4, JSONOUT-3): the one
//! source of truth for both what a tool answers and the `outputSchema` it declares (TOOL-6).
//!
//! The engine builds these structs; the MCP layer serialises them into `structuredContent.result`
//! (`cmk_mcp_server::tool_result`) and `tools/list` shows the JSON Schema generated from the very
//! same types (`cmk_mcp_server::output_schema`), so a field cannot be answered without being
//! declared, nor declared without being answered.
//!
//! Serialisation rules every type here keeps (the goldens in `recordings/` pin the bytes):
//! - fields serialise in declaration order, and every field is always present (`None` is
//!   `null`; nothing is skipped), which is why the generated schemas require every property;
//! - enums serialise as their snake_case wire spelling.
//!
//! Doc comments here become the schema's `description`s: they describe the field for a host of
//! any provider namespace, so they never name a tool.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use crate::native::NativeError;
use crate::tools::{Denials, LoopGuard, ToolCalls};
use crate::{RunState, ToolError};

/// A run's result or current state (RUN-4, RUN-11).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RunResult {
    /// The run's handle.
    pub run_id: String,
    /// The run's state (RUN-10).
    pub state: RunState,
    /// Settled: the run will not change any more (not: succeeded).
    pub completed: bool,
    /// Settled and not succeeded.
    pub is_error: bool,
    /// The native session id, once known.
    pub native_session_id: Option<String>,
    /// The native final result event, as the native CLI wrote it.
    #[serde(rename = "final")]
    #[schemars(schema_with = "object_or_null")]
    pub final_event: Option<Value>,
    /// What the native side reported as its error.
    pub native_error: Option<NativeError>,
    /// The run's primary error once settled failed (OUT-2).
    pub error: Option<ToolError>,
    /// The run's process group is known to be gone.
    pub cleanup_confirmed: bool,
    /// Why cleanup is not confirmed, when it is not.
    pub cleanup_error: Option<String>,
    /// The native process's exit status.
    pub exit_code: Option<i32>,
    /// The signal that ended the native process.
    pub signal: Option<i32>,
    /// Non-blank native stdout lines seen.
    pub events_total: u64,
    /// Events dropped from the bounded buffer.
    pub events_dropped: u64,
    /// The end of the native stderr (bounded).
    pub stderr_tail: String,
    /// The normalised native tool calls (TOOLCALL-4).
    pub tool_calls: ToolCalls,
    /// The native permission denials (TOOLCALL-4).
    pub permission_denials: Denials,
    /// The loop guard's state (LOOP-4).
    pub loop_guard: LoopGuard,
    /// The JSON object the run delivered for `json_schema` (JSONOUT-3).
    #[schemars(schema_with = "object_or_null")]
    pub structured: Option<Value>,
}

/// The retained runs, oldest first (RUN-3).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RunList {
    /// The runs.
    pub runs: Vec<ListedRun>,
}

/// One retained run (RUN-3).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ListedRun {
    /// The run's handle.
    pub run_id: String,
    /// The run's state (RUN-10).
    pub state: RunState,
    /// Settled.
    pub completed: bool,
    /// Settled and not succeeded.
    pub is_error: bool,
    /// The native session id, once known.
    pub native_session_id: Option<String>,
    /// The acquiring invocation's UUID (META-WORK-4), or `null` when unbound.
    pub acquired_by: Option<String>,
}

/// One bounded page of native events (RUN-5).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct EventsPage {
    /// The events, as parsed; a line that is not JSON is a JSON string of its text.
    #[schemars(schema_with = "any_values")]
    pub events: Vec<Value>,
    /// Where the next page starts.
    pub next_cursor: String,
    /// More events are retained after this page.
    pub has_more: bool,
    /// Events dropped before the page's start.
    pub missed_events: u64,
    /// The cursor pointed before the oldest retained event.
    pub stale_cursor: bool,
    /// Oversized events omitted in the range the page covers.
    pub omitted_oversized: u64,
}

/// A run just admitted (RUN-2).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Started {
    /// The run's handle.
    pub run_id: String,
    /// Its state.
    pub state: RunState,
}

/// A cancel's answer (RUN-6).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CancelAnswer {
    /// The run's handle.
    pub run_id: String,
    /// Its state now (`settling` until its cleanup is known).
    pub state: RunState,
    /// It had settled before the cancel; nothing changed.
    pub already_settled: bool,
}

/// A release's answer (RUN-7).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Released {
    /// The run's handle.
    pub run_id: String,
    /// Always `true`.
    pub released: bool,
}

/// A failed operation's result: `{"error": {code, message, ...}}` (TOOL-5).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Failure<'a> {
    /// The error.
    pub error: &'a ToolError,
}

// The schemas of the fields that hold native JSON. schemars declares a `Value` as the schema
// `true` (anything), which strict hosts flag as unportable (a bare boolean where a schema object
// is expected) and which tells a reader nothing; these say what the adapter actually puts there.
//
// The same functions declare the tool-call and loop-guard reports' entries as objects, one level
// deep: every `tools/list` carries each run tool's output schema into a model's context, and
// those entries' members are diagnostics a host reads from `docs/results.md`, which renders
// their types whole.

/// An array of JSON objects (the reports' entries).
pub(crate) fn objects(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"type": "array", "items": {"type": "object"}})
}

/// A JSON object (native tool arguments are always one).
pub(crate) fn json_object(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"type": "object"})
}

/// A JSON object or `null` (the kept final is the first native final that parsed as an
/// object; `structured` is the delivered object; arguments when known).
pub(crate) fn object_or_null(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"anyOf": [{"type": "object"}, {"type": "null"}]})
}

/// An array of any JSON values, each type spelled as its own `anyOf` branch (a native line is
/// whatever JSON it parsed as, or a string of its text).
fn any_values(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": "array",
        "items": {"anyOf": [
            {"type": "object"}, {"type": "array"}, {"type": "string"},
            {"type": "number"}, {"type": "boolean"}, {"type": "null"}
        ]}
    })
}
