//! The JSON report (schema: `docs/conformance-report.schema.json`, versioned by
//! `format_version`).

use serde::Serialize;

use super::{ProfileName, Report};

/// A report with its protocol tag first (`"protocol": "acp"`); the rest is the same schema.
#[derive(Serialize)]
struct Tagged<'a, P: ProfileName> {
    protocol: &'static str,
    #[serde(flatten)]
    report: &'a Report<P>,
}

/// Renders the report as pretty-printed JSON with a trailing newline.
#[must_use]
pub fn render<P: ProfileName>(report: &Report<P>) -> String {
    // Serialising plain data structures cannot fail; fall back to an explicit error object so
    // the output stays JSON whatever happens.
    let text = match report.profile.protocol() {
        Some(protocol) => serde_json::to_string_pretty(&Tagged { protocol, report }),
        None => serde_json::to_string_pretty(report),
    };
    let mut out = text.unwrap_or_else(|e| {
        serde_json::json!({"format_version": super::FORMAT_VERSION, "error": e.to_string()})
            .to_string()
    });
    out.push('\n');
    out
}
