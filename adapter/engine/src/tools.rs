//! Normalised tool calls and the loop guard (TOOLCALL-1..4, LOOP-1..4), provider-neutral.
//!
//! A provider's dialect turns the native tool events of a line into [`ToolEvent`]s whose `tool`
//! is already one of [`CANONICAL_TOOLS`] and whose `arguments` already use one spelling per tool
//! (the alias table is the provider's data). The [`ToolTracker`] of a run correlates calls with
//! their outcomes by `call_id`, keeps a bounded summary (`TOOL_CALLS_MAX` entries and a count of
//! those left out) and the permission denials in one shape for every provider, and runs the loop
//! guard each time an outcome becomes known:
//!
//! - strict fingerprint: canonical tool + canonical arguments + outcome class; seen more than
//!   `limit` times (default [`DEFAULT_LOOP_LIMIT`]) trips (LOOP-1);
//! - coarse fingerprint of exploratory tools (`EXPLORATORY`): tool + outcome class, with the
//!   derived limit `limit * COARSE_FACTOR` (LOOP-2). Only outcomes other than `ok` count
//!   coarsely: reading many different files successfully is progress, never a loop, while
//!   guessing missing paths over and over is.
//!
//! Memory is bounded whatever the native process does: argument strings in the summary are cut
//! at `ARGUMENT_TEXT_MAX` bytes (fingerprints hash the full canonical arguments first), at most
//! `OPEN_MAX` calls wait for an outcome and at most `FINGERPRINTS_MAX` distinct strict
//! fingerprints are counted (later new ones are not; the coarse ones always are).
//!
//! The guard observes: it can stop the run (the engine cancels it through the normal path), it
//! cannot undo what the native process already did.

use std::collections::{HashMap, HashSet};
use std::hash::{DefaultHasher, Hash, Hasher};

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};

/// The canonical tool vocabulary (TOOLCALL-2).
pub const CANONICAL_TOOLS: [&str; 11] = [
    "bash", "read", "write", "edit", "grep", "glob", "fetch", "search", "task", "todo", "other",
];
/// Tools fingerprinted coarsely too (LOOP-2).
pub(crate) const EXPLORATORY: [&str; 4] = ["read", "grep", "glob", "search"];
/// Tools whose success produces no output.
pub(crate) const SILENT_TOOLS: [&str; 3] = ["todo", "task", "other"];
/// Most calls listed in `.result.tool_calls.calls` (TOOLCALL-4).
pub(crate) const TOOL_CALLS_MAX: usize = 256;
/// Most denials listed in `.result.permission_denials.denials`.
pub(crate) const DENIALS_MAX: usize = 256;
/// Longest argument string kept in the summary (bytes, cut at a character boundary).
pub(crate) const ARGUMENT_TEXT_MAX: usize = 512;
/// Most calls waiting for their outcome at once.
pub(crate) const OPEN_MAX: usize = 1024;
/// Most distinct strict fingerprints counted.
pub(crate) const FINGERPRINTS_MAX: usize = 4096;
/// The strict limit's default (LOOP-1).
pub const DEFAULT_LOOP_LIMIT: u32 = 2;
/// The range of `loop_limit` (LOOP-4).
pub const LOOP_LIMIT_MIN: u32 = 2;
/// The range of `loop_limit` (LOOP-4).
pub const LOOP_LIMIT_MAX: u32 = 64;
/// The coarse limit of exploratory tools is the strict limit times this (LOOP-2).
pub(crate) const COARSE_FACTOR: u32 = 8;
/// Longest `call_id` / `native_name` kept.
const NAME_MAX: usize = 256;

/// One outcome class (TOOLCALL-3); serialised as its wire spelling ([`ToolOutcome::as_str`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ToolOutcome {
    /// The tool did its job.
    Ok,
    /// The native side refused the call's input.
    ValidationFailed,
    /// A path the call named does not exist.
    MissingPath,
    /// Denied (claude's `permission_denials`; Cursor's rejected or denied-and-silent calls).
    PermissionDenied,
    /// The tool ran out of time.
    Timeout,
    /// Any other failure.
    ToolError,
    /// No result was seen.
    Unknown,
}

