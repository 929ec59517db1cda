//! Tool result shaping (TOOL-4, TOOL-5): `structuredContent: {"result": X}`, one text block
//! holding the compact JSON of that same `structuredContent` object with `final` reduced to its
//! scalar members (TOOL-8's per-result budget), and `isError` only for failed operations. `X` is one of the typed results of [`cmk_engine::results`], whose schema each
//! tool declares as its `outputSchema` ([`crate::output_schema`]).

use serde::Serialize;
use serde_json::{Value, json};

use cmk_engine::ToolError;
use cmk_engine::results::Failure;
use cmk_engine::to_json;

/// A successful operation's result (`isError: false`).
#[must_use]
pub(crate) fn success<T: Serialize>(result: &T) -> Value {
    shape(to_json(result), false)
}

/// A completed operation whose data reports failure, e.g. `claude.run` of a failed run (TOOL-5):
/// `is_error` decides `isError`.
#[must_use]
pub(crate) fn with_error_flag<T: Serialize>(result: &T, is_error: bool) -> Value {
    shape(to_json(result), is_error)
}

/// A failed operation: `{"error": {code, message, ...}}` with `isError: true` (TOOL-5).
#[must_use]
pub(crate) fn failure(err: &ToolError) -> Value {
    shape(to_json(&Failure { error: err }), true)
}

fn shape(result: Value, is_error: bool) -> Value {
    let structured = json!({"result": result});
    let text = text_of(&structured);
    json!({
        "content": [{"type": "text", "text": text}],
        "structuredContent": structured,
        "isError": is_error,
    })
}

/// The text block (TOOL-4): the compact JSON of `structured`, except that a run's `final` (the
/// native result event, kept verbatim in `structuredContent` by RUN-11) keeps only its scalar
/// members; its object- and array-valued ones (usage, model usage, …) are left out of the text,
/// which is what hosts put in a model's context (TOOL-8).
fn text_of(structured: &Value) -> String {
    let Some(Value::Object(fin)) = structured.get("result").and_then(|r| r.get("final")) else {
        return structured.to_string();
    };
    if !fin.values().any(is_composite) {
        return structured.to_string();
    }
    let mut text = structured.clone();
    if let Some(Value::Object(fin)) = text.get_mut("result").and_then(|r| r.get_mut("final")) {
        fin.retain(|_, v| !is_composite(v));
    }
    text.to_string()
}

fn is_composite(v: &Value) -> bool {
    v.is_object() || v.is_array()
}

#[cfg(test)]
mod tests {
    use super::*;
    use cmk_engine::ErrorCode;

    #[test]
    fn text_mirrors_structured_content() {
        let r = failure(&ToolError::new(ErrorCode::UnknownRun, "no such run"));
        let text = r["content"][0]["text"].as_str().expect("text");
        let parsed: Value = serde_json::from_str(text).expect("json");
        assert_eq!(parsed, r["structuredContent"]);
        // C-TOOL-4: the compact JSON of the whole `structuredContent` object.
        assert_eq!(text, r["structuredContent"].to_string());
        assert_eq!(
            r["structuredContent"]["result"]["error"]["code"],
            "unknown_run"
        );
        assert_eq!(r["isError"], true);
        assert_eq!(r["content"].as_array().map(Vec::len), Some(1));
    }

    #[test]
    fn text_leaves_out_the_non_scalar_members_of_final() {
        let fin = json!({"type": "result", "result": "Hi", "num_turns": 1, "is_error": false,
            "api_error_status": null, "usage": {"input_tokens": 3}, "errors": []});
        let r = success(&json!({"run_id": "run_1", "final": fin, "tool_calls": {"calls": []}}));
        // RUN-11: `structuredContent` keeps `final` verbatim.
        assert_eq!(r["structuredContent"]["result"]["final"], fin);
        let text = r["content"][0]["text"].as_str().expect("text");
        // TOOL-4: the text is `structuredContent` with `final`'s scalars only, compact.
        let mut expected = r["structuredContent"].clone();
        expected["result"]["final"] = json!({"type": "result", "result": "Hi", "num_turns": 1,
            "is_error": false, "api_error_status": null});
        assert_eq!(text, expected.to_string());
    }
}
