//! The `mcp-calls` scenario's script: a model that calls named tools (an MCP host's
//! `mcp__SERVER__TOOL` names, any name in fact) one after the other, each input possibly built
//! from the previous tool's result, then answers text.
//!
//! Decided from the request alone, like every scenario: with `k` tool results in the conversation,
//! call `k` of the script is asked for; once the script is exhausted the reply is text. A string
//! input value `{{run_id}}` is replaced by the first adapter run id (`run_` + 32 hex digits) found
//! in the newest tool result, so "call `claude.run`, then read its result with
//! `claude.run.result`" needs no state in the stand-in.

use serde_json::Value;

/// The placeholder replaced by the run id found in the newest tool result.
pub const RUN_ID_PLACEHOLDER: &str = "{{run_id}}";

/// One scripted tool call.
#[derive(Debug, Clone, PartialEq)]
pub struct McpCall {
    /// The tool name exactly as the model sends it (e.g. `mcp__kit__claude_run`).
    pub name: String,
    /// The input object; string values equal to [`RUN_ID_PLACEHOLDER`] are substituted.
    pub input: Value,
}

impl McpCall {
    /// A call of `name` with `input`.
    pub fn new(name: impl Into<String>, input: Value) -> Self {
        McpCall {
            name: name.into(),
            input,
        }
    }

    /// Parses `NAME=JSON` (the `messages-standin --mcp-call` form).
    pub fn parse(spec: &str) -> Result<McpCall, String> {
        let (name, json) = spec
            .split_once('=')
            .ok_or_else(|| format!("{spec:?}: expected NAME=JSON"))?;
        let input: Value =
            serde_json::from_str(json).map_err(|e| format!("{spec:?}: input is not JSON: {e}"))?;
        if !input.is_object() {
            return Err(format!("{spec:?}: input must be a JSON object"));
        }
        Ok(McpCall::new(name, input))
    }

    /// The input with [`RUN_ID_PLACEHOLDER`] replaced by `run_id` (left as is when none is known).
    pub(crate) fn input_with(&self, run_id: Option<&str>) -> Value {
        substitute(&self.input, run_id)
    }
}

fn substitute(value: &Value, run_id: Option<&str>) -> Value {
    match value {
        Value::String(s) if s == RUN_ID_PLACEHOLDER => {
            Value::String(run_id.map_or_else(|| s.clone(), str::to_owned))
        }
        Value::Array(items) => Value::Array(items.iter().map(|v| substitute(v, run_id)).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), substitute(v, run_id)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The text of the newest `tool_result` block of the conversation (string content, or its text
/// blocks joined), if any.
pub fn newest_tool_result_text(body: &Value) -> Option<String> {
    let block = body
        .get("messages")?
        .as_array()?
        .iter()
        .rev()
        .filter_map(|m| m.get("content").and_then(Value::as_array))
        .flat_map(|blocks| blocks.iter().rev())
        .find(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))?;
    Some(match block.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    })
}

/// The first adapter run id (`run_` followed by 32 lowercase hex digits) in `text`.
pub fn find_run_id(text: &str) -> Option<&str> {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(at) = text[from..].find("run_") {
        let start = from + at;
        let end = start + 4 + 32;
        if end <= bytes.len()
            && bytes[start + 4..end]
                .iter()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b))
            && bytes.get(end).is_none_or(|b| !b.is_ascii_hexdigit())
        {
            return Some(&text[start..end]);
        }
        from = start + 4;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_run_id_of_the_newest_tool_result_fills_the_placeholder() {
        let id = "run_0123456789abcdef0123456789abcdef";
        let body = json!({"messages": [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1"}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                "content": [{"type": "text", "text": format!("{{\"result\":{{\"run_id\":\"{id}\"}}}}")}]}]}
        ]});
        let text = newest_tool_result_text(&body).expect("a tool result");
        let found = find_run_id(&text);
        assert_eq!(found, Some(id));
        let call = McpCall::parse(r#"mcp__kit__claude_run_result={"run_id":"{{run_id}}"}"#)
            .expect("parses");
        assert_eq!(call.name, "mcp__kit__claude_run_result");
        assert_eq!(call.input_with(found), json!({"run_id": id}));
        assert_eq!(call.input_with(None), json!({"run_id": RUN_ID_PLACEHOLDER}));
    }

    #[test]
    fn run_ids_must_be_exactly_32_hex_digits() {
        assert_eq!(find_run_id("run_abc run_0123"), None);
        assert_eq!(
            find_run_id(&format!("x run_{} y", "f".repeat(33))),
            None,
            "33 digits is not an id"
        );
        assert!(McpCall::parse("name-only").is_err());
        assert!(McpCall::parse("n=[1]").is_err());
    }
}
