//! Helpers shared by the MCP checks: reading tool results, grading the cross-cutting rules,
//! making tool arguments; the protocol-neutral ones are [`crate::core::checks`]'s (re-exported).

use serde_json::{Value, json};

use crate::core::client::Client;
use crate::core::model::Check;

pub use crate::core::checks::{
    LATE_GRACE, SILENCE, ensure, error_shape_problem, grade_error_answer, is_error_with, result_of,
    send_bad_line, show, str_at,
};

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
    if result.get("isError").is_some_and(|v| !v.is_boolean()) {
        // Not a CallToolResult at all (MCP server/tools: isError is a boolean): graded once, by
        // tools/result/shape; whether the call failed cannot be told.
        return Err(Check::blocked(
            crate::mcp::watch::Rule::ResultShape.case_id(),
            Check::fail(
                format!("a result of {what} with a boolean isError (MCP server/tools)"),
                show(msg),
            ),
        ));
    }
    let is_error = result.get("isError").and_then(Value::as_bool);
    let inner = result
        .get("structuredContent")
        .and_then(|s| s.get("result"))
        .filter(|r| r.is_object());
    if is_error == Some(false)
        && inner.is_some()
        && let Some(schema) = schema
        && let Err(problem) = crate::mcp::tool_result::output_schema_problem(schema, result)
    {
        return Err(Check::blocked(
            crate::mcp::watch::Rule::OutputSchema.case_id(),
            Check::fail(
                format!("a result of {what} conforming to its outputSchema"),
                format!("{problem}: {}", show(msg)),
            ),
        ));
    }
    match (is_error, inner) {
        (Some(is_error), Some(inner)) => Ok((is_error, inner.clone(), result.clone())),
        _ => Err(Check::blocked(
            crate::mcp::watch::Rule::Mirror.case_id(),
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
    match crate::core::client::message_problem(answer) {
        None => Ok(()),
        Some(problem) => Err(Check::blocked(
            crate::mcp::watch::Rule::Stdout.case_id(),
            Check::fail(
                format!("a valid JSON-RPC response to {what}"),
                format!("{problem}: {}", show(answer)),
            ),
        )),
    }
}

/// Whether the server declared capability `name` in its initialize result (MCP basic/lifecycle,
/// capability negotiation). A capability not declared skips the case (it does not apply); a
/// result without a `capabilities` object (a MUST field) blocks it on
/// `lifecycle/initialize/result-shape`, which grades that defect once.
pub fn declared(ctx: &crate::mcp::ctx::Ctx, name: &str) -> Result<(), Check> {
    match ctx.discovery.init.get("capabilities") {
        Some(Value::Object(caps)) if caps.contains_key(name) => Ok(()),
        Some(Value::Object(_)) => Err(Check::skip(format!(
            "the server declares no {name} capability"
        ))),
        _ => Err(Check::blocked(
            "lifecycle/initialize/result-shape",
            Check::skip(format!(
                "the initialize result has no capabilities object: whether the server has \
                 {name} cannot be told"
            )),
        )),
    }
}

/// Grades one cross-cutting rule from what every case's exchanges showed: the first offence
/// fails (with the case and the line), no exchange to look at skips with `nothing`.
pub fn grade_rule(
    ctx: &crate::mcp::ctx::Ctx,
    rule: crate::mcp::watch::Rule,
    expected: &str,
    nothing: &str,
) -> Result<Check, Check> {
    let (first, looked) = ctx.watch.result(rule);
    match first {
        Some(f) => Err(Check::fail(
            expected,
            format!("{} (first seen in {})", f.evidence, f.case),
        )),
        // Nothing to look at because discovery stopped at an answer under another id (no tool
        // known, none called): blocked by the id rule.
        None if looked == 0 && ctx.discovery.mislabelled.is_some() => Err(Check::blocked(
            crate::core::watch::ID_RULE_CASE,
            Check::skip(nothing),
        )),
        None if looked == 0 => Err(Check::skip(nothing)),
        None => Ok(Check::Pass),
    }
}

/// Arguments a tool's `inputSchema` accepts, made without knowing the tool: each required
/// property from its `const`, `default`, first `examples` or `enum` value, else a plain value of
/// its type (a string, 0 or its minimum, false, [], an object made the same way, three levels
/// deep at most; of a union of types, the first that is not null). `None` when a required
/// property cannot be made that way.
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
    let ty = match schema.get("type") {
        // A union of types (`["boolean", "string"]`): a value of any one is valid, so the first
        // that is not null (null when that is all it allows).
        Some(Value::Array(types)) => Some(
            types
                .iter()
                .filter_map(Value::as_str)
                .find(|t| *t != "null")
                .unwrap_or("null"),
        ),
        other => other.and_then(Value::as_str),
    };
    match ty {
        Some("null") => Some(Value::Null),
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
        // A union of types (server-sequential-thinking's booleans that also take a string):
        // the first type that is not null; a union of null alone, null.
        let union = json!({"type": "object", "required": ["n", "b", "z"],
            "properties": {
                "n": {"type": ["null", "integer"], "minimum": 1},
                "b": {"type": ["boolean", "string"]},
                "z": {"type": ["null"]}}});
        assert_eq!(
            arguments_for(&union),
            Some(json!({"n": 1, "b": false, "z": null}))
        );
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
