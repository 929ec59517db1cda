//! claude's native tool events (TOOLCALL-1..3) and structured output (JSONOUT-1), read from the
//! stream-json events of `claude -p`:
//!
//! - `assistant` events: `tool_use` blocks `{id, name, input}` are calls;
//! - `user` events: `tool_result` blocks `{tool_use_id, is_error, content}` are outcomes
//!   (`is_error: false` is `ok`; an error's text is classed by the vocabulary's `error_texts`);
//! - `system` events with `subtype: "permission_denied"` `{tool_use_id, tool_name}` and the
//!   final's `permission_denials` `[{tool_use_id, tool_name, tool_input}]` are denials;
//! - the final's `structured_output` is the structured result `--json-schema` asked for.
//!
//! `stream_event` lines (partial messages) are never read: their `content_block_start` carries a
//! `tool_use` with an empty input that the complete `assistant` event repeats.

use memchr::memmem;
use serde_json::Value;

use crate::scan::TopLevel;
use cmk_engine::jsonout::Candidate;
use cmk_engine::tools::{ToolEvent, ToolOutcome};
use cmk_native::tool_vocabulary::VOCABULARY;

/// Byte markers of the events that carry tool calls (`"type":"tool_use"`), outcomes and denials
/// (all of which name a `tool_use_id`).
const MARKERS: [&[u8]; 2] = [b"\"tool_use\"", b"\"tool_use_id\""];

/// Whether a line may carry tool events: an assistant, user, system or result event holding one
/// of the `MARKERS`.
#[must_use]
pub(crate) fn may_carry(top: &TopLevel, line: &[u8]) -> bool {
    let typed = matches!(
        top.ty.as_deref(),
        Some("assistant" | "user" | "system" | "result")
    );
    typed && MARKERS.iter().any(|m| memmem::find(line, m).is_some())
}

/// The tool events of one parsed stream-json event.
#[must_use]
pub(crate) fn events(v: &Value) -> Vec<ToolEvent> {
    let voc = &*VOCABULARY;
    let mut out = Vec::new();
    match v.get("type").and_then(Value::as_str) {
        Some("assistant") => {
            for b in blocks(v) {
                if b.get("type").and_then(Value::as_str) != Some("tool_use") {
                    continue;
                }
                let (Some(id), Some(name)) = (str_of(b, "id"), str_of(b, "name")) else {
                    continue;
                };
                out.push(ToolEvent::Call {
                    call_id: id.to_owned(),
                    tool: Some(voc.claude_tool(name)),
                    native_name: Some(name.to_owned()),
                    arguments: voc.arguments(b.get("input")),
                });
            }
        }
        Some("user") => {
            for b in blocks(v) {
                if b.get("type").and_then(Value::as_str) != Some("tool_result") {
                    continue;
                }
                let Some(id) = str_of(b, "tool_use_id") else {
                    continue;
                };
                let outcome = if b.get("is_error").and_then(Value::as_bool) == Some(true) {
                    voc.failure(&content_text(b.get("content")))
                } else {
                    ToolOutcome::Ok
                };
                out.push(ToolEvent::Outcome {
                    call_id: id.to_owned(),
                    outcome,
                    no_output: false,
                });
            }
        }
        Some("system") if str_of(v, "subtype") == Some("permission_denied") => {
            let name = str_of(v, "tool_name");
            out.push(ToolEvent::Denied {
                call_id: str_of(v, "tool_use_id").map(str::to_owned),
                tool: name.map(|n| voc.claude_tool(n)),
                native_name: name.map(str::to_owned),
                arguments: None,
            });
        }
        Some("result") => {
            for d in v
                .get("permission_denials")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let name = str_of(d, "tool_name");
                out.push(ToolEvent::Denied {
                    call_id: str_of(d, "tool_use_id").map(str::to_owned),
                    tool: name.map(|n| voc.claude_tool(n)),
                    native_name: name.map(str::to_owned),
                    arguments: d.get("tool_input").map(|i| voc.arguments(Some(i))),
                });
            }
        }
        _ => {}
    }
    out
}

/// JSONOUT-1: the final's `structured_output`, when it has one.
#[must_use]
pub(crate) fn structured(final_event: &Value) -> Candidate {
    match final_event.get("structured_output") {
        None | Some(Value::Null) => Candidate::Missing,
        Some(v) => Candidate::Value(v.clone()),
    }
}

fn blocks(v: &Value) -> impl Iterator<Item = &Value> {
    v.pointer("/message/content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

fn str_of<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// A `tool_result` content as text: a string, or its text blocks joined.
fn content_text(c: Option<&Value>) -> String {
    match c {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|i| i.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}
