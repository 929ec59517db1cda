//! The MCP gate's cross-cutting rules, checked on every exchange of every case by the engine
//! of [`crate::core::watch`]: stdout
//! carries only JSON-RPC messages (T1), every response carries the id of a request the runner
//! sent on that connection (JSON-RPC 2.0 §5), every `tools/call` result has MCP's shape and,
//! for a provider, TOOL-4's mirror, `isError` / protocol errors are not swapped (TOOL-4), and a
//! successful result of a tool that declares an `outputSchema` carries `structuredContent`
//! conforming to it (MCP server/tools, output schema).
//!
//! Every [`crate::core::client::Client`] reports what its reader sees into one shared [`Watch`];
//! the cases of [`crate::core::case::Needs::Crosscut`] run after every other case and grade each
//! rule once, with the first offending exchange as evidence. "First" is by catalogue order of the case that
//! saw it (discovery first), then by server within the case, then by line, so the evidence is the
//! same at any `--jobs` and machine load.
//!
//! A case that probes one of these rules on purpose owns its exchanges (it grades them itself):
//! they are not counted here, so one defect gets one verdict.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, OnceLock};

use serde_json::Value;

use crate::core::watch::{Answerable, Findings, Idless, Observe, Owed, Owing, Seen, written};
pub use crate::core::watch::{Finding, Order, Sent};
use crate::mcp::tool_result::{
    NO_STRUCTURED, call_result_problem, mirror_problem, output_schema_problem,
};

/// A cross-cutting rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rule {
    /// T1: every stdout line is a JSON-RPC 2.0 message.
    Stdout,
    /// JSON-RPC 2.0 §5: a response's id is the id of the request it answers.
    IdEcho,
    /// T3, JSON-RPC 2.0 §4.1: a notification is never answered (a -32601 error with id null
    /// answers a message that had a method and no id: a notification).
    NotificationAnswered,
    /// MCP server/tools: a `tools/call` result is a `CallToolResult`.
    ResultShape,
    /// TOOL-4: `structuredContent.result`, one text block mirroring it, `isError` boolean.
    Mirror,
    /// TOOL-4: `isError` is never a protocol error, a protocol error never a failed operation.
    ErrorSplit,
    /// MCP server/tools: a tool that declares an `outputSchema` answers a successful call with
    /// `structuredContent` that conforms to it.
    OutputSchema,
    /// The same rule's other half: such a result has `structuredContent` at all. Kept apart
    /// because where TOOL-4 applies, `tools/result/structured-mirror` grades a missing
    /// `structuredContent` (one defect, one verdict).
    OutputSchemaAbsent,
    /// A result of such a tool whose `isError` is no boolean: whether the schema applies (a
    /// successful call) cannot be told. `tools/result/shape` grades the `isError`; the
    /// output-schema case is blocked by it (one defect, one verdict).
    OutputSchemaUnknown,
    /// MCP server/utilities/logging: a `notifications/message` has a `level` among the eight
    /// RFC 5424 severities the specification lists, and `data`.
    LogMessage,
    /// An error under id null read while both a request with a readable id and a notification
    /// could be what it answers ([`Idless::Ambiguous`]): the notification rule's finding,
    /// unless the id rule has one of its own (the server is seen answering requests under id
    /// null where nothing else could be answered), which then explains it (one defect, one
    /// verdict).
    IdlessAmbiguous,
}

/// The cross-cutting cases that probe a peer of their own before they grade
/// (`Needs::CrosscutProbe`; the catalogue's test holds the two lists equal, since the watch
/// cannot read the catalogue without a module cycle).
pub(crate) const PROBES: [&str; 3] = [
    "tools/result/structured-mirror",
    "tools/result/output-schema",
    "jsonrpc/unknown-notification",
];

impl Rule {
    /// Every rule.
    pub const ALL: [Rule; 11] = [
        Rule::Stdout,
        Rule::IdEcho,
        Rule::NotificationAnswered,
        Rule::ResultShape,
        Rule::Mirror,
        Rule::ErrorSplit,
        Rule::OutputSchema,
        Rule::OutputSchemaAbsent,
        Rule::OutputSchemaUnknown,
        Rule::LogMessage,
        Rule::IdlessAmbiguous,
    ];

