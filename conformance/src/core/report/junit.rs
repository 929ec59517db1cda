//! JUnit XML: one `<testsuite>` per section, one `<testcase>` per case. A case failure is
//! `<failure>`, a runner error `<error>` (h2spec mixed these up; CI dashboards should not), a
//! skip `<skipped>`; a baselined failure is `<skipped>` with its reason; warnings and info go to
//! `<system-out>`. Stale baseline entries fail.

use std::fmt::Write as _;

use super::{CaseResult, ProfileName, Report};
use crate::core::model::Outcome;

/// Renders the report as JUnit XML.
#[must_use]
pub fn render<P: ProfileName>(report: &Report<P>) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let total_time: u64 = report.cases.iter().map(|c| c.duration_ms).sum();
    let failures = report
        .cases
        .iter()
        .filter(|c| (c.outcome == Outcome::Fail && !c.baselined) || c.stale_baseline)
        .count()
        + report.baseline.unknown.len();
    let errors = report
        .cases
        .iter()
        .filter(|c| c.outcome == Outcome::Error)
        .count();
    let skipped = report
        .cases
        .iter()
        .filter(|c| c.outcome == Outcome::Skip || c.baselined)
        .count();
    let _ = writeln!(
        out,
        "<testsuites name=\"{}\" tests=\"{}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\" time=\"{}\">",
        esc(&report.runner.name),
        report.cases.len() + report.baseline.unknown.len(),
        secs(total_time)
    );
    let mut sections: Vec<&str> = Vec::new();
    for c in &report.cases {
        if !sections.contains(&c.section.as_str()) {
            sections.push(&c.section);
        }
    }
    for section in sections {
        let cases: Vec<&CaseResult> = report
            .cases
            .iter()
            .filter(|c| c.section == section)
            .collect();
        let f = cases
            .iter()
            .filter(|c| (c.outcome == Outcome::Fail && !c.baselined) || c.stale_baseline)
            .count();
        let e = cases.iter().filter(|c| c.outcome == Outcome::Error).count();
        let s = cases
            .iter()
            .filter(|c| c.outcome == Outcome::Skip || c.baselined)
            .count();
        let t: u64 = cases.iter().map(|c| c.duration_ms).sum();
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{f}\" errors=\"{e}\" skipped=\"{s}\" time=\"{}\">",
            esc(section),
            cases.len(),
            secs(t)
        );
        for c in cases {
            case(&mut out, &report.runner.name, c);
        }
        out.push_str("  </testsuite>\n");
    }
    if !report.baseline.unknown.is_empty() {
        let n = report.baseline.unknown.len();
        let _ = writeln!(
            out,
            "  <testsuite name=\"baseline\" tests=\"{n}\" failures=\"{n}\" errors=\"0\" skipped=\"0\" time=\"0.000\">"
        );
        for id in &report.baseline.unknown {
            let _ = writeln!(
                out,
                "    <testcase classname=\"{}.baseline\" name=\"{}\" time=\"0.000\">\n      <failure message=\"baseline lists an id that names no case\" type=\"stale-baseline\"/>\n    </testcase>",
                esc(&report.runner.name),
                esc(id)
            );
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

fn case(out: &mut String, runner: &str, c: &CaseResult) {
    let _ = write!(
        out,
        "    <testcase classname=\"{}.{}\" name=\"{}\" time=\"{}\"",
        esc(runner),
        esc(&c.section),
        esc(&c.id),
        secs(c.duration_ms)
    );
    let kind = format!("{} {}", c.level.name(), c.requirement);
    let body = detail(c);
    let inner = if c.stale_baseline {
        format!(
            "      <failure message=\"listed in the baseline but passes (stale baseline)\" type=\"{}\"/>\n",
            esc(&kind)
        )
    } else {
        match c.outcome {
            Outcome::Pass => String::new(),
            Outcome::Fail if c.baselined => format!(
                "      <skipped message=\"expected failure (baselined): {}\"/>\n      <system-out>{}</system-out>\n",
                esc(c.actual.as_deref().unwrap_or("")),
                esc(&body)
            ),
            Outcome::Fail => format!(
                "      <failure message=\"{}\" type=\"{}\">{}</failure>\n",
                esc(&message(c)),
                esc(&kind),
                esc(&body)
            ),
            Outcome::Error => format!(
                "      <error message=\"{}\" type=\"runner-error\">{}</error>\n",
                esc(c.reason.as_deref().unwrap_or("runner error")),
                esc(&body)
            ),
            Outcome::Skip => format!(
                "      <skipped message=\"{}\"/>\n",
                esc(c.reason.as_deref().unwrap_or(""))
            ),
            Outcome::Warn | Outcome::Info => format!(
                "      <system-out>{}: {}</system-out>\n",
                c.outcome.name().to_uppercase(),
                esc(&body)
            ),
        }
    };
    if inner.is_empty() {
        out.push_str("/>\n");
    } else {
        out.push_str(">\n");
        out.push_str(&inner);
        out.push_str("    </testcase>\n");
    }
}

fn message(c: &CaseResult) -> String {
    match (&c.expected, &c.actual) {
        (Some(e), Some(a)) => format!("expected {e}; actual {a}"),
        _ => c.description.clone(),
    }
}

fn detail(c: &CaseResult) -> String {
    let mut s = format!("{}\n", c.description);
    if let Some(e) = &c.expected {
        let _ = writeln!(s, "Expected: {e}");
    }
    if let Some(a) = &c.actual {
        let _ = writeln!(s, "Actual: {a}");
    }
    if let Some(r) = &c.reason {
        let _ = writeln!(s, "Reason: {r}");
    }
    if !c.transcript.is_empty() && c.outcome != Outcome::Pass {
        s.push_str("Transcript:\n");
        for e in &c.transcript {
            let _ = writeln!(s, "{:>6} ms {:<6} {}", e.ms, e.dir, e.line);
        }
    }
    s
}

fn secs(ms: u64) -> String {
    format!("{}.{:03}", ms / 1000, ms % 1000)
}

/// Escapes text for XML attributes and content; characters XML 1.0 cannot carry become U+FFFD.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(ch),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn control_characters_and_markup_are_escaped() {
        assert_eq!(super::esc("a<b>&\"\u{1}"), "a&lt;b&gt;&amp;&quot;\u{FFFD}");
    }
}
