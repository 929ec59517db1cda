//! Helpers shared by the checks: showing values, grading error answers, reading tool results.

use std::time::Duration;

use serde_json::{Value, json};

use crate::client::{Client, Frame, error_code, is_response_to};
use crate::model::Check;

/// How long after the probe's answer the runner keeps listening for a late answer to bad input.
pub const LATE_GRACE: Duration = Duration::from_millis(200);
/// How long the runner listens for an answer that must not come.
pub const SILENCE: Duration = Duration::from_millis(500);

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

/// Sends `bytes` (one line), then a ping probe, and returns every frame that arrived before the
/// probe's answer plus a short grace after it (the answers to the bad line, if any). The probe
/// also proves the server still serves (T4); a missing probe answer is a failure.
pub async fn send_bad_line(client: &mut Client, bytes: &[u8]) -> Result<Vec<Value>, Check> {
    // What arrived before the bad line (a start-up log record, a notification) answers nothing.
    let _: Vec<Frame> = client.take_seen();
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
    Ok(frames
        .into_iter()
        .filter_map(|f| match f {
            Frame::Json(v) => Some(v),
            _ => None,
        })
        // Server-initiated notifications and requests (list_changed, logging …) are not answers,
        // nor is a JSON line without id, result or error (T1 grades such lines on its own).
        .filter(|v| {
            v.get("method").is_none()
                && !is_response_to(v, &probe)
                && (v.is_array() || ["id", "result", "error"].iter().any(|k| v.get(k).is_some()))
        })
        .collect())
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

/// A tool call's answer split up: `(isError, structuredContent.result, whole result)`. A
/// result without TOOL-4's shape (`structuredContent.result` an object, `isError` a boolean) is
/// graded once, by `tools/result/structured-mirror`: every case reading results is blocked by
/// it rather than failing on a default. Likewise a successful result that breaks the
/// `outputSchema` its tool declares (`schema`) is graded once, by `tools/result/output-schema`
/// (MCP server/tools): a case reading it is blocked by that case, not failed on the field the
/// result lacks.
pub fn tool_answer(
    msg: &Value,
    what: &str,
    schema: Option<&jsonschema::Validator>,
) -> Result<(bool, Value, Value), Check> {
    let result = result_of(msg, what)?;
    let is_error = result.get("isError").and_then(Value::as_bool);
    let inner = result
        .get("structuredContent")
        .and_then(|s| s.get("result"))
        .filter(|r| r.is_object());
    if is_error == Some(false)
        && inner.is_some()
        && let Some(schema) = schema
        && let Err(problem) = crate::watch::output_schema_problem(schema, result)
    {
        return Err(Check::blocked(
            crate::watch::Rule::OutputSchema.case_id(),
            Check::fail(
                format!("a result of {what} conforming to its outputSchema"),
                format!("{problem}: {}", show(msg)),
            ),
        ));
    }
    match (is_error, inner) {
        (Some(is_error), Some(inner)) => Ok((is_error, inner.clone(), result.clone())),
        _ => Err(Check::blocked(
            crate::watch::Rule::Mirror.case_id(),
            Check::fail(
                format!(
                    "a result of {what} with structuredContent.result and a boolean isError \
                     (TOOL-4)"
                ),
                show(msg),
            ),
        )),
    }
}

/// Blocks the case when `answer` is no valid JSON-RPC message (a null result, an error
/// without a message): T1 grades that once, on every exchange (`lifecycle/stdout/protocol-only`).
pub fn well_formed(answer: &Value, what: &str) -> Result<(), Check> {
    match crate::client::message_problem(answer) {
        None => Ok(()),
        Some(problem) => Err(Check::blocked(
            crate::watch::Rule::Stdout.case_id(),
            Check::fail(
                format!("a valid JSON-RPC response to {what}"),
                format!("{problem}: {}", show(answer)),
            ),
        )),
    }
}

/// Grades one cross-cutting rule from what every case's exchanges showed: the first offence
/// fails (with the case and the line), no exchange to look at skips with `nothing`.
pub fn grade_rule(
    ctx: &crate::schedule::Ctx,
    rule: crate::watch::Rule,
    expected: &str,
    nothing: &str,
) -> Result<Check, Check> {
    let (first, looked) = ctx.watch.result(rule);
    match first {
        Some(f) => Err(Check::fail(
            expected,
            format!("{} (first seen in {})", f.evidence, f.case),
        )),
        None if looked == 0 => Err(Check::skip(nothing)),
        None => Ok(Check::Pass),
    }
}

/// Arguments a tool's `inputSchema` accepts, made without knowing the tool: each required
/// property from its `const`, `default`, first `examples` or `enum` value, else a plain value of
/// its type (a string, 0 or its minimum, false, [], an object made the same way, three levels
/// deep at most). `None` when a required property cannot be made that way.
#[must_use]
pub fn arguments_for(schema: &Value) -> Option<Value> {
    value_for(schema, 0)
}

fn value_for(schema: &Value, depth: u8) -> Option<Value> {
    if depth > 3 {
        return None;
    }
    for key in ["const", "default"] {
        if let Some(v) = schema.get(key) {
            return Some(v.clone());
        }
    }
    for key in ["examples", "enum"] {
        if let Some(v) = schema
            .get(key)
            .and_then(Value::as_array)
            .and_then(|a| a.first())
        {
            return Some(v.clone());
        }
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("string") => {
            let min = schema.get("minLength").and_then(Value::as_u64).unwrap_or(0);
            let text = "mcp-conformance";
            let len = usize::try_from(min).ok()?.max(text.len());
            Some(Value::from(
                text.repeat(len.div_ceil(text.len()))[..len].to_owned(),
            ))
        }
        Some("integer") => Some(schema.get("minimum").cloned().unwrap_or(json!(0))),
        Some("number") => Some(schema.get("minimum").cloned().unwrap_or(json!(0))),
        Some("boolean") => Some(json!(false)),
        Some("array") => {
            (schema.get("minItems").and_then(Value::as_u64).unwrap_or(0) == 0).then(|| json!([]))
        }
        // An object, or a schema that gives no type but lists properties (a tool's inputSchema).
        Some("object") | None if depth == 0 || schema.get("properties").is_some() => {
            let props = schema.get("properties").and_then(Value::as_object);
            let mut out = serde_json::Map::new();
            for r in schema
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
            {
                let p = props.and_then(|p| p.get(r))?;
                out.insert(r.to_owned(), value_for(p, depth + 1)?);
            }
            Some(Value::Object(out))
        }
        _ => None,
    }
}

/// Calls tool `name` with `arguments` (and `_meta` when given) and returns the whole answer.
pub async fn call_tool(
    client: &mut Client,
    name: &str,
    arguments: Value,
    meta: Option<Value>,
) -> Result<Value, Check> {
    let mut params = json!({"name": name, "arguments": arguments});
    if let (Some(m), Some(obj)) = (meta, params.as_object_mut()) {
        obj.insert("_meta".into(), m);
    }
    Ok(client.request("tools/call", Some(params)).await?)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_made_from_what_the_input_schema_gives_or_not_at_all() {
        // tools/result/output-schema's probe: declared values first, then a plain value of the
        // type; a required property that cannot be made means no call.
        let schema = json!({"type": "object", "required": ["a", "b", "c", "d", "e", "f", "g"],
            "properties": {
                "a": {"type": "string", "const": "fixed"},
                "b": {"type": "integer", "default": 7},
                "c": {"type": "string", "examples": ["ex"]},
                "d": {"enum": ["one", "two"]},
                "e": {"type": "string", "minLength": 20},
                "f": {"type": "number", "minimum": 3},
                "g": {"type": "object", "required": ["h"],
                      "properties": {"h": {"type": "boolean"}}},
                "optional": {"type": "string"}}});
        let args = arguments_for(&schema).expect("arguments");
        assert_eq!(args["a"], "fixed");
        assert_eq!(args["b"], 7);
        assert_eq!(args["c"], "ex");
        assert_eq!(args["d"], "one");
        assert_eq!(args["e"].as_str().map(str::len), Some(20));
        assert_eq!(args["f"], 3);
        assert_eq!(args["g"], json!({"h": false}));
        assert!(args.get("optional").is_none());
        // No required property: an empty object.
        assert_eq!(arguments_for(&json!({"type": "object"})), Some(json!({})));
        // A required array that must not be empty, or a required property the schema does not
        // describe: nothing the runner could honestly send.
        for unmakeable in [
            json!({"type": "object", "required": ["x"],
                   "properties": {"x": {"type": "array", "minItems": 1}}}),
            json!({"type": "object", "required": ["x"]}),
            json!({"type": "object", "required": ["x"], "properties": {"x": {"$ref": "#/y"}}}),
        ] {
            assert_eq!(arguments_for(&unmakeable), None, "{unmakeable}");
        }
    }
}
