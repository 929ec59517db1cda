//! Tool result shaping (TOOL-4, TOOL-5): `structuredContent: {"result": X}`, one text block
//! holding the JSON of that same `structuredContent` object, and `isError` only for failed
//! operations. `X` is one of the typed results of [`cmk_engine::results`], whose schema each
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
    let text = structured.to_string();
    json!({
        "content": [{"type": "text", "text": text}],
        "structuredContent": structured,
        "isError": is_error,
    })
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
}
