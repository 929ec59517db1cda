//! Scenarios of the Messages API stand-in: their names, the prompt marker, and the decision of
//! what one `POST /v1/messages` request gets, made from the request's own content.
//!
//! The real CLI sends several requests per user turn (retries, tool legs, side requests), so the
//! stand-in never counts requests: every answer is derived from the request body alone
//! (`reference/claude-2.1.328/messages-api.md`, "Requests it sends").

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use serde_json::Value;

use super::mcp_calls::McpCall;

/// The text marker that selects a scenario from inside a prompt: `standin:scenario=NAME`.
pub const SCENARIO_MARKER: &str = "standin:scenario=";

/// Default assistant text, the one in the reference captures (`streams/mock-stream.jsonl`).
pub const DEFAULT_TEXT: &str = "Hi there!";

/// Default Bash command of [`Scenario::Tool`]: it writes a file, so `--permission-mode dontAsk`
/// denies it (`streams/mock-tool-deny-partial.jsonl`).
pub const DEFAULT_WRITE_COMMAND: &str = "touch created-by-tool.txt";

/// Bash command of [`Scenario::ToolEcho`]: read-only, so `dontAsk` allows it
/// (`streams/mock-tool-dontask.jsonl`, `permission_decision.reason_type: subcommandResults`).
pub const READ_ONLY_COMMAND: &str = "echo hi";

/// The input of `structured`'s `StructuredOutput` call.
pub const STRUCTURED_INPUT: &str = r#"{"name":"standin","count":2}"#;

/// The input of `structured-invalid`'s `StructuredOutput` call.
pub const STRUCTURED_INVALID_INPUT: &str = r#"{"name":3}"#;

/// One way of answering. Names (for [`FromStr`], the marker and the binary) are in
/// [`Scenario::NAMES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Scenario {
    /// `text`: a plain text reply.
    Text,
    /// `tool`: a `Bash` tool call (a command that writes) until the request carries a
    /// `tool_result`, then a text reply.
    Tool,
    /// `tool-echo`: like `tool` with the read-only `echo hi`, which `dontAsk` allows.
    ToolEcho,
    /// `tool-loop`: a `Bash` tool call on every leg, for `--max-turns` (capped: after 25 tool
    /// results in the conversation it answers text, so a run without `--max-turns` ends).
    ToolLoop,
    /// `structured`: when the request offers the `StructuredOutput` tool (`claude --json-schema`)
    /// and the conversation holds no tool result yet, a `StructuredOutput` call with
    /// [`STRUCTURED_INPUT`]; otherwise a text reply.
    Structured,
    /// `structured-invalid`: like `structured` with [`STRUCTURED_INVALID_INPUT`], which breaks the
    /// test schema `{name: string, count: integer}` (both required).
    StructuredInvalid,
    /// `turns`: a text reply naming the user turn it answers (`turn N: Hi there!`), for
    /// multi-turn sessions (`--input-format stream-json`, `--resume`).
    Turns,
    /// `slow`: a text reply in many small deltas with a delay before each event.
    Slow,
    /// `mcp-calls`: the scripted tool calls of [`ScenarioSettings::mcp_calls`] one per leg (call
    /// `k` while the conversation holds `k` tool results, `{{run_id}}` filled from the newest
    /// result), then a text reply (a model driving an MCP server through its host).
    McpCalls,
    /// `error-NNN`: HTTP status NNN with the real error body shape.
    HttpError(ApiError),
}

/// An HTTP error the stand-in can answer with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ApiError {
    /// 400 `invalid_request_error`.
    InvalidRequest,
    /// 401 `authentication_error`.
    Authentication,
    /// 403 `permission_error`.
    Permission,
    /// 429 `rate_limit_error`.
    RateLimit,
    /// 500 `api_error`.
    Api,
    /// 529 `overloaded_error`.
    Overloaded,
}

impl ApiError {
    /// Every error, for listings.
    pub const ALL: [ApiError; 6] = [
        ApiError::InvalidRequest,
        ApiError::Authentication,
        ApiError::Permission,
        ApiError::RateLimit,
        ApiError::Api,
        ApiError::Overloaded,
    ];

