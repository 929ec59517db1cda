//! Helpers every gate's checks share: showing values in expected/actual text, reading and
//! grading JSON-RPC answers (error shapes, the answers to one bad line), small assertions.

use std::time::Duration;

use serde_json::{Value, json};

use crate::core::client::{Client, Frame, error_code, is_response_to};
use crate::core::model::Check;

/// How long after the probe's answer the runner keeps listening for a late answer to bad input.
pub const LATE_GRACE: Duration = Duration::from_millis(200);
/// How long the runner listens for an answer that must not come.
pub const SILENCE: Duration = Duration::from_millis(500);
/// How long after a probe's answer an earlier request's own answer may still come, at the
/// least (see [`reorder_window`]).
pub const REORDER_FLOOR: Duration = Duration::from_secs(2);

/// How long after a probe's answer an earlier request may still be answered: JSON-RPC orders
/// no responses, and a server answering concurrently (the C# SDK) may answer the probe first,
/// by more on a loaded machine. Four times the round trip the probe measured (which load
/// stretches alike), and never less than [`REORDER_FLOOR`] (GATE-LOAD-2).
#[must_use]
pub fn reorder_window(round_trip: Duration) -> Duration {
    round_trip.saturating_mul(4).max(REORDER_FLOOR)
}

/// A value shown in expected/actual text: compact JSON cut at 300 bytes.
#[must_use]
pub fn show(v: &Value) -> String {
    let s = v.to_string();
    if s.len() <= 300 {
        return s;
    }
    let mut end = 300;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes)", &s[..end], s.len())
}

/// The `result` of a response, or a failure saying what came instead.
pub fn result_of<'a>(msg: &'a Value, what: &str) -> Result<&'a Value, Check> {
    msg.get("result")
        .ok_or_else(|| Check::fail(format!("a result for {what}"), show(msg)))
}

/// What answered one bad line: the JSON-RPC messages (see [`send_bad_line`]; the value derefs
/// to them) and, over Streamable HTTP, how the transport refused the line's POST when it did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BadLineAnswers {
    /// The JSON-RPC messages that answered the line.
    pub messages: Vec<Value>,
    /// The transport's refusal of the line's POST (`HTTP 400 (text/plain): …`), if any.
    pub refused: Option<String>,
}

impl std::ops::Deref for BadLineAnswers {
    type Target = [Value];
    fn deref(&self) -> &[Value] {
        &self.messages
    }
}

impl BadLineAnswers {
    /// [`grade_error_answer`] of these answers, its "no answer" told as the transport's
    /// refusal when the POST was refused with no JSON-RPC message in its body: the line was
    /// not dropped silently.
    #[must_use]
    pub fn grade_error(&self, code: i64, id: &Value) -> Check {
        match (grade_error_answer(&self.messages, code, id), &self.refused) {
            (Check::Fail { expected, .. }, Some(refused)) if self.messages.is_empty() => {
                Check::fail(
                    expected,
                    format!("no JSON-RPC answer: the transport refused the POST: {refused}"),
                )
            }
            (check, _) => check,
        }
    }
}

/// Sends `bytes` (one line), then a ping probe, and returns every frame that arrived before the
/// probe's answer plus a short grace after it (the answers to the bad line, if any). The probe
/// also proves the server still serves (T4); a missing probe answer is a failure.
pub async fn send_bad_line(client: &mut Client, bytes: &[u8]) -> Result<BadLineAnswers, Check> {
    // What arrived before the bad line (a start-up log record, a notification) answers nothing.
    let _: Vec<Frame> = client.take_seen();
    let _: Vec<String> = client.take_transport_refusals();
    if !bytes.is_empty() {
        client.send_raw(bytes).await?;
    }
    let probe = json!("probe-after-bad-input");
    client
        .send(&mcp_wire::request(&probe, "ping", None))
        .await?;
    client
        .response_to(&probe, "a ping sent after the bad line")
        .await?;
    let mut frames = client.take_seen();
    frames.extend(client.collect(LATE_GRACE).await?);
    let refused = client.take_transport_refusals().into_iter().next();
    let messages = frames
        .into_iter()
        .filter_map(|f| match f {
            Frame::Json(v) => Some(v),
            _ => None,
        })
        // Server-initiated notifications and requests (list_changed, logging …) are not answers,
        // nor is a JSON line without id, result or error (T1 grades such lines on its own), nor
        // a response under an id no request of this connection carried: the id rule's finding,
        // answering nothing the case sent (one defect, one verdict).
        .filter(|v| {
            v.get("method").is_none()
                && !is_response_to(v, &probe)
                && !client.is_foreign_response(v)
                && (v.is_array() || ["id", "result", "error"].iter().any(|k| v.get(k).is_some()))
        })
        .collect();
    Ok(BadLineAnswers { messages, refused })
}

/// What is wrong with `msg` as a JSON-RPC error response, or `None`: MCP basic (2025-06-18)
/// "Either a `result` or an `error` MUST be set. A response MUST NOT set both", errors "MUST
/// include an error code and message at minimum", "Error codes MUST be integers".
#[must_use]
pub fn error_shape_problem(msg: &Value) -> Option<&'static str> {
    let Some(error) = msg.get("error") else {
        return Some("no error member");
    };
    if msg.get("result").is_some() {
        Some("both result and error set")
    } else if !error.get("code").is_some_and(Value::is_i64) {
        Some("an error without an integer code")
    } else if !error.get("message").is_some_and(Value::is_string) {
        Some("an error without a string message")
    } else {
        None
    }
}

/// Grades the answers to one bad line: exactly one answer, an error with `code`, `id` and the
/// shape JSON-RPC requires (a parse error or an invalid request gets one response, not two).
#[must_use]
pub fn grade_error_answer(answers: &[Value], code: i64, id: &Value) -> Check {
    let expected = format!("an error response with code {code} and id {id}");
    let matching = |m: &&Value| error_code(m) == Some(code) && m.get("id") == Some(id);
    match answers {
        [] => Check::fail(
            expected,
            "no answer: the line was dropped silently (the server still answers ping)",
        ),
        [one] if matching(&one) => match error_shape_problem(one) {
            None => Check::Pass,
            Some(problem) => Check::fail(expected, format!("{problem}: {}", show(one))),
        },
        [one] => Check::fail(expected, show(one)),
        many => Check::fail(
            format!("{expected}, and only one answer"),
            format!(
                "{} answers: {}",
                many.len(),
                many.iter().map(show).collect::<Vec<_>>().join(" | ")
            ),
        ),
    }
}

/// Whether `v` is an error response with `code`.
#[must_use]
pub fn is_error_with(v: &Value, code: i64) -> bool {
    error_code(v) == Some(code)
}

/// Fails unless `cond`, with expected/actual text.
pub fn ensure(
    cond: bool,
    expected: impl Into<String>,
    actual: impl Into<String>,
) -> Result<(), Check> {
    if cond {
        Ok(())
    } else {
        Err(Check::fail(expected, actual))
    }
}

/// The string at `key` of `v`.
#[must_use]
pub fn str_at<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}
