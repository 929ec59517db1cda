//! What the stand-in answers to one `POST /v1/messages`: the server-sent events of a streamed
//! message (in the order `reference/claude-2.1.328/messages-api.md` describes), a plain JSON
//! message for a non-streaming request, or an HTTP error with the real error body shape.

use std::time::Duration;

use serde_json::{Value, json};

use super::mcp_calls::{find_run_id, newest_tool_result_text};
use super::scenario::{
    ApiError, READ_ONLY_COMMAND, STRUCTURED_INPUT, STRUCTURED_INVALID_INPUT, Scenario,
    ScenarioSettings, last_user_has_tool_result, offers_tool, tool_results, user_turns,
};

/// Text said before a tool call, as in `streams/mock-tool-deny-partial.jsonl`.
const TOOL_PREAMBLE: &str = "I'll run it.";

/// `tool-loop` stops calling tools once the conversation holds this many tool results, so a run
/// without `--max-turns` still ends (bounds) instead of looping forever.
pub(crate) const TOOL_LOOP_CAP: usize = 25;

/// Input tokens reported per request (the captures show 12).
const INPUT_TOKENS: u64 = 12;
/// Output tokens reported by `message_delta` (the captures show 7).
const OUTPUT_TOKENS: u64 = 7;

/// One content block of an assistant message.
#[derive(Debug, Clone)]
enum Block {
    Text(String),
    ToolUse {
        id: String,
        name: String,
        input: Value,
    },
}