    /// The HTTP status code.
    pub fn status(self) -> u16 {
        match self {
            ApiError::InvalidRequest => 400,
            ApiError::Authentication => 401,
            ApiError::Permission => 403,
            ApiError::RateLimit => 429,
            ApiError::Api => 500,
            ApiError::Overloaded => 529,
        }
    }

    /// The `error.type` of the body.
    pub fn error_type(self) -> &'static str {
        match self {
            ApiError::InvalidRequest => "invalid_request_error",
            ApiError::Authentication => "authentication_error",
            ApiError::Permission => "permission_error",
            ApiError::RateLimit => "rate_limit_error",
            ApiError::Api => "api_error",
            ApiError::Overloaded => "overloaded_error",
        }
    }

    fn from_status(status: u16) -> Option<Self> {
        ApiError::ALL.into_iter().find(|e| e.status() == status)
    }
}

impl Scenario {
    /// Every scenario name accepted by [`FromStr`].
    pub const NAMES: [&'static str; 15] = [
        "text",
        "tool",
        "tool-echo",
        "tool-loop",
        "structured",
        "structured-invalid",
        "turns",
        "slow",
        "mcp-calls",
        "error-400",
        "error-401",
        "error-403",
        "error-429",
        "error-500",
        "error-529",
    ];

    /// Finds the scenario a prompt asks for: the last `standin:scenario=NAME` in the user text of
    /// the conversation, newest message first. Tool results are not user text and are skipped,
    /// so every leg of a turn keeps the scenario of the prompt that started it. An unknown name
    /// is ignored (the server's default applies).
    pub fn from_messages(body: &Value) -> Option<Scenario> {
        let messages = body.get("messages")?.as_array()?;
        messages
            .iter()
            .rev()
            .filter(|m| m.get("role").and_then(Value::as_str) == Some("user"))
            .flat_map(|m| user_texts(m).into_iter().rev())
            .find_map(marker_in)
    }
}

/// The scenario named right after the last marker in `text`, if it is a known name.
fn marker_in(text: &str) -> Option<Scenario> {
    let at = text.rfind(SCENARIO_MARKER)?;
    let rest = &text[at + SCENARIO_MARKER.len()..];
    let name: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .collect();
    name.parse().ok()
}

/// The user-typed texts of one message: a string content, or its `text` blocks.
fn user_texts(message: &Value) -> Vec<&str> {
    match message.get("content") {
        Some(Value::String(s)) => vec![s.as_str()],
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect(),
        _ => Vec::new(),
    }
}

/// Whether the last user message of the conversation carries a `tool_result`: the sign of a
/// tool leg (`messages-api.md`: "that is how a stand-in tells the second leg ... from the first").
pub fn last_user_has_tool_result(body: &Value) -> bool {
    let Some(messages) = body.get("messages").and_then(Value::as_array) else {
        return false;
    };
    let Some(last_user) = messages
        .iter()
        .rev()
        .find(|m| m.get("role").and_then(Value::as_str) == Some("user"))
    else {
        return false;
    };
    last_user
        .get("content")
        .and_then(Value::as_array)
        .is_some_and(|blocks| {
            blocks
                .iter()
                .any(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
        })
}

/// Number of `tool_result` blocks in the whole conversation.
pub fn tool_results(body: &Value) -> usize {
    body.get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|m| m.get("content").and_then(Value::as_array))
        .flatten()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
        .count()
}

/// Number of user turns in the conversation: user messages with typed text, not tool results.
pub fn user_turns(body: &Value) -> usize {
    body.get("messages")
        .and_then(Value::as_array)
        .map(|ms| {
            ms.iter()
                .filter(|m| m.get("role").and_then(Value::as_str) == Some("user"))
                .filter(|m| !user_texts(m).is_empty())
                .count()
        })
        .unwrap_or(0)
}

/// Whether the request offers a tool of this name (main-loop requests offer `Bash`; a side
/// request without it cannot be answered with a tool call).
pub fn offers_tool(body: &Value, name: &str) -> bool {
    body.get("tools")
        .and_then(Value::as_array)
        .is_some_and(|ts| {
            ts.iter()
                .any(|t| t.get("name").and_then(Value::as_str) == Some(name))
        })
}

