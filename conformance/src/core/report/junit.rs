//! JUnit XML: one `<testsuite>` per section (and revision, when cases carry one: `resources
//! 2026-07-28`), one `<testcase>` per case. A case failure is
//! `<failure>`, a runner error `<error>` (h2spec mixed these up; CI dashboards should not), a
//! skip `<skipped>`; a baselined failure is `<skipped>` with its reason; warnings and info go to
//! `<system-out>`. Stale baseline entries fail. Times are wall times: the run's (cases run in
//! parallel, so their sum says nothing), each suite's from its first case's start to its last
//! case's end. A run that ended early (a runner error before any case, an interrupt) has a
//! `runner` suite whose one test case is that `<error>`, so the file exists on every exit. A
//! `coverage` suite says what went ungraded and why, its one test case a `<failure>` when the
//! coverage misses `--min-coverage`.

use std::fmt::Write as _;

use super::{CaseResult, ProfileName, Report};
use crate::core::coverage::Coverage;
use crate::core::model::Outcome;

/// Renders the report as JUnit XML.
#[must_use]
pub fn render<P: ProfileName>(report: &Report<P>) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let total_time = report
        .duration_ms
        .unwrap_or_else(|| span_ms(&report.cases.iter().collect::<Vec<_>>()));
    let runner_error = usize::from(report.error.is_some());
    // A coverage suite when coverage is part of the verdict (`--min-coverage`) or applicable
    // cases went ungraded; its one test case fails when the coverage misses the bound.
    let coverage = report
        .coverage
        .as_ref()
        .filter(|c| c.min_percent.is_some() || c.missing() > 0);
    let coverage_tests = usize::from(coverage.is_some());
    let coverage_failed = usize::from(coverage.is_some_and(|c| !c.met));
    let failures = report
        .cases
        .iter()
        .filter(|c| (c.outcome == Outcome::Fail && !c.baselined) || c.stale_baseline)
        .count()
        + report.baseline.unknown.len()
        + coverage_failed;
    let errors = report
        .cases
        .iter()
        .filter(|c| c.outcome == Outcome::Error)
        .count()
        + runner_error;
    let skipped = report
        .cases
        .iter()
        .filter(|c| c.outcome == Outcome::Skip || c.baselined)
        .count();
    let _ = writeln!(
        out,
        "<testsuites name=\"{}\" tests=\"{}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\" time=\"{}\">",
        esc(&report.runner.name),
        report.cases.len() + report.baseline.unknown.len() + runner_error + coverage_tests,
        secs(total_time)
    );
    if let Some(error) = &report.error {
        let _ = writeln!(
            out,
            "  <testsuite name=\"runner\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\"{}\">\n    <testcase classname=\"{}.runner\" name=\"runner\" time=\"{}\">\n      <error message=\"{}\" type=\"runner-error\">exit status {}</error>\n    </testcase>\n  </testsuite>",
            secs(total_time),
            esc(&report.runner.name),
            secs(total_time),
            esc(error),
            report.exit_code
        );
    }
    // One suite per section and revision: a case graded on two revisions shows in both.
    let mut suites: Vec<(&str, Option<&str>)> = Vec::new();
    for c in &report.cases {
        let key = (c.section.as_str(), c.revision.as_deref());
        if !suites.contains(&key) {
            suites.push(key);
        }
    }
    for (section, revision) in suites {
        let cases: Vec<&CaseResult> = report
            .cases
            .iter()
            .filter(|c| c.section == section && c.revision.as_deref() == revision)
            .collect();
        let name = suite_name(section, revision);
        let f = cases
            .iter()
            .filter(|c| (c.outcome == Outcome::Fail && !c.baselined) || c.stale_baseline)
            .count();
        let e = cases.iter().filter(|c| c.outcome == Outcome::Error).count();
        let s = cases
            .iter()
            .filter(|c| c.outcome == Outcome::Skip || c.baselined)
            .count();
        let t = span_ms(&cases);
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{f}\" errors=\"{e}\" skipped=\"{s}\" time=\"{}\">",
            esc(&name),
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
    if let Some(c) = coverage {
        coverage_suite(&mut out, &report.runner.name, c);
    }
    out.push_str("</testsuites>\n");
    out
}

