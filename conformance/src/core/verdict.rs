//! Grading and the one report path of both gates: a check's finding, the case's level under the
//! profile, `--strict` and the baseline make the outcome ([`grade`]); the graded cases, the
//! summary and the exit status make the [`Report`] ([`assemble`]). Kept apart from running and
//! from the writers so it is tested on its own.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::core::baseline::Baseline;
use crate::core::case::Gate;
use crate::core::coverage::{self, Coverage};
use crate::core::model::{Check, Gap, Level, Outcome};
use crate::core::report::{
    self, BaselineReport, CaseResult, ProfileName, Report, RunnerInfo, ServerReport, Summary,
};
use crate::core::schedule::Ran;

/// The outcome of a finding at `level`.
#[must_use]
pub fn outcome(check: &Check, level: Level, strict: bool) -> Outcome {
    match (check, level) {
        (Check::Pass, _) => Outcome::Pass,
        (Check::Violation { .. }, _) => Outcome::Fail,
        (Check::Note { .. }, _) | (Check::Fail { .. }, Level::Info) => Outcome::Info,
        (Check::Fail { .. }, Level::Should) if !strict => Outcome::Warn,
        (Check::Fail { .. }, _) => Outcome::Fail,
        (Check::Skip(_) | Check::Ungraded { .. } | Check::Blocked { .. }, _) => Outcome::Skip,
        (Check::Error(_), _) => Outcome::Error,
    }
}

/// What grading needs to know of a case, whatever the protocol's catalogue looks like.
#[derive(Debug, Clone, Copy)]
pub struct CaseInfo<'a> {
    /// Stable slug id.
    pub id: &'a str,
    /// The rule the case checks (contract id, spec or schema section).
    pub requirement: &'a str,
    /// One line saying what is checked.
    pub description: &'a str,
    /// What the peer under test is called in reasons (`server`, `agent`, `client`).
    pub peer: &'a str,
}

/// What a finished case produced, before grading (shared by both protocols' schedulers).
#[derive(Debug, Clone, Copy)]
pub struct Finished<'a> {
    /// The check's finding.
    pub check: &'a Check,
    /// When it started, when known.
    pub started: Option<std::time::Instant>,
    /// Wall time.
    pub duration: std::time::Duration,
    /// Whether the case hit its timeout.
    pub timed_out: bool,
    /// The case's transcript.
    pub transcript: &'a [crate::core::transcript::Entry],
}

/// Grades one finished case of any gate under `profile`.
#[must_use]
pub fn grade<G: Gate>(
    ran: &Ran<G>,
    profile: G::Profile,
    strict: bool,
    baseline: &Baseline,
) -> CaseResult {
    grade_finding(
        CaseInfo {
            id: ran.case.id,
            requirement: ran.case.requirement,
            description: ran.case.description,
            peer: profile.peer(),
        },
        ran.case.level(profile).unwrap_or(Level::Info),
        Finished {
            check: &ran.check,
            started: Some(ran.started),
            duration: ran.duration,
            timed_out: ran.timed_out,
            transcript: &ran.transcript,
        },
        strict,
        baseline,
    )
}

/// Grades a finding of case `info` at `level` (a [`Check::Violation`] is MUST whatever the
/// level): the one grading rule both protocols use.
#[must_use]
pub fn grade_finding(
    info: CaseInfo<'_>,
    level: Level,
    ran: Finished<'_>,
    strict: bool,
    baseline: &Baseline,
) -> CaseResult {
    let level = match ran.check {
        Check::Violation { .. } => Level::Must,
        _ => level,
    };
    let outcome = outcome(ran.check, level, strict);
    let listed = baseline.lists(info.id);
    let (expected, actual, reason) = match ran.check {
        Check::Fail { expected, actual }
        | Check::Note { expected, actual }
        | Check::Violation { expected, actual } => {
            (Some(expected.clone()), Some(actual.clone()), None)
        }
        Check::Skip(r) | Check::Error(r) | Check::Ungraded { reason: r, .. } => {
            (None, None, Some(r.clone()))
        }
        Check::Blocked { by, fallback } => {
            let what = match &**fallback {
                Check::Fail { expected, actual } => format!(": expected {expected}, got {actual}"),
                _ => String::new(),
            };
            (
                None,
                None,
                Some(format!(
                    "blocked by {by}, which failed: the {} does not provide what this case \
                     needs{what}",
                    info.peer
                )),
            )
        }
        Check::Pass => (None, None, None),
    };
    let blocked_by = match ran.check {
        Check::Blocked { by, .. } => Some((*by).to_owned()),
        _ => None,
    };
    let ungraded = match ran.check {
        Check::Skip(_) => Some(Gap::NotApplicable),
        Check::Ungraded { gap, .. } => Some(*gap),
        Check::Blocked { .. } => Some(Gap::Blocked),
        Check::Error(_) => Some(Gap::RunnerError),
        Check::Pass | Check::Fail { .. } | Check::Violation { .. } | Check::Note { .. } => None,
    };
    CaseResult {
        id: info.id.to_owned(),
        section: info.id.split('/').next().unwrap_or(info.id).to_owned(),
        revision: None,
        requirement: info.requirement.to_owned(),
        level,
        outcome,
        baselined: listed && outcome == Outcome::Fail,
        stale_baseline: listed && outcome == Outcome::Pass,
        description: info.description.to_owned(),
        expected,
        actual,
        reason,
        blocked_by,
        ungraded,
        duration_ms: u64::try_from(ran.duration.as_millis()).unwrap_or(u64::MAX),
        started_at: ran.started,
        timed_out: ran.timed_out,
        transcript: ran.transcript.to_vec(),
    }
}

