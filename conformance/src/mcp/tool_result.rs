//! What a `tools/call` result and a tool's declared schemas must be (MCP server/tools, TOOL-4):
//! the checks the cross-cutting rules ([`crate::mcp::watch`]) and the tools cases share.

use serde_json::Value;

use crate::core::checks::{show, str_at};

/// The checks of [`schema_problem`](crate::mcp::catalogue::tools::schema_problem), keeping the
/// compiled validator when they pass (the watch holds results to declared output schemas with
/// it, compiled once).
pub fn compile(schema: &Value) -> Result<jsonschema::Validator, String> {
    if !schema.is_object() {
        return Err("not an object".into());
    }
    if let Err(e) = jsonschema::meta::validate(schema) {
        return Err(format!("not a valid JSON Schema: {e}"));
    }
    jsonschema::validator_for(schema).map_err(|e| format!("does not compile: {e}"))
}

/// What a successful result of a tool with an `outputSchema` lacks when it has no
/// `structuredContent`.
pub const NO_STRUCTURED: &str =
    "the tool declares an outputSchema, the result has no structuredContent";

/// A successful `tools/call` result against its tool's compiled `outputSchema`: `Err` says what
/// is wrong (no `structuredContent`, or the first place it does not conform).
pub fn output_schema_problem(schema: &jsonschema::Validator, result: &Value) -> Result<(), String> {
    let Some(structured) = result.get("structuredContent") else {
        return Err(NO_STRUCTURED.into());
    };
    let evaluation = schema.evaluate(structured);
    if evaluation.flag().valid {
        return Ok(());
    }
    // The deepest failure says most: under a `oneOf` envelope the top error only says that no
    // branch holds, while the leaf names the field (`/result/runs/0: "acquired_by" is a
    // required property`).
    let leaf = evaluation
        .iter_errors()
        .max_by_key(|e| e.instance_location.as_str().len())
        .map_or_else(
            || "no detail".to_owned(),
            |e| format!("at {:?}: {}", e.instance_location.as_str(), e.error),
        );
    Err(format!(
        "structuredContent does not conform to the tool's outputSchema, {leaf}"
    ))
}

/// MCP server/tools: a `CallToolResult` has a `content` array of `ContentBlock`s (each a type
/// the schema defines, with that type's required fields); `isError`, when present, is a
/// boolean; `structuredContent`, when present, an object.
pub fn call_result_problem(result: &Value) -> Result<(), String> {
    let Some(content) = result.get("content").and_then(Value::as_array) else {
        return Err("a tools/call result without a content array".into());
    };
    if let Some((b, problem)) = content
        .iter()
        .find_map(|b| content_block_problem(b).map(|p| (b, p)))
    {
        return Err(format!("{problem}: {b}"));
    }
    if result.get("isError").is_some_and(|v| !v.is_boolean()) {
        return Err("isError that is not a boolean".into());
    }
    if result
        .get("structuredContent")
        .is_some_and(|v| !v.is_object())
    {
        return Err("structuredContent that is not an object".into());
    }
    Ok(())
}

/// What is wrong with one content block, after MCP 2025-06-18's `ContentBlock` (the union of
/// every revision the runner negotiates): `text` needs a string `text`; `image` and `audio` a
/// string `data` and `mimeType`; `resource_link` a string `uri` and `name`; `resource` an
/// object `resource` with a string `uri`.
fn content_block_problem(block: &Value) -> Option<String> {
    let has_str = |key: &str| block.get(key).is_some_and(Value::is_string);
    let missing = |keys: &[&str]| {
        keys.iter().find(|k| !has_str(k)).map(|k| {
            format!(
                "a content block of type {:?} without a string {k}",
                block["type"].as_str().unwrap_or_default()
            )
        })
    };
    match block.get("type").and_then(Value::as_str) {
        None => Some("a content block without a string type".into()),
        Some("text") => missing(&["text"]),
        Some("image" | "audio") => missing(&["data", "mimeType"]),
        Some("resource_link") => missing(&["uri", "name"]),
        Some("resource") => (!block["resource"]["uri"].is_string())
            .then(|| "a resource content block without resource.uri".to_owned()),
        Some(other) => Some(format!(
            "a content block of type {other:?}, which no MCP revision defines"
        )),
    }
}

