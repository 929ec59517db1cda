//! The human report: a tree by section (with each case's revision when the gate grades
//! revisions), then failures again with Expected / Actual and the wire
//! transcript, then warnings, then the coverage (what was not graded and why), and exactly one
//! closing line `N passed, N failed, N skipped`
//! (warn, info and baselined counts on the line before). No colours: it must read the same in
//! a CI log and a terminal. Everything a server can influence (serverInfo, expected / actual
//! texts, reasons, transcripts) is shown without control characters, so a hostile server
//! cannot move the cursor, clear the screen or hide a failure in the report.

use std::fmt::Write as _;

use super::{CaseResult, ProfileName, Report};
use crate::core::coverage::Coverage;
use crate::core::model::Outcome;

/// The tag shown for a case.
#[must_use]
pub fn tag(c: &CaseResult) -> &'static str {
    if c.stale_baseline {
        return "STALE";
    }
    match c.outcome {
        Outcome::Pass => "PASS",
        Outcome::Fail if c.baselined => "XFAIL",
        Outcome::Fail => "FAIL",
        Outcome::Warn => "WARN",
        Outcome::Info => "INFO",
        Outcome::Skip => "SKIP",
        Outcome::Error => "ERROR",
    }
}

/// One progress line, printed as each case finishes.
#[must_use]
pub fn progress_line(done: usize, total: usize, c: &CaseResult) -> String {
    format!(
        "[{done:>3}/{total}] {:<5} {} ({} ms)",
        tag(c),
        c.id,
        c.duration_ms
    )
}

/// Renders the whole report.
#[must_use]
pub fn render<P: ProfileName>(report: &Report<P>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{} {}", report.runner.name, report.runner.version);
    let _ = writeln!(
        out,
        "{:<8} {}{}",
        format!("{}:", report.profile.peer()),
        printable(&report.server.command.join(" ")),
        if report.server.builtin {
            "  (built-in: reference adapter wired to fake-claude and fake-cursor-agent)"
        } else {
            ""
        }
    );
    let info = report.server.server_info.as_ref().map_or_else(
        || "-".to_owned(),
        |i| {
            printable(&format!(
                "{} {}",
                i.get("name").and_then(|v| v.as_str()).unwrap_or("?"),
                i.get("version").and_then(|v| v.as_str()).unwrap_or("?")
            ))
        },
    );
    let _ = writeln!(
        out,
        "         {} {info}, protocol {}",
        report.profile.info_key(),
        printable(report.server.protocol_version.as_deref().unwrap_or("-"))
    );
    if let Some(d) = &report.deadlines {
        let _ = writeln!(out, "         {}", d.line());
    }
    let mut flags = vec![ProfileName::name(&report.profile).to_owned()];
    if report.strict {
        flags.push("strict".into());
    }
    if report.drive_fake {
        flags.push("drive-fake".into());
    }
    if let Some(f) = &report.baseline.file {
        flags.push(format!("baseline {f} ({} listed)", report.baseline.listed));
    }
    let _ = writeln!(out, "profile: {}", flags.join(", "));

    let width = report.cases.iter().map(|c| c.id.len()).max().unwrap_or(0);
    // The revision column, when the gate grades revisions (MCP).
    let revisions = report.cases.iter().any(|c| c.revision.is_some());
    let mut section = "";
    for c in &report.cases {
        if c.section != section {
            section = &c.section;
            let _ = writeln!(out, "\n{section}");
        }
        let revision = if revisions {
            format!("{:<10}  ", c.revision.as_deref().unwrap_or("-"))
        } else {
            String::new()
        };
        let _ = write!(
            out,
            "  {:<5} {:<width$}  {revision}{:<6} {}",
            tag(c),
            c.id,
            c.level.name(),
            c.requirement
        );
        if c.outcome == Outcome::Skip
            && let Some(r) = &c.reason
        {
            let _ = write!(out, "  ({})", printable(r));
        }
        out.push('\n');
    }

    let failed: Vec<&CaseResult> = report
        .cases
        .iter()
        .filter(|c| c.counts_as_failed())
        .collect();
    if !failed.is_empty() || !report.baseline.unknown.is_empty() {
        out.push_str("\nFailures\n");
        for c in failed {
            detail(&mut out, c, true);
        }
        for id in &report.baseline.unknown {
            let _ = writeln!(
                out,
                "\n  STALE {id}\n        the baseline lists an id that names no case"
            );
        }
    }
    let warned: Vec<&CaseResult> = report
        .cases
        .iter()
        .filter(|c| c.outcome == Outcome::Warn)
        .collect();
    if !warned.is_empty() {
        out.push_str("\nWarnings (SHOULD; they fail under --strict)\n");
        for c in warned {
            detail(&mut out, c, false);
        }
    }
    if let Some(coverage) = &report.coverage {
        coverage_block(&mut out, coverage);
    }
    out.push('\n');
    let _ = writeln!(out, "{}", report.summary.detail_line());
    let _ = writeln!(out, "{}", report.summary.last_line());
    out
}

/// The coverage and, when applicable cases went ungraded, each reason with its count, its MUST
/// cases and what would grade them; the not-applicable count last.
fn coverage_block(out: &mut String, c: &Coverage) {
    let _ = writeln!(out, "\nCoverage\n  {}", c.line());
    for g in &c.ungraded {
        if !g.reason.applicable() {
            let _ = writeln!(out, "  {} not applicable (not counted)", g.count);
            continue;
        }
        let _ = writeln!(
            out,
            "  not graded, {}: {} ({} MUST): {}",
            g.reason.name(),
            g.count,
            g.must.len(),
            g.remedy
        );
        if !g.must.is_empty() {
            let _ = writeln!(out, "        MUST: {}", g.must.join(", "));
        }
    }
}

fn detail(out: &mut String, c: &CaseResult, transcript: bool) {
    let revision = c
        .revision
        .as_deref()
        .map_or_else(String::new, |r| format!(", revision {r}"));
    let _ = writeln!(
        out,
        "\n  {} {}  [{} {}{revision}]{}",
        tag(c),
        c.id,
        c.level.name(),
        c.requirement,
        if c.timed_out { "  (timed out)" } else { "" }
    );
    let _ = writeln!(out, "        {}", c.description);
    if c.stale_baseline {
        let _ = writeln!(
            out,
            "        listed in the baseline but passes: remove it from the baseline"
        );
        return;
    }
    if let Some(e) = &c.expected {
        let _ = writeln!(out, "        Expected: {}", printable(e));
    }
    if let Some(a) = &c.actual {
        let _ = writeln!(out, "        Actual:   {}", printable(a));
    }
    if let Some(r) = &c.reason {
        let _ = writeln!(out, "        Reason:   {}", printable(r));
    }
    if transcript && !c.transcript.is_empty() {
        let _ = writeln!(out, "        Transcript:");
        for e in &c.transcript {
            let _ = writeln!(
                out,
                "        {:>6} ms {:<6} {}",
                e.ms,
                e.dir,
                printable(&e.line)
            );
        }
    }
}

/// A text safe for a terminal: control characters (a server may write anything) become
/// U+FFFD, so they cannot move the cursor or hide text.
#[must_use]
pub fn printable(line: &str) -> String {
    line.chars()
        .map(|c| {
            if c.is_control() && c != '\t' {
                '\u{FFFD}'
            } else {
                c
            }
        })
        .collect()
}