    /// The case that grades this rule.
    #[must_use]
    pub fn case_id(self) -> &'static str {
        match self {
            Rule::Stdout => "lifecycle/stdout/protocol-only",
            Rule::IdEcho => crate::core::watch::ID_RULE_CASE,
            Rule::NotificationAnswered | Rule::IdlessAmbiguous => "jsonrpc/unknown-notification",
            Rule::ResultShape => "tools/result/shape",
            Rule::Mirror => "tools/result/structured-mirror",
            Rule::ErrorSplit => "tools/result/error-split",
            Rule::OutputSchema | Rule::OutputSchemaAbsent | Rule::OutputSchemaUnknown => {
                "tools/result/output-schema"
            }
            Rule::LogMessage => "logging/message-shape",
        }
    }

    /// Whether exchanges of case `case` count for this rule: a case that probes the rule on
    /// purpose grades its own exchanges (see the module docs).
    #[must_use]
    pub fn counts_in(self, case: &str) -> bool {
        // The cross-cutting cases that probe (structured-mirror's list call, output-schema's
        // calls of read-only tools, unknown-notification's own notification) run before the other cross-cutting cases grade
        // (`Needs::CrosscutProbe`), so every other rule sees their exchanges, a `--case` shard's
        // included. Not each other's rules: the two probe side by side, so which saw the other's
        // call would depend on --jobs. Nor output-schema's calls for the error split: their
        // arguments are made from a schema without knowing the tool, and a -32602 for them may
        // be right.
        let other_probe = PROBES.contains(&case) && case != self.case_id();
        if other_probe
            && (PROBES.contains(&self.case_id())
                || (self == Rule::ErrorSplit && case == Rule::OutputSchema.case_id()))
        {
            return false;
        }
        match self {
            Rule::IdEcho => !case.starts_with("jsonrpc/ids/"),
            // Calls whose arguments the runner makes invalid on purpose, or of unknown tools:
            // their cases grade what the answer must be.
            // A cancelled request's answer is graded by the cancellation cases (T7).
            Rule::ErrorSplit => {
                !(case.starts_with("tools/call/")
                    || case.starts_with("cancellation/")
                    || case.starts_with("runs/args/")
                    || case.starts_with("meta-work/invocation-"))
            }
            // Failed calls (`isError`) are not held to the schema; every other result is.
            Rule::Stdout
            | Rule::NotificationAnswered
            | Rule::ResultShape
            | Rule::Mirror
            | Rule::OutputSchema
            | Rule::OutputSchemaAbsent
            | Rule::OutputSchemaUnknown
            | Rule::LogMessage
            | Rule::IdlessAmbiguous => true,
        }
    }
}

/// The shared store of cross-cutting findings of one run.
#[derive(Debug, Clone, Default)]
pub struct Watch {
    findings: Findings<Rule>,
    /// Names of the tools discovery listed (for the error split: unknown tools are -32602).
    listed: Arc<OnceLock<HashSet<String>>>,
    /// The compiled `outputSchema` of each listed tool that declares a valid one.
    output_schemas: Arc<OnceLock<HashMap<String, Arc<jsonschema::Validator>>>>,
}

impl Watch {
    /// An empty store.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Records the tool names of the discovery listing.
    pub fn set_listed(&self, names: HashSet<String>) {
        let _ = self.listed.set(names);
    }

    /// Records the `outputSchema` of each listed tool that declares one. A schema that is not a
    /// valid JSON Schema is left out (`tools/schema/valid` grades it): no result is held to it.
    pub fn set_output_schemas<'a>(&self, tools: impl IntoIterator<Item = &'a Value>) {
        let mut out = HashMap::new();
        for t in tools {
            let (Some(name), Some(schema)) =
                (t.get("name").and_then(Value::as_str), t.get("outputSchema"))
            else {
                continue;
            };
            // Guarded as in `tools/schema/valid`: an unknown `$schema` draft panics in the crate.
            // Checked and compiled once; an invalid schema holds no result.
            if let Ok(Ok(v)) = std::panic::catch_unwind(|| crate::mcp::tool_result::compile(schema))
            {
                out.insert(name.to_owned(), Arc::new(v));
            }
        }
        let _ = self.output_schemas.set(out);
    }

    /// The compiled `outputSchema` of tool `name`, if it declares a valid one.
    #[must_use]
    pub fn output_schema(&self, name: &str) -> Option<Arc<jsonschema::Validator>> {
        self.output_schemas.get().and_then(|m| m.get(name).cloned())
    }

    /// Whether discovery listed tool `name` (`None` before discovery listed tools).
    #[must_use]
    pub fn is_listed(&self, name: &str) -> Option<bool> {
        self.listed.get().map(|l| l.contains(name))
    }

    /// Counts one exchange looked at for `rule`.
    pub fn looked(&self, rule: Rule) {
        self.findings.looked(rule);
    }

    /// Records an offence; the earliest by [`Order`] is kept.
    pub fn offend(&self, rule: Rule, order: Order, case: &'static str, evidence: String) {
        self.findings.offend(rule, order, case, evidence);
    }

    /// The first offence against `rule`, and how many exchanges were looked at.
    #[must_use]
    pub fn result(&self, rule: Rule) -> (Option<Finding>, u64) {
        self.findings.result(rule)
    }
}

