//! ACP's native tool events (TOOLCALL-1..3) and Cursor's structured output (JSONOUT-2), read from
//! the run's native events (every agent line, and the client's own records):
//!
//! - `session/update` with `tool_call`: a call `{toolCallId, kind, title, rawInput}`; the tool is
//!   Cursor's `rawInput._toolName` when the vocabulary knows it, else the `kind`;
//! - `tool_call_update`: `rawInput` (Cursor fills in edit and search calls later) updates the
//!   call; a `status` of `completed` or `failed` is its outcome: `failed` is classed by the text
//!   of `rawOutput` / `content`, `completed` with a nonzero `rawOutput.exitCode` is a failure, and
//!   `completed` with no `rawOutput` and no `content` is how Cursor reports a denied call (the
//!   spike's `cursor_deny_read_fetch`), `permission_denied` for tools that produce output;
//! - the client's `{"acp_client":"permission"}` records: a request answered with anything but an
//!   `allow_*` option is a denial of that call.
//!
//! The final text (`{stopReason, sessionId, text}`, built out of band) is the candidate the
//! engine parses strictly.

use memchr::memmem;
use serde_json::{Map, Value};

use cmk_engine::jsonout::Candidate;
use cmk_engine::tools::{ToolEvent, ToolOutcome};
use cmk_native::tool_vocabulary::VOCABULARY;

/// Byte markers of lines that may carry tool events.
const MARKERS: [&[u8]; 2] = [b"\"tool_call", b"\"acp_client\":\"permission\""];

/// Whether a native line may carry tool events.
#[must_use]
pub(crate) fn may_carry(line: &[u8]) -> bool {
    MARKERS.iter().any(|m| memmem::find(line, m).is_some())
}

/// The tool events of one parsed native line.
#[must_use]
pub(crate) fn events(v: &Value) -> Vec<ToolEvent> {
    if v.get("acp_client").and_then(Value::as_str) == Some("permission") {
        return permission(v).into_iter().collect();
    }
    if v.get("method").and_then(Value::as_str) != Some("session/update") {
        return Vec::new();
    }
    let Some(u) = v.pointer("/params/update") else {
        return Vec::new();
    };
    let kind = u.get("sessionUpdate").and_then(Value::as_str);
    let Some(id) = u.get("toolCallId").and_then(Value::as_str) else {
        return Vec::new();
    };
    let voc = &*VOCABULARY;
    let raw_input = u.get("rawInput").filter(|r| r.is_object());
    let tool_name = raw_input
        .and_then(|r| r.get("_toolName"))
        .and_then(Value::as_str);
    let acp_kind = u.get("kind").and_then(Value::as_str);
    let mut out = Vec::new();
    match kind {
        Some("tool_call") => out.push(ToolEvent::Call {
            call_id: id.to_owned(),
            tool: Some(
                voc.acp_tool(acp_kind, tool_name)
                    .unwrap_or_else(|| "other".into()),
            ),
            native_name: Some(native_name(acp_kind, tool_name)),
            arguments: voc.arguments(raw_input),
        }),
        Some("tool_call_update") => {
            let names_it = acp_kind.is_some() || tool_name.is_some();
            if raw_input.is_some_and(|r| r.as_object().is_some_and(|m| !m.is_empty())) || names_it {
                out.push(ToolEvent::Call {
                    call_id: id.to_owned(),
                    tool: voc.acp_tool(acp_kind, tool_name),
                    native_name: names_it.then(|| native_name(acp_kind, tool_name)),
                    arguments: voc.arguments(raw_input),
                });
            }
        }
        _ => return out,
    }
    if let Some(o) = outcome(u) {
        out.push(o(id.to_owned()));
    }
    out
}

/// Cursor's `_toolName`, else the ACP `kind`, else `unknown`.
fn native_name(kind: Option<&str>, tool_name: Option<&str>) -> String {
    tool_name.or(kind).unwrap_or("unknown").to_owned()
}

/// The outcome a `tool_call` / `tool_call_update` reports, if its status is final.
fn outcome(u: &Value) -> Option<impl FnOnce(String) -> ToolEvent> {
    let status = u.get("status").and_then(Value::as_str)?;
    let raw_output = u.get("rawOutput").filter(|r| !r.is_null());
    let content = u
        .get("content")
        .filter(|c| c.as_array().is_none_or(|a| !a.is_empty()) && !c.is_null());
    let voc = &*VOCABULARY;
    let (outcome, no_output) = match status {
        "failed" => (voc.failure(&output_text(raw_output, content)), false),
        "completed" => {
            let exit = raw_output
                .and_then(|r| r.get("exitCode"))
                .and_then(Value::as_i64);
            match exit {
                Some(code) if code != 0 => {
                    let text = output_text(raw_output, content);
                    let class = voc.failure(&text);
                    (
                        if class == ToolOutcome::PermissionDenied {
                            // A shell's own "Permission denied" is the tool failing, not a
                            // denial of the call.
                            ToolOutcome::ToolError
                        } else {
                            class
                        },
                        false,
                    )
                }
                _ if raw_output.is_none() && content.is_none() => {
                    (ToolOutcome::PermissionDenied, true)
                }
                _ => (ToolOutcome::Ok, false),
            }
        }
        _ => return None,
    };
    Some(move |call_id| ToolEvent::Outcome {
        call_id,
        outcome,
        no_output,
    })
}

/// The text of a result: `rawOutput`'s `stderr`, `error`, `message`, `content`, then the text of
/// `content` blocks.
fn output_text(raw_output: Option<&Value>, content: Option<&Value>) -> String {
    let mut parts: Vec<String> = Vec::new();
    match raw_output {
        Some(Value::String(s)) => parts.push(s.clone()),
        Some(Value::Object(m)) => {
            for key in ["stderr", "error", "message", "content", "stdout"] {
                if let Some(s) = m.get(key).and_then(Value::as_str) {
                    parts.push(s.to_owned());
                }
            }
        }
        _ => {}
    }
    for c in content.and_then(Value::as_array).into_iter().flatten() {
        if let Some(s) = c.pointer("/content/text").and_then(Value::as_str) {
            parts.push(s.to_owned());
        }
    }
    parts.join("\n")
}

/// A permission record of the client: answered with anything but an `allow_*` option, the call
/// was denied.
fn permission(v: &Value) -> Option<ToolEvent> {
    let allowed = v
        .get("selected_kind")
        .and_then(Value::as_str)
        .is_some_and(|k| k.starts_with("allow"));
    if allowed {
        return None;
    }
    let kind = v.get("tool_kind").and_then(Value::as_str);
    Some(ToolEvent::Denied {
        call_id: v
            .get("tool_call_id")
            .and_then(Value::as_str)
            .map(str::to_owned),
        tool: kind.and_then(|k| VOCABULARY.acp_tool(Some(k), None)),
        native_name: kind.map(str::to_owned),
        arguments: None::<Map<String, Value>>,
    })
}

/// JSONOUT-2: the final's text, to be parsed strictly.
#[must_use]
pub(crate) fn structured(final_value: &Value) -> Candidate {
    match final_value.get("text").and_then(Value::as_str) {
        Some(t) => Candidate::Text(t.to_owned()),
        None => Candidate::Missing,
    }
}