/// Knobs shared by all scenarios.
#[derive(Debug, Clone)]
pub struct ScenarioSettings {
    /// The assistant text of text replies.
    pub text: String,
    /// Bash command of `tool` and `tool-loop` (`tool-echo` always uses [`READ_ONLY_COMMAND`]).
    pub bash_command: String,
    /// Delay before every event of the `slow` scenario.
    pub slow_delay: Duration,
    /// Number of text deltas of the `slow` scenario.
    pub slow_pieces: usize,
    /// Whether to send a `ping` event after `message_start` (the real API does).
    pub ping: bool,
    /// The script of the `mcp-calls` scenario (empty: it answers text at once).
    pub mcp_calls: Vec<McpCall>,
}

impl Default for ScenarioSettings {
    fn default() -> Self {
        ScenarioSettings {
            text: DEFAULT_TEXT.to_owned(),
            bash_command: DEFAULT_WRITE_COMMAND.to_owned(),
            slow_delay: Duration::from_millis(500),
            slow_pieces: 40,
            ping: true,
            mcp_calls: Vec::new(),
        }
    }
}

/// Error for an unknown scenario name.
#[derive(Debug, Clone, thiserror::Error)]
#[error("unknown stand-in scenario {0:?} (known: {known})", known = Scenario::NAMES.join(", "))]
pub struct UnknownScenario(pub String);

impl FromStr for Scenario {
    type Err = UnknownScenario;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let scenario = match s {
            "text" => Scenario::Text,
            "tool" => Scenario::Tool,
            "tool-echo" => Scenario::ToolEcho,
            "tool-loop" => Scenario::ToolLoop,
            "structured" => Scenario::Structured,
            "structured-invalid" => Scenario::StructuredInvalid,
            "turns" => Scenario::Turns,
            "slow" => Scenario::Slow,
            "mcp-calls" => Scenario::McpCalls,
            other => other
                .strip_prefix("error-")
                .and_then(|code| code.parse::<u16>().ok())
                .and_then(ApiError::from_status)
                .map(Scenario::HttpError)
                .ok_or_else(|| UnknownScenario(s.to_owned()))?,
        };
        Ok(scenario)
    }
}

impl fmt::Display for Scenario {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scenario::Text => f.write_str("text"),
            Scenario::Tool => f.write_str("tool"),
            Scenario::ToolEcho => f.write_str("tool-echo"),
            Scenario::ToolLoop => f.write_str("tool-loop"),
            Scenario::Structured => f.write_str("structured"),
            Scenario::StructuredInvalid => f.write_str("structured-invalid"),
            Scenario::Turns => f.write_str("turns"),
            Scenario::Slow => f.write_str("slow"),
            Scenario::McpCalls => f.write_str("mcp-calls"),
            Scenario::HttpError(e) => write!(f, "error-{}", e.status()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_listed_name_parses_and_displays_back() {
        for name in Scenario::NAMES {
            let parsed: Scenario = name.parse().expect("listed name parses");
            assert_eq!(parsed.to_string(), name);
        }
        assert!("error-418".parse::<Scenario>().is_err());
        assert!("bogus".parse::<Scenario>().is_err());
    }

    #[test]
    fn marker_is_found_in_text_blocks_but_not_in_tool_results() {
        let body = json!({"messages": [
            {"role": "user", "content": [
                {"type": "text", "text": "<system-reminder>x</system-reminder>"},
                {"type": "text", "text": "standin:scenario=tool-loop\ncreate a file"}]},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "Bash", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t",
                "content": "standin:scenario=text"}]}
        ]});
        assert_eq!(Scenario::from_messages(&body), Some(Scenario::ToolLoop));
        assert!(last_user_has_tool_result(&body));
        assert_eq!(user_turns(&body), 1);
    }

    #[test]
    fn newest_marker_wins_and_unknown_names_are_ignored() {
        let body = json!({"messages": [
            {"role": "user", "content": "standin:scenario=slow"},
            {"role": "assistant", "content": "ok"},
            {"role": "user", "content": "standin:scenario=nope then standin:scenario=error-529"}
        ]});
        assert_eq!(
            Scenario::from_messages(&body),
            Some(Scenario::HttpError(ApiError::Overloaded))
        );
        let unknown = json!({"messages": [{"role": "user", "content": "standin:scenario=nope"}]});
        assert_eq!(Scenario::from_messages(&unknown), None);
        assert!(!last_user_has_tool_result(&unknown));
    }
}