/// Baseline ids that name no case of the whole catalogue: a typo or a removed case, reported as
/// stale so the baseline stays true.
#[must_use]
pub fn unknown_baseline_ids(baseline: &Baseline, catalogue_ids: &BTreeSet<&str>) -> Vec<String> {
    baseline
        .ids
        .iter()
        .filter(|id| !catalogue_ids.contains(id.as_str()))
        .cloned()
        .collect()
}

/// Counts outcomes. `failed` = unbaselined failures + runner errors + stale baseline entries
/// (listed cases that pass, and listed ids that name no case).
#[must_use]
pub fn summarize(cases: &[CaseResult], unknown_baseline: usize) -> Summary {
    let mut s = Summary::default();
    for c in cases {
        match c.outcome {
            Outcome::Pass if c.stale_baseline => s.stale += 1,
            Outcome::Pass => s.passed += 1,
            Outcome::Fail if c.baselined => s.baselined += 1,
            Outcome::Fail => s.failed += 1,
            Outcome::Warn => s.warned += 1,
            Outcome::Info => s.info += 1,
            Outcome::Skip => s.skipped += 1,
            Outcome::Error => s.errors += 1,
        }
    }
    s.stale += unknown_baseline;
    s.failed += s.stale + s.errors;
    s
}

/// The exit status: 0 conformant (after the baseline), 1 a required case failed or the baseline
/// went stale, 2 the runner could not grade every case (errors), whatever else failed: a CI
/// must not read a run with ungraded cases as a verdict ([`exit_note`] says both on stderr).
#[must_use]
pub fn exit_code(summary: &Summary) -> u8 {
    if summary.errors > 0 {
        2
    } else if summary.failed > 0 {
        1
    } else {
        0
    }
}

/// The exit status of a run with `summary` and `coverage`: [`exit_code`], and at least 1 when
/// the coverage misses `--min-coverage` (a gate that graded too little failed).
#[must_use]
pub fn exit_code_with(summary: &Summary, coverage: &Coverage) -> u8 {
    match exit_code(summary) {
        0 if !coverage.met => 1,
        code => code,
    }
}

/// The coverage of graded `cases` against `min_percent`.
#[must_use]
pub fn coverage_of(cases: &[CaseResult], min_percent: Option<f64>) -> Coverage {
    coverage::measure(
        cases.iter().map(|c| coverage::Seen {
            id: &c.id,
            level: c.level,
            outcome: c.outcome,
            gap: c.ungraded,
        }),
        min_percent,
    )
}

/// What stderr says when the exit status is 2 for runner errors: how many cases could not be
/// graded and, when some did fail, that too (the status alone would hide it).
#[must_use]
pub fn exit_note(runner: &str, summary: &Summary) -> Option<String> {
    if summary.errors == 0 {
        return None;
    }
    let real = summary.failed - summary.errors;
    let failed = if real > 0 {
        format!("; {real} failed besides (see the report), a verdict once every case is graded")
    } else {
        String::new()
    };
    Some(format!(
        "{runner}: exit 2: {} case(s) could not be graded (runner errors){failed}",
        summary.errors
    ))
}

/// What a report says of the run besides its cases.
#[derive(Debug, Clone)]
pub struct RunInfo<P> {
    /// The runner's name (`mcp-conformance`, `acp-conformance`).
    pub runner: &'static str,
    /// The profile in force.
    pub profile: P,
    /// The command under test, as words (empty: the built-in target).
    pub command: Vec<String>,
    /// Whether the built-in target was checked.
    pub builtin: bool,
    /// The peer's self-description (`serverInfo`, `agentInfo`), when it gave one.
    pub peer_info: Option<Value>,
    /// The protocol version negotiated, as text.
    pub protocol_version: Option<String>,
    /// `--strict`.
    pub strict: bool,
    /// Whether fake-claude drove the server (`--drive-fake`).
    pub drive_fake: bool,
    /// `--baseline FILE`.
    pub baseline_file: Option<String>,
    /// `--min-coverage PCT`.
    pub min_coverage: Option<f64>,
    /// When the run started (the report's wall time is measured from it).
    pub started: std::time::Instant,
    /// The run's deadlines, once discovery measured the peer's start-up (GATE-LOAD-1).
    pub deadlines: Option<crate::core::deadline::Deadlines>,
}

