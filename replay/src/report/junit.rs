//! JUnit XML, in the style of the conformance gates' report: one `<testsuite>` for the recording,
//! one `<testcase>` per compared position; a difference is `<failure>` with its unified diff, a
//! run that could not happen a single `<error>` (never mixed up); notes and the rules that fired
//! go to `<system-out>`.

use std::fmt::Write as _;

use super::{Report, Status};

/// Renders the report as JUnit XML.
#[must_use]
pub fn render(report: &Report) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let secs = format!("{:.3}", report.duration_ms as f64 / 1000.0);
    let suite = format!("mcp-replay {} {}", report.command, report.recording);
    if report.status == Status::Error {
        let _ = writeln!(
            out,
            "<testsuites name=\"mcp-replay\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\"{secs}\">"
        );
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\"{secs}\">",
            esc(&suite)
        );
        let _ = writeln!(
            out,
            "    <testcase classname=\"{}\" name=\"replay\" time=\"{secs}\">\n      <error message=\"{}\"/>\n    </testcase>",
            esc(&suite),
            esc(report.error.as_deref().unwrap_or("could not run"))
        );
        out.push_str("  </testsuite>\n</testsuites>\n");
        return out;
    }
    let mut cases: Vec<&str> = report.positions.iter().map(String::as_str).collect();
    for d in &report.differences {
        if !cases.contains(&d.position.as_str()) {
            cases.push(&d.position);
        }
    }
    let failures = report.differences.len();
    let _ = writeln!(
        out,
        "<testsuites name=\"mcp-replay\" tests=\"{}\" failures=\"{failures}\" errors=\"0\" skipped=\"0\" time=\"{secs}\">",
        cases.len()
    );
    let _ = writeln!(
        out,
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\" errors=\"0\" skipped=\"0\" time=\"{secs}\">",
        esc(&suite),
        cases.len()
    );
    for case in cases {
        let diffs: Vec<&str> = report
            .differences
            .iter()
            .filter(|d| d.position == case)
            .map(|d| d.diff.as_str())
            .collect();
        let _ = write!(
            out,
            "    <testcase classname=\"{}\" name=\"{}\" time=\"0.000\"",
            esc(&suite),
            esc(case)
        );
        if diffs.is_empty() {
            out.push_str("/>\n");
        } else {
            let _ = writeln!(
                out,
                ">\n      <failure message=\"differs from the recording\">{}</failure>\n    </testcase>",
                esc(&diffs.join("\n"))
            );
        }
    }
    let mut system_out = String::new();
    for n in &report.notes {
        let _ = writeln!(system_out, "note: {n}");
    }
    for (k, v) in &report.rules_fired {
        let _ = writeln!(system_out, "rule {k} fired {v} time(s)");
    }
    if !system_out.is_empty() {
        let _ = writeln!(out, "    <system-out>{}</system-out>", esc(&system_out));
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}

/// XML text and attribute escaping (control characters other than tab and newline dropped: XML
/// 1.0 cannot carry them).
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 => {}
            c => out.push(c),
        }
    }
    out
}
