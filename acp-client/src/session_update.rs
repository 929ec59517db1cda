//! `session/update` notifications (ACP-3): every one is counted; the text of
//! `agent_message_chunk` updates sent after the prompt is concatenated (BND-3); tool call kinds
//! are remembered for permission decisions (ACP-4); unknown variants are counted, never fatal.
//! A line over the line bound is never parsed, yet whether it is message text is learned from a
//! bounded scan of its keys ([`is_text_chunk`]): its text is then missing from the answer.

use std::collections::VecDeque;

use mcp_wire::scan::Scanned;
use serde_json::Value;

use crate::report::TurnReport;

/// The `sessionUpdate` variants of the ACP v1 stable schema.
pub const KNOWN_UPDATES: [&str; 14] = [
    "user_message_chunk",
    "agent_message_chunk",
    "agent_thought_chunk",
    "tool_call",
    "tool_call_update",
    "plan",
    "available_commands_update",
    "current_mode_update",
    "config_option_update",
    "session_info_update",
    "usage_update",
    "notice",
    "compaction_update",
    "compaction_summary_chunk",
];

/// How many tool call kinds are remembered (oldest forgotten first).
pub const MAX_TOOL_KINDS: usize = 1024;
/// Longest `toolCallId` (and kind) remembered; longer ones are not kept, so a permission request
/// for such a call falls back to its own `toolCall.kind`.
pub const MAX_TOOL_ID: usize = 1024;

/// A bounded map `toolCallId` → `kind`, from `tool_call` and `tool_call_update` updates.
#[derive(Debug, Default)]
pub(crate) struct ToolKinds {
    entries: VecDeque<(String, String)>,
}

impl ToolKinds {
    pub(crate) fn get(&self, id: &str) -> Option<&str> {
        self.entries
            .iter()
            .find(|(k, _)| k == id)
            .map(|(_, kind)| kind.as_str())
    }

    fn set(&mut self, id: &str, kind: &str) {
        if id.len() > MAX_TOOL_ID || kind.len() > MAX_TOOL_ID {
            return;
        }
        if let Some(entry) = self.entries.iter_mut().find(|(k, _)| k == id) {
            kind.clone_into(&mut entry.1);
            return;
        }
        if self.entries.len() == MAX_TOOL_KINDS {
            self.entries.pop_front();
        }
        self.entries.push_back((id.to_owned(), kind.to_owned()));
    }
}

/// The key paths a scan of an oversized line watches (BND-1), in the order [`is_text_chunk`]
/// reads them: `id`, `method`, the update's variant, its content's type and its session (ACP-10).
/// Real agents write
/// `sessionUpdate` before or after `content`, so the answer may be known only at the line's end.
pub(crate) const KIND_PATHS: &[&[&str]] = &[
    &["id"],
    &["method"],
    &["params", "update", "sessionUpdate"],
    &["params", "update", "content", "type"],
    &["params", "sessionId"],
];

/// The `sessionId` of a scanned line (with [`KIND_PATHS`]), when it is a string.
pub(crate) fn scanned_session(s: &Scanned) -> Option<&str> {
    s.found.get(4).and_then(|f| f.string.as_deref())
}

/// Whether a scanned line (with [`KIND_PATHS`]) is a `session/update` notification carrying
/// `agent_message_chunk` text: one whose text [`apply`] would have added to the answer.
pub(crate) fn is_text_chunk(s: &Scanned) -> bool {
    let string = |i: usize| s.found.get(i).and_then(|f| f.string.as_deref());
    s.is_object
        && !s.found.first().is_some_and(|f| f.seen)
        && string(1) == Some("session/update")
        && string(2) == Some("agent_message_chunk")
        && string(3) == Some("text")
}

/// Applies one `session/update` notification's params to the report. Text counts only while
/// `prompting` (a `session/load` replays the old conversation as updates first).
pub(crate) fn apply(
    params: &Value,
    report: &mut TurnReport,
    tools: &mut ToolKinds,
    prompting: bool,
    text_max: usize,
) {
    report.updates += 1;
    let update = params.get("update");
    let variant = update
        .and_then(|u| u.get("sessionUpdate"))
        .and_then(Value::as_str);
    let (Some(update), Some(variant)) = (update, variant) else {
        report.unknown_updates += 1;
        return;
    };
    match variant {
        "agent_message_chunk" => {
            let content = update.get("content");
            if prompting
                && content.and_then(|c| c.get("type")).and_then(Value::as_str) == Some("text")
                && let Some(text) = content.and_then(|c| c.get("text")).and_then(Value::as_str)
            {
                report.push_text(text, text_max);
            }
        }
        "tool_call" | "tool_call_update" => {
            let id = update.get("toolCallId").and_then(Value::as_str);
            let kind = update.get("kind").and_then(Value::as_str);
            if let (Some(id), Some(kind)) = (id, kind) {
                tools.set(id, kind);
            }
        }
        known if KNOWN_UPDATES.contains(&known) => {}
        _ => report.unknown_updates += 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_wire::scan::PathScan;

    #[test]
    fn an_oversized_line_is_message_text_only_for_a_text_agent_message_chunk_notification() {
        let kind = |line: &str| is_text_chunk(&PathScan::line(KIND_PATHS, line.as_bytes()));
        let chunk = |update: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","method":"session/update","params":{{"sessionId":"s","update":{update}}}}}"#
            )
        };
        assert!(kind(&chunk(
            r#"{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}"#
        )));
        assert!(kind(&chunk(
            r#"{"content":{"text":"x","type":"text"},"sessionUpdate":"agent_message_chunk"}"#
        )));
        for other in [
            chunk(r#"{"sessionUpdate":"tool_call_update","content":{"type":"text","text":"x"}}"#),
            chunk(r#"{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"x"}}"#),
            chunk(r#"{"sessionUpdate":"agent_message_chunk","content":{"type":"image","data":"x"}}"#),
            r#"{"jsonrpc":"2.0","id":1,"method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}}}"#.to_owned(),
            "x".repeat(64),
        ] {
            assert!(!kind(&other), "{other}");
        }
    }

    #[test]
    fn the_tool_kind_map_forgets_the_oldest_entry_when_full() {
        let mut tools = ToolKinds::default();
        for i in 0..=MAX_TOOL_KINDS {
            tools.set(&format!("call_{i}"), "edit");
        }
        assert_eq!(tools.get("call_0"), None);
        assert_eq!(tools.get(&format!("call_{MAX_TOOL_KINDS}")), Some("edit"));
        tools.set(&"x".repeat(MAX_TOOL_ID + 1), "edit");
        assert_eq!(tools.get(&"x".repeat(MAX_TOOL_ID + 1)), None);
    }
}
