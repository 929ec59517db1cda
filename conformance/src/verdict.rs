//! Grading: a check's finding, the case's level under the profile, `--strict` and the baseline
//! make the outcome. Kept apart from running and reporting so it is tested on its own.

use std::collections::BTreeSet;

use crate::baseline::Baseline;
use crate::model::{Check, Level, Outcome, Profile};
use crate::report::{CaseResult, Summary};
use crate::schedule::Ran;

/// The outcome of a finding at `level`.
#[must_use]
pub fn outcome(check: &Check, level: Level, strict: bool) -> Outcome {
    match (check, level) {
        (Check::Pass, _) => Outcome::Pass,
        (Check::Violation { .. }, _) => Outcome::Fail,
        (Check::Note { .. }, _) | (Check::Fail { .. }, Level::Info) => Outcome::Info,
        (Check::Fail { .. }, Level::Should) if !strict => Outcome::Warn,
        (Check::Fail { .. }, _) => Outcome::Fail,
        (Check::Skip(_) | Check::Blocked { .. }, _) => Outcome::Skip,
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
    /// Wall time.
    pub duration: std::time::Duration,
    /// Whether the case hit its timeout.
    pub timed_out: bool,
    /// The case's transcript.
    pub transcript: &'a [crate::transcript::Entry],
}

/// Grades one finished case.
#[must_use]
pub fn grade(ran: &Ran, profile: Profile, strict: bool, baseline: &Baseline) -> CaseResult {
    grade_finding(
        CaseInfo {
            id: ran.case.id,
            requirement: ran.case.requirement,
            description: ran.case.description,
            peer: "server",
        },
        ran.case.levels.get(profile).unwrap_or(Level::Info),
        Finished {
            check: &ran.check,
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
        Check::Skip(r) | Check::Error(r) => (None, None, Some(r.clone())),
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
    CaseResult {
        id: info.id.to_owned(),
        section: info.id.split('/').next().unwrap_or(info.id).to_owned(),
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
        duration_ms: u64::try_from(ran.duration.as_millis()).unwrap_or(u64::MAX),
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
/// went stale, 2 the runner could not do every case (errors) and nothing failed.
#[must_use]
pub fn exit_code(summary: &Summary) -> u8 {
    if summary.failed > summary.errors {
        1
    } else if summary.errors > 0 {
        2
    } else {
        0
    }
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
    fn exit_codes_follow_failures_then_errors() {
        let mut s = Summary::default();
        assert_eq!(exit_code(&s), 0);
        s.errors = 1;
        s.failed = 1;
        assert_eq!(exit_code(&s), 2);
        s.failed = 2;
        assert_eq!(exit_code(&s), 1);
    }
}
