//! The proxy's shared state and the small JSON helpers every rewriting uses: the requests whose
//! answers may need rewriting, the batches split by a mutation, the rule keys of the contract.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{Map, Value, json};

use crate::mutation::Mutation;

/// Requests whose answers the proxy tracks at most (a cancelled request is never answered).
pub(crate) const MAX_PENDING: usize = 4096;

pub(crate) const RISK_KEY: &str = "io.github.computer-mcp/risk";
pub(crate) const WORK_KEY: &str = "io.github.computer-mcp/work";
pub(crate) const CONT_KEY: &str = "io.github.computer-mcp/continuation";
pub(crate) const INVOCATION_KEY: &str = "io.github.computer-mcp/work-invocation";
pub(crate) const WORK_URI: &str = "computer-mcp://runtime/work/v1";
/// Notifications a client may send (MCP 2025-06-18); anything else is unknown (T3).
pub(crate) const CLIENT_NOTIFICATIONS: [&str; 4] = [
    "notifications/initialized",
    "notifications/cancelled",
    "notifications/progress",
    "notifications/roots/list_changed",
];

/// A request whose answer may need rewriting.
#[derive(Debug, Clone)]
pub(crate) enum Pending {
    Initialize { proposal: Option<String> },
    Ping,
    ToolsCall,
    ResourcesRead { uri: String },
}

/// A client batch split into single requests (mutation `batch-under-2025-06-18`).
#[derive(Debug, Default)]
pub(crate) struct Batch {
    pub(crate) waiting: HashSet<String>,
    pub(crate) answers: Vec<Value>,
}

#[derive(Debug, Default)]
pub(crate) struct State {
    pub(crate) pending: HashMap<String, Pending>,
    /// The protocol version the client was answered.
    pub(crate) negotiated: Option<String>,
    /// `last_revision` of the latest refused work read (META-WORK-5).
    pub(crate) refused_revision: Option<u64>,
    /// The latest work-invocation a client sent.
    pub(crate) last_invocation: Option<String>,
    pub(crate) batches: Vec<Batch>,
    /// Ids of calls whose answers mutation wrong-id-on-list sends back under another id.
    pub(crate) wrong_ids: HashSet<String>,
    /// Ids of requests whose answers the *-answered-twice mutations send twice.
    pub(crate) twice: HashSet<String>,
    /// Ids of `initialize` requests after whose answer the unsolicited-*-answer mutations send
    /// an answer to a request nobody made.
    pub(crate) unsolicited: HashSet<String>,
}

pub(crate) struct Proxy {
    pub(crate) gateway: bool,
    pub(crate) prefix: Option<String>,
    pub(crate) hex_names: bool,
    pub(crate) mutation: Option<Mutation>,
    /// `--strip-output-schemas`: tools are listed without their `outputSchema` (legal: it is
    /// optional), so the runner holds no result to one.
    pub(crate) strip_output_schemas: bool,
    pub(crate) state: Mutex<State>,
}

pub(crate) type Out = Arc<tokio::sync::Mutex<tokio::io::Stdout>>;

/// What to do with one message.
pub(crate) enum Action {
    Keep,
    Replace(Value),
    Drop,
}

pub(crate) fn id_key(id: &Value) -> String {
    id.to_string()
}

/// Whether `name` is the tool of `dotted` (e.g. `claude.run.cancel`), tolerating a prefix and the
/// underscore projection.
pub(crate) fn tool_is(name: &str, dotted: &str) -> bool {
    let n = name.replace('_', ".");
    n == dotted || n.ends_with(&format!(".{dotted}"))
}

pub(crate) fn error_code(m: &Value) -> Option<i64> {
    m.get("error")?.get("code")?.as_i64()
}

pub(crate) fn error_answer(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

impl Proxy {
    /// Whether the proxy runs with mutation `m`.
    pub(crate) fn is(&self, m: Mutation) -> bool {
        self.mutation == Some(m)
    }

    /// The shared state (a poisoned lock still yields it).
    pub(crate) fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Applies `each` to every element of a batch: `None` when every element is kept as it was,
/// else the elements that remain (kept or replaced; dropped ones left out).
pub(crate) fn rewrite_batch(
    items: Vec<Value>,
    mut each: impl FnMut(Value) -> Action,
) -> Option<Vec<Value>> {
    let mut changed = false;
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        match each(item.clone()) {
            Action::Keep => out.push(item),
            Action::Replace(v) => {
                changed = true;
                out.push(v);
            }
            Action::Drop => changed = true,
        }
    }
    changed.then_some(out)
}

/// Whether `line` is the answer to a tools/call (a result with a content array).
pub(crate) fn is_call_result(line: &[u8]) -> bool {
    serde_json::from_slice::<Value>(line).is_ok_and(|m| {
        m.get("result")
            .and_then(|r| r.get("content"))
            .is_some_and(Value::is_array)
    })
}

/// Whether an upstream line is a `notifications/progress`.
pub(crate) fn is_progress(line: &[u8]) -> bool {
    serde_json::from_slice::<Value>(line)
        .is_ok_and(|m| m.get("method") == Some(&json!("notifications/progress")))
}

/// The `_meta` object of a listed tool.
pub(crate) fn meta(tool: &mut Map<String, Value>) -> Option<&mut Map<String, Value>> {
    tool.get_mut("_meta").and_then(Value::as_object_mut)
}

/// Sets the text of a tool result's first text block.
pub(crate) fn set_text(result: &mut Value, text: &str) {
    if let Some(block) = result
        .get_mut("content")
        .and_then(Value::as_array_mut)
        .and_then(|c| c.iter_mut().find(|b| b.get("type") == Some(&json!("text"))))
    {
        block["text"] = json!(text);
    }
}

/// What TOOL-4's text block holds for a tool result's `structuredContent`: the same object, a
/// run's `final` with its scalar members only.
pub(crate) fn mirror_view(result: &Value) -> Value {
    let mut view = result.get("structuredContent").cloned().unwrap_or_default();
    if let Some(Value::Object(fin)) = view.get_mut("result").and_then(|r| r.get_mut("final")) {
        fin.retain(|_, v| !v.is_object() && !v.is_array());
    }
    view
}

/// Edits the work snapshot held in a resources/read result; returns whether it did.
pub(crate) fn edit_snapshot(result: &mut Value, edit: impl FnOnce(&mut Value)) -> bool {
    let Some(content) = result
        .get_mut("contents")
        .and_then(Value::as_array_mut)
        .and_then(|c| c.first_mut())
    else {
        return false;
    };
    let Some(mut snap) = content
        .get("text")
        .and_then(Value::as_str)
        .and_then(|t| serde_json::from_str::<Value>(t).ok())
    else {
        return false;
    };
    edit(&mut snap);
    content["text"] = json!(snap.to_string());
    true
}