impl ToolOutcome {
    /// The wire spelling.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            ToolOutcome::Ok => "ok",
            ToolOutcome::ValidationFailed => "validation_failed",
            ToolOutcome::MissingPath => "missing_path",
            ToolOutcome::PermissionDenied => "permission_denied",
            ToolOutcome::Timeout => "timeout",
            ToolOutcome::ToolError => "tool_error",
            ToolOutcome::Unknown => "unknown",
        }
    }
}

/// A normalised tool event a dialect read from one native line (TOOLCALL-1).
#[derive(Debug, Clone, PartialEq)]
pub enum ToolEvent {
    /// A call began, or its input became known: a later `Call` with the same `call_id` replaces
    /// the tool, name and arguments (ACP fills `rawInput` in a `tool_call_update`).
    Call {
        /// The native call id.
        call_id: String,
        /// One of [`CANONICAL_TOOLS`]; `None` keeps the call's (an update that does not repeat
        /// it), else `other`.
        tool: Option<String>,
        /// The native name (`Bash`, ACP's `kind` or `_toolName`); `None` keeps the call's.
        native_name: Option<String>,
        /// Canonical arguments.
        arguments: Map<String, Value>,
    },
    /// A call's outcome became known.
    Outcome {
        /// The native call id.
        call_id: String,
        /// Its class.
        outcome: ToolOutcome,
        /// The call completed without any output: `outcome` applies to tools that produce
        /// output (Cursor reports a denied call this way, TOOLCALL-3), [`ToolOutcome::Ok`] to
        /// those that do not (`SILENT_TOOLS`).
        no_output: bool,
    },
    /// A permission denial; fields the native event lacks are taken from the call.
    Denied {
        /// The call denied, when the native event names it.
        call_id: Option<String>,
        /// Canonical tool, when the native event names it.
        tool: Option<String>,
        /// Native name, when the native event names it.
        native_name: Option<String>,
        /// Canonical arguments, when the native event carries them.
        arguments: Option<Map<String, Value>>,
    },
}

/// The loop guard's settings (LOOP-4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GuardConfig {
    /// `loop_guard: "on"`.
    pub enabled: bool,
    /// `loop_limit`.
    pub limit: u32,
}

impl Default for GuardConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            limit: DEFAULT_LOOP_LIMIT,
        }
    }
}

/// Why the guard tripped (LOOP-3).
#[derive(Debug, Clone, PartialEq)]
pub struct Trip {
    /// `strict` or `coarse`.
    pub kind: &'static str,
    /// The canonical tool.
    pub tool: String,
    /// The canonical arguments (bounded; `None` for a coarse fingerprint).
    pub arguments: Option<Value>,
    /// The outcome class.
    pub outcome: ToolOutcome,
    /// Times seen.
    pub count: u32,
    /// The limit it passed.
    pub limit: u32,
    /// The calls that formed it, in order.
    pub call_ids: Vec<String>,
}

impl Trip {
    /// `{kind, tool, arguments, outcome}`: the fingerprint as a host reads it.
    #[must_use]
    pub fn fingerprint(&self) -> Fingerprint {
        Fingerprint {
            kind: self.kind,
            tool: self.tool.clone(),
            arguments: self.arguments.clone(),
            outcome: self.outcome,
        }
    }

    /// A one-line description for the error message.
    #[must_use]
    pub fn describe(&self) -> String {
        let what = match &self.arguments {
            Some(a) => format!("{} {}", self.tool, a),
            None => format!("{} (any arguments)", self.tool),
        };
        format!(
            "the same tool call was seen {} times, over the limit of {}: {what} -> {}",
            self.count,
            self.limit,
            self.outcome.as_str()
        )
    }
}

/// One entry of the summary.
type Entry = ToolCall;