/// A suite's name: the section, and the revision its cases were graded on (`lifecycle
/// 2025-06-18`) when the gate has revisions.
fn suite_name(section: &str, revision: Option<&str>) -> String {
    match revision {
        Some(r) => format!("{section} {r}"),
        None => section.to_owned(),
    }
}

/// The `coverage` suite: one test case, a `<failure>` when the coverage misses
/// `--min-coverage`, its body each reason cases went ungraded.
fn coverage_suite(out: &mut String, runner: &str, c: &Coverage) {
    let failed = usize::from(!c.met);
    let mut body = String::new();
    for g in &c.ungraded {
        let _ = writeln!(
            body,
            "{}: {} ({} MUST): {}",
            g.reason.name(),
            g.count,
            g.must.len(),
            g.remedy
        );
        if g.reason.applicable() && !g.must.is_empty() {
            let _ = writeln!(body, "  MUST: {}", g.must.join(", "));
        }
    }
    let inner = if c.met {
        format!("      <system-out>{}</system-out>\n", esc(&body))
    } else {
        format!(
            "      <failure message=\"{}\" type=\"min-coverage\">{}</failure>\n",
            esc(&c.line()),
            esc(&body)
        )
    };
    let _ = writeln!(
        out,
        "  <testsuite name=\"coverage\" tests=\"1\" failures=\"{failed}\" errors=\"0\" skipped=\"0\" time=\"0.000\">\n    <testcase classname=\"{}.coverage\" name=\"coverage\" time=\"0.000\">\n{inner}    </testcase>\n  </testsuite>",
        esc(runner)
    );
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

/// The wall time the cases took together: from the first start to the last end when their
/// starts are known, else the sum of their times (a report made without a run).
fn span_ms(cases: &[&CaseResult]) -> u64 {
    let starts: Option<Vec<_>> = cases.iter().map(|c| c.started_at).collect();
    match starts.as_deref() {
        Some([first, rest @ ..]) => {
            let begin = rest.iter().fold(*first, |a, b| a.min(*b));
            let end = cases
                .iter()
                .zip(std::iter::once(first).chain(rest))
                .map(|(c, s)| *s + std::time::Duration::from_millis(c.duration_ms))
                .max()
                .unwrap_or(begin);
            u64::try_from((end - begin).as_millis()).unwrap_or(u64::MAX)
        }
        _ => cases.iter().map(|c| c.duration_ms).sum(),
    }
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
    use std::time::{Duration, Instant};

    use super::{CaseResult, span_ms};
    use crate::core::model::{Level, Outcome};

    fn ran(started_at: Option<Instant>, ms: u64) -> CaseResult {
        CaseResult {
            id: "a/b".into(),
            section: "a".into(),
            revision: None,
            requirement: "r".into(),
            level: Level::Must,
            outcome: Outcome::Pass,
            baselined: false,
            stale_baseline: false,
            description: "d".into(),
            expected: None,
            actual: None,
            reason: None,
            blocked_by: None,
            ungraded: None,
            duration_ms: ms,
            started_at,
            timed_out: false,
            transcript: Vec::new(),
        }
    }

    #[test]
    fn a_suites_time_is_wall_time_not_the_sum_of_its_cases() {
        let t0 = Instant::now();
        // Three cases side by side: 0-1000, 100-1100, 500-2000 ms.
        let cases = [
            ran(Some(t0), 1000),
            ran(Some(t0 + Duration::from_millis(100)), 1000),
            ran(Some(t0 + Duration::from_millis(500)), 1500),
        ];
        assert_eq!(span_ms(&cases.iter().collect::<Vec<_>>()), 2000);
        // Without starts (a report made without a run), the sum.
        let cases = [ran(None, 1000), ran(None, 500)];
        assert_eq!(span_ms(&cases.iter().collect::<Vec<_>>()), 1500);
        assert_eq!(span_ms(&[]), 0);
    }

    #[test]
    fn control_characters_and_markup_are_escaped() {
        assert_eq!(super::esc("a<b>&\"\u{1}"), "a&lt;b&gt;&amp;&quot;\u{FFFD}");
    }
}