/// What one client knows for the watch: which case it serves, its place, the requests it sent.
#[derive(Debug, Clone)]
pub struct Observer {
    /// The store.
    pub watch: Watch,
    /// The case (or `discovery`).
    pub case: &'static str,
    /// The case's position in the catalogue (discovery is 0, cases from 1).
    pub position: usize,
    /// The server's number within the case.
    pub server: u32,
    /// What the server owes on this connection.
    owed: Arc<Owed>,
    /// Whether the runner sent a request with id null on this connection (on purpose:
    /// `jsonrpc/invalid/null-id`), and the lines whose result echoed that id.
    null_id: Arc<NullIdEcho>,
}

/// A result under id null answers a request the runner sent with id null: JSON-RPC 2.0 §5 has
/// the response carry the request's id, so the echo is no stdout defect of its own (T1).
/// Serving that request at all is what the case that sent it grades (one defect, one verdict).
#[derive(Debug, Default)]
struct NullIdEcho {
    sent: std::sync::atomic::AtomicBool,
    lines: std::sync::Mutex<HashSet<u64>>,
}

impl NullIdEcho {
    fn lines(&self) -> std::sync::MutexGuard<'_, HashSet<u64>> {
        self.lines
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Observer {
    /// A fresh observer for one connection.
    #[must_use]
    pub fn new(watch: Watch, case: &'static str, position: usize, server: u32) -> Self {
        Self {
            watch,
            case,
            position,
            server,
            owed: Arc::new(Owed::new(Answerable::AnyId)),
            null_id: Arc::default(),
        }
    }

    fn offend(&self, rule: Rule, line: u64, evidence: String) {
        if rule.counts_in(self.case) {
            self.watch.offend(
                rule,
                (self.position, self.server, line),
                self.case,
                evidence,
            );
        }
    }

    fn looked(&self, rule: Rule) {
        if rule.counts_in(self.case) {
            self.watch.looked(rule);
        }
    }
}

impl Observe for Observer {
    fn sending(&self, line: &[u8]) {
        // Each notification sent is an exchange the notification rule looks at.
        if let Ok(v) = serde_json::from_slice::<Value>(line) {
            let items: Vec<&Value> = match &v {
                Value::Array(a) => a.iter().collect(),
                other => vec![other],
            };
            for m in items {
                if m.get("method").is_some_and(Value::is_string) && m.get("id").is_none() {
                    self.looked(Rule::NotificationAnswered);
                }
                if m.get("method").is_some() && m.get("id").is_some_and(Value::is_null) {
                    self.null_id
                        .sent
                        .store(true, std::sync::atomic::Ordering::Relaxed);
                }
            }
        }
        self.owed.sending(line);
    }

    fn was_sent(&self, id: &Value) -> bool {
        self.owed.was_sent(id)
    }

    fn sole_pending(&self, id: &Value) -> bool {
        self.owed.sole_pending(id)
    }

    fn idless_hidden(&self) -> bool {
        self.owed.idless_hidden()
    }

    fn unread(&self) {
        self.owed.unread();
    }

    /// A stdout line that is no JSON-RPC message (T1), unless it is the echo of the runner's
    /// own null id (see `NullIdEcho`).
    fn not_protocol(&self, line: u64, evidence: String) {
        if self.null_id.lines().contains(&line) {
            return;
        }
        self.offend(Rule::Stdout, line, evidence);
    }