/// A call waiting for its outcome.
#[derive(Debug, Clone)]
struct Open {
    tool: String,
    args_hash: u64,
    /// Its index in `calls`, when it was kept.
    index: Option<usize>,
    denied: bool,
}

#[derive(Debug, Default)]
struct Count {
    count: u32,
    call_ids: Vec<String>,
    arguments: Option<Value>,
}

/// The tool calls of one run and its loop guard.
#[derive(Debug)]
pub struct ToolTracker {
    guard: GuardConfig,
    calls: Vec<Entry>,
    calls_left_out: u64,
    open: HashMap<String, Open>,
    denials: Vec<Denial>,
    denials_left_out: u64,
    denied_ids: HashSet<String>,
    strict: HashMap<u64, Count>,
    coarse: HashMap<(String, ToolOutcome), Count>,
    /// The most repeated fingerprint so far: `(count, limit, fingerprint)`.
    highest: Option<(u32, u32, Fingerprint)>,
    trip: Option<Trip>,
    trip_taken: bool,
}

impl ToolTracker {
    /// A tracker with these guard settings.
    #[must_use]
    pub fn new(guard: GuardConfig) -> Self {
        Self {
            guard,
            calls: Vec::new(),
            calls_left_out: 0,
            open: HashMap::new(),
            denials: Vec::new(),
            denials_left_out: 0,
            denied_ids: HashSet::new(),
            strict: HashMap::new(),
            coarse: HashMap::new(),
            highest: None,
            trip: None,
            trip_taken: false,
        }
    }

    /// Applies one event.
    pub fn apply(&mut self, ev: ToolEvent) {
        match ev {
            ToolEvent::Call {
                call_id,
                tool,
                native_name,
                arguments,
            } => self.call(call_id, tool, native_name, arguments),
            ToolEvent::Outcome {
                call_id,
                outcome,
                no_output,
            } => self.outcome(&call_id, outcome, no_output),
            ToolEvent::Denied {
                call_id,
                tool,
                native_name,
                arguments,
            } => self.denied(call_id, tool, native_name, arguments),
        }
    }

    fn call(
        &mut self,
        call_id: String,
        tool: Option<String>,
        native_name: Option<String>,
        arguments: Map<String, Value>,
    ) {
        let call_id = cut(&call_id, NAME_MAX);
        let native_name = native_name.map(|n| cut(&n, NAME_MAX));
        let tool = tool.map(|t| {
            if CANONICAL_TOOLS.contains(&t.as_str()) {
                t
            } else {
                "other".to_owned()
            }
        });
        let args_hash = hash_of(&arguments);
        let shown = bounded_value(&Value::Object(arguments));
        if let Some(open) = self.open.get_mut(&call_id) {
            // An update of a call not settled yet (ACP's rawInput filled later): what it names
            // replaces what the call had; empty arguments never erase known ones.
            if let Some(t) = &tool {
                open.tool.clone_from(t);
            }
            let has_args = shown.as_object().is_some_and(|m| !m.is_empty());
            if has_args {
                open.args_hash = args_hash;
            }
            if let Some(e) = open.index.and_then(|i| self.calls.get_mut(i)) {
                if let Some(t) = tool {
                    e.tool = t;
                }
                if let Some(n) = native_name {
                    e.native_name = n;
                }
                if has_args {
                    e.arguments = shown;
                }
            }
            return;
        }
        let tool = tool.unwrap_or_else(|| "other".to_owned());
        let native_name = native_name.unwrap_or_else(|| tool.clone());
        if self.calls.iter().any(|e| e.call_id == call_id) {
            // The same call repeated after its outcome (claude re-sends a partial message's
            // content in the complete one): never counted twice.
            return;
        }
        let index = if self.calls.len() < TOOL_CALLS_MAX {
            self.calls.push(Entry {
                call_id: call_id.clone(),
                tool: tool.clone(),
                native_name,
                arguments: shown,
                outcome: ToolOutcome::Unknown,
            });
            Some(self.calls.len() - 1)
        } else {
            self.calls_left_out += 1;
            None
        };
        if self.open.len() < OPEN_MAX {
            self.open.insert(
                call_id,
                Open {
                    tool,
                    args_hash,
                    index,
                    denied: false,
                },
            );
        }
    }

