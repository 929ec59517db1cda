//! The tool-loop boundary end to end (TOOLCALL-1..4, LOOP-1..4, JSONOUT-1..3) on both providers'
//! fakes, and the alias table checked against the real recorded shapes.
//!
//! - `claude`: fake-claude scenarios through `claude.run` (loops, distinct reads, structured
//!   output, argv).
//! - `json_schema`: the `json_schema` limits (JSONOUT-4) and the validation's time budget
//!   (JSONOUT-5): refused up front, never holding a read or shutdown.
//! - `cursor`: fake-cursor-agent scenarios through `cursor.run` (the same, plus the strict parser
//!   on the final text).
//! - `vocabulary`: claude's recorded streams (`fixtures/claude-streams/`, copies of
//!   `shared/reference/claude-2.1.328/streams/`), the ACP transcripts and Cursor's documented
//!   `rawInput` shapes through the dialects.

mod claude;
mod cursor;
mod json_schema;
mod vocabulary;

use serde_json::{Value, json};

/// The schema of the structured-output scenarios: `{name: string, count: integer}`, both
/// required.
pub fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {"name": {"type": "string"}, "count": {"type": "integer"}},
        "required": ["name", "count"],
        "additionalProperties": false
    })
}