    /// A stdout line that is a JSON-RPC message: every rule that applies to it.
    fn message(&self, line: u64, msg: &Value, raw: &[u8]) -> Seen {
        self.looked(Rule::Stdout);
        if msg.get("id").is_some_and(Value::is_null)
            && msg.get("result").is_some()
            && msg.get("method").is_none()
            && msg.get("error").is_none()
            && self.null_id.sent.load(std::sync::atomic::Ordering::Relaxed)
        {
            self.null_id.lines().insert(line);
        }
        match msg {
            // A batch answers several requests at once: the case reads it whole.
            Value::Array(a) => {
                for (i, m) in a.iter().enumerate() {
                    self.response(line, m, &As { raw, index: i });
                }
                Seen::Fresh
            }
            one => self.response(line, one, &As { raw, index: 0 }),
        }
    }
}

/// Where a message sits in the line the server wrote: for evidence quoted as written.
struct As<'a> {
    raw: &'a [u8],
    index: usize,
}

impl As<'_> {
    /// The message's text and its id's text as written (parsed values as a fallback).
    fn shown(&self, m: &Value) -> (String, String) {
        let w = written(self.raw).into_iter().nth(self.index);
        let text = w.as_ref().map_or_else(|| m.to_string(), |w| w.text.clone());
        let id = w.and_then(|w| w.id).unwrap_or_else(|| {
            m.get("id")
                .map_or_else(|| "null".to_owned(), Value::to_string)
        });
        (crate::core::transcript::clip_to(text.as_bytes(), 300), id)
    }
}

impl Observer {
    fn response(&self, line: u64, m: &Value, at: &As<'_>) -> Seen {
        if m.get("method").is_some() {
            if m.get("method").and_then(Value::as_str) == Some("notifications/message")
                && m.get("id").is_none()
            {
                self.log_message(line, m, at);
            }
            return Seen::Fresh;
        }
        let Some(id) = m.get("id") else {
            return Seen::Fresh;
        };
        if id.is_null() {
            return self.idless(line, m, at);
        }
        self.looked(Rule::IdEcho);
        let owing = self.owed.answer(id);
        let (method, tool) = match owing {
            Owing::First(method, tool) => (method, tool),
            Owing::Unsolicited | Owing::Repeat(_) => {
                let (text, id) = at.shown(m);
                if let Some(evidence) = owing.offence(&id, &text) {
                    self.offend(Rule::IdEcho, line, evidence);
                }
                // One defect, one verdict: see `Owed::seen`.
                return self.owed.seen(&owing);
            }
        };
        if method != "tools/call" {
            return Seen::Fresh;
        }
        let shown = at.shown(m).0;
        let listed = tool.as_deref().and_then(|t| self.watch.is_listed(t));
        if let Some(result) = m.get("result") {
            if listed == Some(false) {
                // A result for a tool the server does not list (TOOL-4: that is a protocol
                // error, -32602). Only tools/call/unknown-tool calls unlisted tools, and it
                // grades that answer itself; elsewhere it offends here.
                self.offend(
                    Rule::ErrorSplit,
                    line,
                    format!(
                        "a result for {:?}, a tool the server does not list (a protocol error, \
                         -32602): {shown}",
                        tool.unwrap_or_default()
                    ),
                );
                return Seen::Fresh;
            }
            self.looked(Rule::ResultShape);
            if let Err(p) = call_result_problem(result) {
                self.offend(Rule::ResultShape, line, format!("{p}: {shown}"));
            }
            self.looked(Rule::Mirror);
            if let Err(p) = mirror_problem(result) {
                self.offend(Rule::Mirror, line, format!("{p}: {shown}"));
            }
            if let Some(schema) = tool.as_deref().and_then(|t| self.watch.output_schema(t)) {
                self.output_schema(line, &schema, result, &shown);
            }
            self.looked(Rule::ErrorSplit);
        } else if listed == Some(true) {
            self.looked(Rule::ErrorSplit);
            self.offend(
                Rule::ErrorSplit,
                line,
                format!(
                    "a protocol error for a call of the listed tool {:?} with well-formed \
                     arguments (a failed operation is an isError result): {shown}",
                    tool.unwrap_or_default()
                ),
            );
        }
        Seen::Fresh
    }
}