impl<P: ProfileName> RunInfo<P> {
    fn shell(self, listed: usize, unknown: Vec<String>) -> Report<P> {
        Report {
            format_version: report::FORMAT_VERSION,
            runner: RunnerInfo {
                name: self.runner.into(),
                version: env!("CARGO_PKG_VERSION").into(),
            },
            server: ServerReport {
                command: self.command,
                builtin: self.builtin,
                server_info: self.peer_info,
                protocol_version: self.protocol_version,
            },
            profile: self.profile,
            strict: self.strict,
            drive_fake: self.drive_fake,
            baseline: BaselineReport {
                file: self.baseline_file,
                listed,
                unknown,
            },
            cases: Vec::new(),
            summary: Summary::default(),
            coverage: None,
            exit_code: 0,
            deadlines: self.deadlines,
            duration_ms: Some(
                u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX),
            ),
            error: None,
        }
    }
}

/// The whole report of graded cases: summarised, with its coverage and the exit status (a
/// coverage below `--min-coverage` fails the gate). `catalogue_ids` are
/// every id the gate knows (baseline ids naming none of them are stale).
#[must_use]
pub fn assemble<P: ProfileName>(
    info: RunInfo<P>,
    cases: Vec<CaseResult>,
    baseline: &Baseline,
    catalogue_ids: &BTreeSet<&str>,
) -> Report<P> {
    let unknown = unknown_baseline_ids(baseline, catalogue_ids);
    let summary = summarize(&cases, unknown.len());
    let coverage = coverage_of(&cases, info.min_coverage);
    let mut report = info.shell(baseline.ids.len(), unknown);
    report.cases = cases;
    report.summary = summary;
    report.exit_code = exit_code_with(&summary, &coverage);
    report.coverage = Some(coverage);
    report
}

/// The report of a run interrupted (SIGINT, SIGTERM) with `cases` graded so far: exit status 130,
/// `error` saying how far it got, so a CI still gets its JUnit and JSON files.
#[must_use]
pub fn interrupted_report<P: ProfileName>(
    info: RunInfo<P>,
    cases: Vec<CaseResult>,
    total: usize,
    baseline: &Baseline,
    catalogue_ids: &BTreeSet<&str>,
) -> Report<P> {
    let done = cases.len();
    let mut report = assemble(info, cases, baseline, catalogue_ids);
    report.exit_code = 130;
    report.error = Some(format!(
        "interrupted after {done} of {total} cases: the report holds the verdicts reached so far"
    ));
    report
}

/// The report of a run that could not do its job (exit 2 before any case ran), for JSON and
/// JUnit readers: it says why there is no verdict.
#[must_use]
pub fn error_report<P: ProfileName>(info: RunInfo<P>, error: &str) -> Report<P> {
    let mut report = info.shell(0, Vec::new());
    report.exit_code = 2;
    report.error = Some(error.to_owned());
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn should_warns_unless_strict_and_info_never_fails() {
        let f = Check::fail("a", "b");
        assert_eq!(outcome(&f, Level::Should, false), Outcome::Warn);
        assert_eq!(outcome(&f, Level::Should, true), Outcome::Fail);
        assert_eq!(outcome(&f, Level::Must, false), Outcome::Fail);
        assert_eq!(outcome(&f, Level::Info, true), Outcome::Info);
        assert_eq!(
            outcome(&Check::note("a", "b"), Level::Must, true),
            Outcome::Info
        );
    }

    #[test]
    fn runner_errors_exit_2_even_beside_failures_and_stderr_says_both() {
        let mut s = Summary::default();
        assert_eq!(exit_code(&s), 0);
        assert_eq!(exit_note("r", &s), None);
        s.failed = 1;
        assert_eq!(exit_code(&s), 1);
        assert_eq!(exit_note("r", &s), None);
        s.errors = 1;
        s.failed = 1;
        assert_eq!(exit_code(&s), 2);
        let note = exit_note("r", &s).expect("a note");
        assert!(note.contains("1 case(s) could not be graded") && !note.contains("failed"));
        // A real failure beside a runner error: still 2, and stderr says both.
        s.failed = 3;
        assert_eq!(exit_code(&s), 2);
        let note = exit_note("r", &s).expect("a note");
        assert!(note.contains("2 failed besides"), "{note}");
    }
}