    fn outcome(&mut self, call_id: &str, outcome: ToolOutcome, no_output: bool) {
        let Some(open) = self.open.remove(call_id) else {
            return;
        };
        let outcome = if open.denied {
            ToolOutcome::PermissionDenied
        } else if no_output && SILENT_TOOLS.contains(&open.tool.as_str()) {
            ToolOutcome::Ok
        } else {
            outcome
        };
        let shown_args = open.index.and_then(|i| self.calls.get_mut(i)).map(|e| {
            e.outcome = outcome;
            e.arguments.clone()
        });
        self.guard(call_id, &open, outcome, shown_args);
    }

    fn denied(
        &mut self,
        call_id: Option<String>,
        tool: Option<String>,
        native_name: Option<String>,
        arguments: Option<Map<String, Value>>,
    ) {
        let call_id = call_id.map(|c| cut(&c, NAME_MAX));
        if let Some(id) = &call_id {
            if self.denied_ids.contains(id) {
                return;
            }
            if self.denied_ids.len() < DENIALS_MAX * 4 {
                self.denied_ids.insert(id.clone());
            }
            if let Some(open) = self.open.get_mut(id) {
                open.denied = true;
            }
        }
        let call = call_id
            .as_ref()
            .and_then(|id| self.calls.iter().find(|e| &e.call_id == id));
        let tool = tool
            .or_else(|| call.map(|e| e.tool.clone()))
            .unwrap_or_else(|| "other".into());
        let native_name = native_name
            .map(|n| cut(&n, NAME_MAX))
            .or_else(|| call.map(|e| e.native_name.clone()));
        let arguments = arguments
            .map(|a| bounded_value(&Value::Object(a)))
            .or_else(|| call.map(|e| e.arguments.clone()));
        if self.denials.len() >= DENIALS_MAX {
            self.denials_left_out += 1;
            return;
        }
        self.denials.push(Denial {
            call_id,
            tool,
            native_name,
            arguments,
        });
    }

    fn guard(
        &mut self,
        call_id: &str,
        open: &Open,
        outcome: ToolOutcome,
        shown_args: Option<Value>,
    ) {
        let limit = self.guard.limit;
        let mut h = DefaultHasher::new();
        (open.tool.as_str(), open.args_hash, outcome.as_str()).hash(&mut h);
        let key = h.finish();
        if self.strict.len() < FINGERPRINTS_MAX || self.strict.contains_key(&key) {
            let c = self.strict.entry(key).or_default();
            bump(c, call_id, limit, shown_args);
            let (count, ids, args) = (c.count, c.call_ids.clone(), c.arguments.clone());
            self.consider("strict", &open.tool, args, outcome, count, limit, ids);
        }
        if EXPLORATORY.contains(&open.tool.as_str()) && outcome != ToolOutcome::Ok {
            let coarse_limit = limit.saturating_mul(COARSE_FACTOR);
            let c = self.coarse.entry((open.tool.clone(), outcome)).or_default();
            bump(c, call_id, coarse_limit, None);
            let (count, ids) = (c.count, c.call_ids.clone());
            self.consider(
                "coarse",
                &open.tool,
                None,
                outcome,
                count,
                coarse_limit,
                ids,
            );
        }
    }