impl Observer {
    /// A response under id null: what it can answer on this connection decides whose finding
    /// it is ([`Idless`]). One the case could wait for is not read by it (one defect, one
    /// verdict): a wait that runs out after it is blocked by the id rule.
    fn idless(&self, line: u64, m: &Value, at: &As<'_>) -> Seen {
        if m.get("error").is_none() {
            // A result under id null: the echo of the runner's own null id ([`NullIdEcho`]),
            // or no message at all (T1 grades it).
            return Seen::Fresh;
        }
        let shown = at.shown(m).0;
        match self.owed.idless() {
            // A line whose id could not be read may draw any error under id null (JSON-RPC
            // §5): the case that sent it counts the answers. "Method not found" names a
            // method the server read, so it answers a notification.
            Idless::Unreadable if answers_a_notification(m) => {
                self.offend(
                    Rule::NotificationAnswered,
                    line,
                    format!("an answer to a notification (-32601 with id null): {shown}"),
                );
                Seen::Idless
            }
            Idless::Unreadable => Seen::Fresh,
            Idless::Notification => {
                self.offend(
                    Rule::NotificationAnswered,
                    line,
                    format!("an answer to a notification (an error with id null): {shown}"),
                );
                Seen::Idless
            }
            Idless::Mislabelled => {
                self.looked(Rule::IdEcho);
                self.offend(
                    Rule::IdEcho,
                    line,
                    format!(
                        "an error with id null, though every line the runner sent on this \
                         connection was a request with a readable id (JSON-RPC 2.0 §5: null \
                         only when the request's id could not be read): {shown}"
                    ),
                );
                self.owed.hide_idless();
                Seen::Idless
            }
            Idless::Ambiguous => {
                self.offend(
                    Rule::IdlessAmbiguous,
                    line,
                    format!(
                        "an error with id null, answering a notification or a pending request \
                         under the wrong id: {shown}"
                    ),
                );
                self.owed.hide_idless();
                Seen::Idless
            }
        }
    }
}

/// Whether `m` is what [`Rule::NotificationAnswered`] blames on an answered notification:
/// "Method not found" names a method the server read, and with id null what it answers had a
/// method and no id, a notification, which is never answered (JSON-RPC 2.0 §4.1). A case
/// reading a batch leaves such an element to `jsonrpc/unknown-notification`.
#[must_use]
pub fn answers_a_notification(m: &Value) -> bool {
    m.get("id").is_some_and(Value::is_null)
        && m.get("method").is_none()
        && m.pointer("/error/code").and_then(Value::as_i64) == Some(-32601)
}

/// The severities of MCP server/utilities/logging ("the standard syslog severity levels
/// specified in RFC 5424"), as the schema's `LoggingLevel` spells them.
pub const LOG_LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

impl Observer {
    /// MCP server/utilities/logging: `notifications/message` params are `{level: LoggingLevel,
    /// logger?: string, data}`.
    fn log_message(&self, line: u64, m: &Value, at: &As<'_>) {
        self.looked(Rule::LogMessage);
        let params = m.get("params");
        let level = params.and_then(|p| p.get("level"));
        let problem = if !level
            .and_then(Value::as_str)
            .is_some_and(|l| LOG_LEVELS.contains(&l))
        {
            Some(format!(
                "a level that is not one of {}",
                LOG_LEVELS.join(", ")
            ))
        } else if params.and_then(|p| p.get("data")).is_none() {
            Some("no data".to_owned())
        } else if params
            .and_then(|p| p.get("logger"))
            .is_some_and(|l| !l.is_string())
        {
            Some("a logger that is not a string".to_owned())
        } else {
            None
        };
        if let Some(problem) = problem {
            let shown = at.shown(m).0;
            self.offend(Rule::LogMessage, line, format!("{problem}: {shown}"));
        }
    }

    /// MCP server/tools, output schema: "servers MUST provide structured results that conform to
    /// this schema". A failed call (`isError: true`) is not held to it.
    fn output_schema(
        &self,
        line: u64,
        schema: &jsonschema::Validator,
        result: &Value,
        shown: &str,
    ) {
        match result.get("isError") {
            Some(Value::Bool(true)) => return,
            // No boolean (tools/result/shape's finding): whether the call failed, and so
            // whether the schema applies, cannot be told.
            Some(v) if !v.is_boolean() => {
                self.offend(
                    Rule::OutputSchemaUnknown,
                    line,
                    format!("an isError that is not a boolean ({v}): {shown}"),
                );
                return;
            }
            _ => {}
        }
        self.looked(Rule::OutputSchema);
        if result.get("structuredContent").is_none() {
            self.offend(
                Rule::OutputSchemaAbsent,
                line,
                format!("{NO_STRUCTURED}: {shown}"),
            );
        } else if let Err(p) = output_schema_problem(schema, result) {
            self.offend(Rule::OutputSchema, line, format!("{p}: {shown}"));
        }
    }
}

#[cfg(test)]
mod tests;