/// The answer planned for one request.
#[derive(Debug, Clone)]
pub(crate) enum Reply {
    /// `200 text/event-stream`: `(event name, data)` pairs, `delay` slept before each.
    Stream {
        events: Vec<(&'static str, Value)>,
        delay: Duration,
    },
    /// A JSON body with this status.
    Json { status: u16, body: Value },
}

/// Plans the answer of `scenario` to the request `body` (already parsed JSON).
pub(crate) fn plan(scenario: Scenario, settings: &ScenarioSettings, body: &Value) -> Reply {
    let model = body
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or("claude-opus-5-5");
    let streamed = body.get("stream").and_then(Value::as_bool) == Some(true);
    let mut pieces = 2;
    let mut delay = Duration::ZERO;
    let (blocks, stop_reason) = match scenario {
        Scenario::HttpError(error) => return error_reply(error),
        Scenario::Text => (vec![Block::Text(settings.text.clone())], "end_turn"),
        Scenario::Turns => {
            let text = format!("turn {}: {}", user_turns(body), settings.text);
            (vec![Block::Text(text)], "end_turn")
        }
        Scenario::Slow => {
            pieces = settings.slow_pieces.max(1);
            delay = settings.slow_delay;
            (vec![Block::Text(settings.text.clone())], "end_turn")
        }
        Scenario::McpCalls => match settings.mcp_calls.get(tool_results(body)) {
            // Unlike `tool`, the name is not checked against the request's `tools`: a host may
            // defer its MCP tools (offer them by search) and still run a call of a known name.
            Some(call) => {
                let newest = newest_tool_result_text(body);
                let run_id = newest.as_deref().and_then(find_run_id);
                let tool = Block::ToolUse {
                    id: new_id("toolu_"),
                    name: call.name.clone(),
                    input: call.input_with(run_id),
                };
                (vec![Block::Text(TOOL_PREAMBLE.into()), tool], "tool_use")
            }
            None => (vec![Block::Text(settings.text.clone())], "end_turn"),
        },
        Scenario::Structured | Scenario::StructuredInvalid => {
            // One attempt per conversation: after any tool result (claude's answer to the
            // call, or its `[structured-output-enforce]` reminder later) the model answers text.
            if tool_results(body) == 0 && offers_tool(body, "StructuredOutput") {
                let raw = if scenario == Scenario::Structured {
                    STRUCTURED_INPUT
                } else {
                    STRUCTURED_INVALID_INPUT
                };
                let input: Value = serde_json::from_str(raw).unwrap_or(Value::Null);
                let tool = Block::ToolUse {
                    id: new_id("toolu_"),
                    name: "StructuredOutput".into(),
                    input,
                };
                (vec![tool], "tool_use")
            } else {
                (vec![Block::Text(settings.text.clone())], "end_turn")
            }
        }
        Scenario::Tool | Scenario::ToolEcho | Scenario::ToolLoop => {
            let wants_tool = match scenario {
                Scenario::ToolLoop => tool_results(body) < TOOL_LOOP_CAP,
                _ => !last_user_has_tool_result(body),
            };
            // A side request that offers no Bash tool cannot take a tool call: answer text.
            if wants_tool && offers_tool(body, "Bash") {
                let command = match scenario {
                    Scenario::ToolEcho => READ_ONLY_COMMAND,
                    _ => settings.bash_command.as_str(),
                };
                let input = json!({"command": command, "description": "Run command"});
                let tool = Block::ToolUse {
                    id: new_id("toolu_"),
                    name: "Bash".into(),
                    input,
                };
                (vec![Block::Text(TOOL_PREAMBLE.into()), tool], "tool_use")
            } else {
                (vec![Block::Text(settings.text.clone())], "end_turn")
            }
        }
    };
    if !streamed {
        return Reply::Json {
            status: 200,
            body: message_json(model, &blocks, stop_reason),
        };
    }
    let events = stream_events(model, &blocks, stop_reason, pieces, settings.ping);
    Reply::Stream { events, delay }
}

/// The error answer: status and `{"type":"error","error":{type,message},"request_id"}`; the
/// message is `mock <type>` as in `streams/mock-401-r1.jsonl`.
pub(crate) fn error_reply(error: ApiError) -> Reply {
    let kind = error.error_type();
    Reply::Json {
        status: error.status(),
        body: json!({
            "type": "error",
            "error": {"type": kind, "message": format!("mock {kind}")},
            "request_id": new_id("req_mock"),
        }),
    }
}

/// A 404 error body for paths the stand-in does not serve.
pub(crate) fn not_found(path: &str) -> Reply {
    Reply::Json {
        status: 404,
        body: json!({
            "type": "error",
            "error": {"type": "not_found_error", "message": format!("mock: no route for {path}")},
            "request_id": new_id("req_mock"),
        }),
    }
}

/// `msg_…`, `toolu_…`, `req_…` identifiers: the prefix and 24 hex digits.
pub(crate) fn new_id(prefix: &str) -> String {
    let hex = uuid::Uuid::new_v4().simple().to_string();
    format!("{prefix}{}", &hex[..24])
}

/// The usage of `message_start` (and of a plain message) with the keys the real API sends, in
/// its order: the CLI copies it into its `assistant` events and `stream_event`s, so a stand-in
/// that left `cache_creation` or `service_tier` out made those events differ in shape from the
/// reference captures (`streams/mock-stream.jsonl`), which the fidelity tests of fake-claude
/// compare with live runs.
fn usage_start() -> Value {
    json!({
        "input_tokens": INPUT_TOKENS,
        "output_tokens": 1,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
        "service_tier": "standard",
    })
}

fn message_json(model: &str, blocks: &[Block], stop_reason: &str) -> Value {
    let content: Vec<Value> = blocks
        .iter()
        .map(|b| match b {
            Block::Text(text) => json!({"type": "text", "text": text}),
            Block::ToolUse { id, name, input } => {
                json!({"type": "tool_use", "id": id, "name": name, "input": input})
            }
        })
        .collect();
    let mut usage = usage_start();
    usage["output_tokens"] = json!(OUTPUT_TOKENS);
    json!({
        "id": new_id("msg_mock"), "type": "message", "role": "assistant", "model": model,
        "content": content, "stop_reason": stop_reason, "stop_sequence": null, "usage": usage,
    })
}

/// The event sequence of one streamed message: `message_start`, optional `ping`, per block
/// `content_block_start` / `content_block_delta`… / `content_block_stop`, then `message_delta`
/// and `message_stop`. Text and tool input JSON are each split in `pieces` deltas.
fn stream_events(
    model: &str,
    blocks: &[Block],
    stop_reason: &str,
    pieces: usize,
    ping: bool,
) -> Vec<(&'static str, Value)> {
    let mut events = vec![(
        "message_start",
        json!({"type": "message_start", "message": {
            "id": new_id("msg_mock"), "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": null, "stop_sequence": null, "usage": usage_start(),
        }}),
    )];
    if ping {
        events.push(("ping", json!({"type": "ping"})));
    }
    for (index, block) in blocks.iter().enumerate() {
        let (start, deltas) = match block {
            Block::Text(text) => (
                json!({"type": "text", "text": ""}),
                split_pieces(text, pieces)
                    .into_iter()
                    .map(|t| json!({"type": "text_delta", "text": t}))
                    .collect::<Vec<_>>(),
            ),
            Block::ToolUse { id, name, input } => (
                json!({"type": "tool_use", "id": id, "name": name, "input": {}}),
                split_pieces(&input.to_string(), pieces)
                    .into_iter()
                    .map(|p| json!({"type": "input_json_delta", "partial_json": p}))
                    .collect(),
            ),
        };
        events.push((
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": start}),
        ));
        for delta in deltas {
            events.push((
                "content_block_delta",
                json!({"type": "content_block_delta", "index": index, "delta": delta}),
            ));
        }
        events.push((
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        ));
    }
    events.push((
        "message_delta",
        json!({"type": "message_delta",
               "delta": {"stop_reason": stop_reason, "stop_sequence": null},
               "usage": {"output_tokens": OUTPUT_TOKENS}}),
    ));
    events.push(("message_stop", json!({"type": "message_stop"})));
    events
}

/// Splits `text` in `n` non-empty pieces of about equal length (fewer if it is shorter),
/// on character boundaries.
fn split_pieces(text: &str, n: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    if chars.is_empty() {
        return vec![String::new()];
    }
    let n = n.clamp(1, chars.len());
    let size = chars.len().div_ceil(n);
    chars.chunks(size).map(|c| c.iter().collect()).collect()
}

/// Formats one server-sent event: `event: NAME\ndata: JSON\n\n`.
pub(crate) fn sse_frame(name: &str, data: &Value) -> String {
    format!("event: {name}\ndata: {data}\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(reply: &Reply) -> Vec<&'static str> {
        match reply {
            Reply::Stream { events, .. } => events.iter().map(|(n, _)| *n).collect(),
            Reply::Json { .. } => Vec::new(),
        }
    }

    #[test]
    fn text_reply_streams_events_in_the_documented_order() {
        let body = json!({"stream": true, "model": "m", "messages": []});
        let reply = plan(Scenario::Text, &ScenarioSettings::default(), &body);
        assert_eq!(
            names(&reply),
            [
                "message_start",
                "ping",
                "content_block_start",
                "content_block_delta",
                "content_block_delta",
                "content_block_stop",
                "message_delta",
                "message_stop"
            ]
        );
    }

    #[test]
    fn tool_scenario_calls_bash_until_a_tool_result_comes_back() {
        let settings = ScenarioSettings::default();
        let first = json!({"stream": true, "tools": [{"name": "Bash"}],
            "messages": [{"role": "user", "content": "create a file"}]});
        let Reply::Stream { events, .. } = plan(Scenario::Tool, &settings, &first) else {
            panic!("expected a stream");
        };
        let partial: String = events
            .iter()
            .filter_map(|(_, d)| d["delta"]["partial_json"].as_str())
            .collect();
        let input: Value = serde_json::from_str(&partial).expect("pieces join to JSON");
        assert_eq!(input["command"], DEFAULT_WRITE_COMMAND_FOR_TEST);
        let second = json!({"stream": true, "tools": [{"name": "Bash"}], "messages": [
            {"role": "user", "content": "create a file"},
            {"role": "assistant", "content": [{"type": "tool_use"}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "x"}]}]});
        let reply = plan(Scenario::Tool, &settings, &second);
        assert!(!format!("{reply:?}").contains("tool_use"));
        assert!(format!("{:?}", plan(Scenario::ToolLoop, &settings, &second)).contains("tool_use"));
    }

    const DEFAULT_WRITE_COMMAND_FOR_TEST: &str = super::super::scenario::DEFAULT_WRITE_COMMAND;

    #[test]
    fn split_pieces_keeps_every_character() {
        assert_eq!(split_pieces("Hi there!", 2), ["Hi th", "ere!"]);
        assert_eq!(split_pieces("ab", 40).concat(), "ab");
        assert_eq!(split_pieces("", 3), [""]);
    }
}