/// TOOL-4 on one `tools/call` result: `structuredContent: {"result": {...}}`, exactly one text
/// block holding the JSON of that same object (a run's `final` with its scalar members only,
/// [`text_view`]), and an `isError` (always present; that it is a boolean is MCP's own rule,
/// [`call_result_problem`]'s, so a string is one finding, not two).
pub fn mirror_problem(result: &Value) -> Result<(), String> {
    mirror_holds(result)?;
    if result.get("isError").is_none() {
        return Err("no isError".into());
    }
    Ok(())
}

/// TOOL-4 on one `tools/call` result: `Err` says what is wrong.
pub fn mirror_holds(result: &Value) -> Result<(), String> {
    let structured = result
        .get("structuredContent")
        .ok_or("no structuredContent")?;
    if !structured.get("result").is_some_and(Value::is_object) {
        return Err(format!(
            "structuredContent has no result object: {}",
            show(structured)
        ));
    }
    let texts: Vec<&str> = result
        .get("content")
        .and_then(Value::as_array)
        .map(|c| {
            c.iter()
                .filter(|b| str_at(b, "type") == Some("text"))
                .filter_map(|b| str_at(b, "text"))
                .collect()
        })
        .unwrap_or_default();
    if texts.len() != 1 {
        return Err(format!("{} text blocks", texts.len()));
    }
    let parsed: Value =
        serde_json::from_str(texts[0]).map_err(|e| format!("text is not JSON: {e}"))?;
    let expected = text_view(structured);
    if parsed != expected {
        return Err(format!(
            "text {} differs from structuredContent with final's scalars only {}",
            show(&parsed),
            show(&expected)
        ));
    }
    Ok(())
}

/// What TOOL-4's text block holds for `structured`: the same object, except that
/// `result.final`, when it is an object, keeps only its scalar members (string, number, boolean,
/// `null`); its object- and array-valued ones stay in `structuredContent` only (TOOL-8).
#[must_use]
pub fn text_view(structured: &Value) -> Value {
    let mut view = structured.clone();
    if let Some(Value::Object(fin)) = view.get_mut("result").and_then(|r| r.get_mut("final")) {
        fin.retain(|_, v| !v.is_object() && !v.is_array());
    }
    view
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn answer(structured: &Value, text: &Value) -> Value {
        json!({"content": [{"type": "text", "text": text.to_string()}],
            "structuredContent": structured, "isError": false})
    }

    #[test]
    fn content_blocks_need_a_known_type_and_its_fields() {
        let with = |block: Value| json!({"content": [block], "isError": false});
        for ok in [
            json!({"type": "text", "text": "a"}),
            json!({"type": "image", "data": "AA==", "mimeType": "image/png"}),
            json!({"type": "audio", "data": "AA==", "mimeType": "audio/wav"}),
            json!({"type": "resource_link", "uri": "file:///a", "name": "a"}),
            json!({"type": "resource", "resource": {"uri": "file:///a", "text": "a"}}),
        ] {
            assert_eq!(call_result_problem(&with(ok.clone())), Ok(()), "{ok}");
        }
        for bad in [
            json!({"type": "txt", "text": "a"}),
            json!({"type": "text"}),
            json!({"type": "image", "data": "AA=="}),
            json!({"type": "resource", "resource": {"text": "a"}}),
            json!({"text": "a"}),
        ] {
            assert!(call_result_problem(&with(bad.clone())).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_text_holds_final_with_its_scalars_only() {
        let sc = json!({"result": {"run_id": "r", "final": {"type": "result", "result": "Hi",
            "total_cost_usd": 0.1, "is_error": false, "api_error_status": null,
            "usage": {"input_tokens": 1}, "errors": []}}});
        let reduced = json!({"result": {"run_id": "r", "final": {"type": "result",
            "result": "Hi", "total_cost_usd": 0.1, "is_error": false,
            "api_error_status": null}}});
        assert_eq!(text_view(&sc), reduced);
        assert!(mirror_problem(&answer(&sc, &reduced)).is_ok());
        // The whole object is not the text TOOL-4 asks for.
        assert!(mirror_problem(&answer(&sc, &sc)).is_err());
        // Nor is one that drops a scalar of final.
        let mut dropped = reduced.clone();
        dropped["result"]["final"]
            .as_object_mut()
            .map(|f| f.remove("result"));
        assert!(mirror_problem(&answer(&sc, &dropped)).is_err());
        // A result without final mirrors structuredContent whole.
        let plain = json!({"result": {"runs": []}});
        assert!(mirror_problem(&answer(&plain, &plain)).is_ok());
    }
}
