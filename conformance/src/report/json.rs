//! The JSON report (schema: `docs/conformance-report.schema.json`, versioned by
//! `format_version`).

use super::Report;

/// Renders the report as pretty-printed JSON with a trailing newline.
#[must_use]
pub fn render(report: &Report) -> String {
    // Serialising plain data structures cannot fail; fall back to an explicit error object so
    // the output stays JSON whatever happens.
    let mut out = serde_json::to_string_pretty(report).unwrap_or_else(|e| {
        serde_json::json!({"format_version": super::FORMAT_VERSION, "error": e.to_string()})
            .to_string()
    });
    out.push('\n');
    out
}