    #[expect(clippy::too_many_arguments, reason = "one fingerprint's parts, named")]
    fn consider(
        &mut self,
        kind: &'static str,
        tool: &str,
        arguments: Option<Value>,
        outcome: ToolOutcome,
        count: u32,
        limit: u32,
        call_ids: Vec<String>,
    ) {
        let trip = Trip {
            kind,
            tool: tool.to_owned(),
            arguments,
            outcome,
            count,
            limit,
            call_ids,
        };
        // The fingerprint nearest its limit is the one shown while the run is active.
        let nearer = self.highest.as_ref().is_none_or(|(c, l, _)| {
            u64::from(count) * u64::from(*l) > u64::from(*c) * u64::from(limit)
        });
        if nearer {
            self.highest = Some((count, limit, trip.fingerprint()));
        }
        if self.guard.enabled && count > limit && self.trip.is_none() {
            self.trip = Some(trip);
        }
    }

    /// The trip, once, the first time it is asked for after it happened (the engine then stops
    /// the run).
    pub(crate) fn take_new_trip(&mut self) -> Option<Trip> {
        if self.trip_taken {
            return None;
        }
        let t = self.trip.clone()?;
        self.trip_taken = true;
        Some(t)
    }

    /// The trip, if the guard tripped.
    #[must_use]
    pub fn trip(&self) -> Option<&Trip> {
        self.trip.as_ref()
    }

    /// `.result.tool_calls` (TOOLCALL-4).
    #[must_use]
    pub fn calls_summary(&self) -> ToolCalls {
        ToolCalls {
            calls: self.calls.clone(),
            left_out: self.calls_left_out,
        }
    }

    /// `.result.permission_denials` (TOOLCALL-4): one shape for every provider.
    #[must_use]
    pub fn denials_summary(&self) -> Denials {
        Denials {
            denials: self.denials.clone(),
            left_out: self.denials_left_out,
        }
    }

    /// `.result.loop_guard` (LOOP-4).
    #[must_use]
    pub(crate) fn guard_summary(&self) -> LoopGuard {
        LoopGuard {
            enabled: self.guard.enabled,
            limit: self.guard.limit,
            coarse_limit: self.guard.limit.saturating_mul(COARSE_FACTOR),
            highest: self.highest.as_ref().map(|(c, l, fp)| Highest {
                fingerprint: fp.clone(),
                count: *c,
                limit: *l,
            }),
            tripped: self.trip.as_ref().map(TripSummary::of),
        }
    }
}

fn bump(c: &mut Count, call_id: &str, limit: u32, arguments: Option<Value>) {
    c.count = c.count.saturating_add(1);
    // Enough ids to name every call of a trip, never more.
    if c.call_ids.len() <= limit as usize {
        c.call_ids.push(call_id.to_owned());
    }
    if c.arguments.is_none() {
        c.arguments = arguments;
    }
}

/// A stable hash of canonical arguments (object keys sorted).
fn hash_of(args: &Map<String, Value>) -> u64 {
    fn feed(v: &Value, h: &mut DefaultHasher) {
        match v {
            Value::Object(m) => {
                let mut keys: Vec<&String> = m.keys().collect();
                keys.sort();
                b"{".hash(h);
                for k in keys {
                    k.hash(h);
                    feed(&m[k], h);
                }
            }
            Value::Array(a) => {
                b"[".hash(h);
                a.len().hash(h);
                for x in a {
                    feed(x, h);
                }
            }
            other => other.to_string().hash(h),
        }
    }
    let mut h = DefaultHasher::new();
    for (k, v) in sorted(args) {
        k.hash(&mut h);
        feed(v, &mut h);
    }
    h.finish()
}

fn sorted(m: &Map<String, Value>) -> Vec<(&String, &Value)> {
    let mut v: Vec<(&String, &Value)> = m.iter().collect();
    v.sort_by(|a, b| a.0.cmp(b.0));
    v
}

/// A copy with every string cut at [`ARGUMENT_TEXT_MAX`] bytes and containers cut at 64 items,
/// 4 levels deep.
fn bounded_value(v: &Value) -> Value {
    fn go(v: &Value, depth: usize) -> Value {
        match v {
            Value::String(s) => Value::String(cut(s, ARGUMENT_TEXT_MAX)),
            Value::Array(a) if depth < 4 => {
                Value::Array(a.iter().take(64).map(|x| go(x, depth + 1)).collect())
            }
            Value::Object(m) if depth < 4 => Value::Object(
                m.iter()
                    .take(64)
                    .map(|(k, x)| (cut(k, NAME_MAX), go(x, depth + 1)))
                    .collect(),
            ),
            Value::Array(_) | Value::Object(_) => Value::String("[..]".into()),
            other => other.clone(),
        }
    }
    go(v, 0)
}

/// `s` cut at `max` bytes on a character boundary.
fn cut(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_owned();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].to_owned()
}

// The tracker's reports, as `.result` shows them (TOOLCALL-4, LOOP-4).

/// `.tool_calls` (TOOLCALL-4).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ToolCalls {
    /// The calls, in order (bounded): `ToolCall` objects.
    #[schemars(schema_with = "crate::results::objects")]
    pub calls: Vec<ToolCall>,
    /// Calls not listed.
    pub left_out: u64,
}

/// One normalised tool call (TOOLCALL-1..3).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ToolCall {
    /// The native call id.
    pub call_id: String,
    /// The canonical tool.
    pub tool: String,
    /// The native tool name.
    pub native_name: String,
    /// The canonical arguments (strings bounded).
    #[schemars(schema_with = "crate::results::json_object")]
    pub arguments: Value,
    /// The outcome class.
    pub outcome: ToolOutcome,
}

/// `.permission_denials` (TOOLCALL-4).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Denials {
    /// The denials, in order (bounded): `Denial` objects.
    #[schemars(schema_with = "crate::results::objects")]
    pub denials: Vec<Denial>,
    /// Denials not listed.
    pub left_out: u64,
}

/// One denied tool call.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Denial {
    /// The native call id, when known.
    pub call_id: Option<String>,
    /// The canonical tool.
    pub tool: String,
    /// The native tool name, when known.
    pub native_name: Option<String>,
    /// The canonical arguments, when known.
    #[schemars(schema_with = "crate::results::object_or_null")]
    pub arguments: Option<Value>,
}

/// `.loop_guard` (LOOP-4).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct LoopGuard {
    /// `loop_guard: "on"`.
    pub enabled: bool,
    /// The strict limit.
    pub limit: u32,
    /// The limit of exploratory tools' coarse fingerprints.
    pub coarse_limit: u32,
    /// The fingerprint nearest its limit so far: a `Highest`.
    #[schemars(schema_with = "crate::results::object_or_null")]
    pub highest: Option<Highest>,
    /// Why the guard stopped the run: a `TripSummary`.
    #[schemars(schema_with = "crate::results::object_or_null")]
    pub tripped: Option<TripSummary>,
}

/// A tool-call fingerprint (LOOP-1, LOOP-2).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Fingerprint {
    /// `strict` or `coarse`.
    pub kind: &'static str,
    /// The canonical tool.
    pub tool: String,
    /// The canonical arguments (`null` for a coarse fingerprint).
    #[schemars(schema_with = "crate::results::object_or_null")]
    pub arguments: Option<Value>,
    /// The outcome class.
    pub outcome: ToolOutcome,
}

/// The fingerprint nearest its limit.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Highest {
    /// The fingerprint.
    pub fingerprint: Fingerprint,
    /// Times seen.
    pub count: u32,
    /// Its limit.
    pub limit: u32,
}

/// A trip of the loop guard (LOOP-3).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct TripSummary {
    /// The fingerprint.
    pub fingerprint: Fingerprint,
    /// Times seen.
    pub count: u32,
    /// The limit it passed.
    pub limit: u32,
    /// The calls that formed it, in order.
    pub call_ids: Vec<String>,
}

impl TripSummary {
    /// The summary of a trip.
    #[must_use]
    pub fn of(t: &Trip) -> Self {
        Self {
            fingerprint: t.fingerprint(),
            count: t.count,
            limit: t.limit,
            call_ids: t.call_ids.clone(),
        }
    }
}

#[cfg(test)]
#[path = "tools_tests.rs"]
mod tests;
