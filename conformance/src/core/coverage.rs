//! Coverage as part of the verdict: how many of a run's applicable cases were graded, what was
//! not graded and why (grouped by [`Gap`], with the MUST rules among them), and whether that
//! meets `--min-coverage`. A gate that graded too little is a failed gate (exit 1), however
//! clean what it did grade.
//!
//! Coverage counts the cases that can gate: those at level MUST or SHOULD under the profile
//! (an INFO-level case never fails a gate, so it neither adds to nor takes from coverage). Of
//! those, a case is **graded** when its outcome is `pass`, `fail`, `warn` or `info` (a
//! baselined failure and a stale baseline entry included; `info` there is an allowed choice
//! the runner saw and judged): the runner looked at the peer's behaviour and reached a verdict
//! on the case's rule. A case is **applicable** unless it is a `skip` that does not apply to
//! the peer ([`Gap::NotApplicable`]: a capability it does not declare, an option not given).
//! Coverage is graded ÷ applicable, 100 % when nothing applies.

use serde::Serialize;

use crate::core::model::{Gap, Level, Outcome};

/// What coverage needs to know of a graded case (kept apart from the report model, which
/// holds a [`Coverage`]).
#[derive(Debug, Clone, Copy)]
pub struct Seen<'a> {
    /// The case id.
    pub id: &'a str,
    /// Its level under the profile.
    pub level: Level,
    /// Its outcome.
    pub outcome: Outcome,
    /// Why it was not graded, when the check said so.
    pub gap: Option<Gap>,
}

/// One reason cases went ungraded.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GapGroup {
    /// Why.
    pub reason: Gap,
    /// How many cases.
    pub count: usize,
    /// The MUST cases among them (ids, in report order).
    pub must: Vec<String>,
    /// Every case among them (ids, in report order).
    pub cases: Vec<String>,
    /// What would grade them, in words.
    pub remedy: String,
}

/// The coverage of a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Coverage {
    /// MUST and SHOULD cases that apply to the peer (every one but the not-applicable skips).
    pub applicable: usize,
    /// Applicable cases graded (pass, fail, warn, info).
    ///
    /// INFO-level cases are left out of both counts and of [`Coverage::ungraded`].
    pub graded: usize,
    /// graded ÷ applicable as a percentage, rounded down to one decimal (100 when nothing
    /// applies).
    pub percent: f64,
    /// `--min-coverage`, when given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_percent: Option<f64>,
    /// Whether the coverage meets `--min-coverage` (true without one).
    pub met: bool,
    /// The cases not graded, grouped by reason (not-applicable last, not counted).
    pub ungraded: Vec<GapGroup>,
}

/// What would grade the cases of `gap`, said to the person reading the report.
#[must_use]
pub fn remedy(gap: Gap) -> &'static str {
    match gap {
        Gap::NoSafeTool => {
            "no listed tool is annotated readOnlyHint: true, so the runner called none (it never \
             calls a tool that might act on a foreign server): --allow-tool-calls would grade \
             these (on a disposable instance)"
        }
        Gap::Account => {
            "the agent needs an account (it asked for authentication before a session): run it \
             with credentials to grade these"
        }
        Gap::NotExercised => {
            "the peer's turns never did what these grade (a tool call, a permission request, an \
             fs or terminal request, a turn long enough to cancel), so they went ungraded: an \
             agent that does so on the gate's prompts (with its model and credentials) grades \
             them"
        }
        Gap::Blocked => {
            "a precondition failed: the case named in blocked_by failed, and fixing it grades \
             these"
        }
        Gap::RunnerError => "the runner could not do these (see each case's reason)",
        Gap::NotApplicable => {
            "these do not apply to this peer (a capability it does not declare, an option not \
             given); not counted in the coverage"
        }
    }
}

/// Whether an outcome is a verdict on the case's rule.
fn graded(outcome: Outcome) -> bool {
    matches!(
        outcome,
        Outcome::Pass | Outcome::Fail | Outcome::Warn | Outcome::Info
    )
}

/// The coverage of `cases` against `min_percent` (`--min-coverage`).
#[must_use]
pub fn measure<'a>(
    cases: impl IntoIterator<Item = Seen<'a>>,
    min_percent: Option<f64>,
) -> Coverage {
    let mut groups: Vec<GapGroup> = Vec::new();
    let mut applicable: usize = 0;
    let mut done: usize = 0;
    for c in cases.into_iter().filter(|c| c.level != Level::Info) {
        if graded(c.outcome) {
            applicable += 1;
            done += 1;
            continue;
        }
        let gap = c.gap.unwrap_or(match c.outcome {
            Outcome::Error => Gap::RunnerError,
            _ => Gap::NotApplicable,
        });
        if gap.applicable() {
            applicable += 1;
        }
        if !groups.iter().any(|g| g.reason == gap) {
            groups.push(GapGroup {
                reason: gap,
                count: 0,
                must: Vec::new(),
                cases: Vec::new(),
                remedy: remedy(gap).to_owned(),
            });
        }
        let Some(group) = groups.iter_mut().find(|g| g.reason == gap) else {
            continue;
        };
        group.count += 1;
        group.cases.push(c.id.to_owned());
        if c.level == Level::Must {
            group.must.push(c.id.to_owned());
        }
    }
    groups.sort_by_key(|g| g.reason);
    // The bound is compared unrounded (graded × 100 ≥ PCT × applicable); the percentage shown
    // is rounded down, so it never reads as meeting a bound the run missed.
    #[allow(clippy::cast_precision_loss)]
    let percent = (done * 1000)
        .checked_div(applicable)
        .map_or(100.0, |tenths| tenths as f64 / 10.0);
    #[allow(clippy::cast_precision_loss)]
    let met = min_percent.is_none_or(|min| done as f64 * 100.0 >= min * applicable as f64);
    Coverage {
        applicable,
        graded: done,
        percent,
        min_percent,
        met,
        ungraded: groups,
    }
}

/// `--min-coverage PCT`: a number from 0 to 100 (decimals allowed).
pub fn parse_percent(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(p) if p.is_finite() && (0.0..=100.0).contains(&p) => Ok(p),
        _ => Err(format!(
            "{text:?} is not a percentage from 0 to 100 (e.g. 90): the share of applicable \
             cases that must be graded"
        )),
    }
}

impl Coverage {
    /// How many applicable cases went ungraded.
    #[must_use]
    pub fn missing(&self) -> usize {
        self.applicable - self.graded
    }

    /// One line: `coverage: N of M applicable MUST and SHOULD cases graded (P%)`, with the
    /// bound when given.
    #[must_use]
    pub fn line(&self) -> String {
        let bound = match self.min_percent {
            Some(min) if self.met => format!(", meets --min-coverage {}", show(min)),
            Some(min) => format!(", below --min-coverage {}", show(min)),
            None => String::new(),
        };
        format!(
            "coverage: {} of {} applicable MUST and SHOULD cases graded ({}%){bound}",
            self.graded,
            self.applicable,
            show(self.percent)
        )
    }

    /// What stderr says when the coverage misses `--min-coverage` (the exit status is then at
    /// least 1): the coverage and the reasons, so a CI log says why a clean run failed.
    #[must_use]
    pub fn shortfall_note(&self, runner: &str) -> Option<String> {
        if self.met {
            return None;
        }
        let why: Vec<String> = self
            .ungraded
            .iter()
            .filter(|g| g.reason.applicable())
            .map(|g| format!("{} {} ({} MUST)", g.count, g.reason.name(), g.must.len()))
            .collect();
        Some(format!(
            "{runner}: gate failed: {}; not graded: {}",
            self.line(),
            why.join(", ")
        ))
    }
}

/// A percentage as people write it: `90`, `92.5`.
#[must_use]
pub fn show(p: f64) -> String {
    let s = format!("{p:.1}");
    s.strip_suffix(".0").map_or(s.clone(), str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(id: &str, level: Level, outcome: Outcome, gap: Option<Gap>) -> Seen<'_> {
        Seen {
            id,
            level,
            outcome,
            gap,
        }
    }

    #[test]
    fn graded_counts_pass_fail_warn_info_over_every_case_that_applies() {
        let cases = [
            case("a/pass", Level::Must, Outcome::Pass, None),
            case("a/fail", Level::Must, Outcome::Fail, None),
            case("a/warn", Level::Should, Outcome::Warn, None),
            case("a/info", Level::Should, Outcome::Info, None),
            // INFO-level cases are outside coverage, graded or not.
            case("a/info-level", Level::Info, Outcome::Info, None),
            case(
                "a/info-skip",
                Level::Info,
                Outcome::Skip,
                Some(Gap::NoSafeTool),
            ),
            case("a/na", Level::Must, Outcome::Skip, Some(Gap::NotApplicable)),
            case("a/tool", Level::Must, Outcome::Skip, Some(Gap::NoSafeTool)),
            case(
                "a/tool2",
                Level::Should,
                Outcome::Skip,
                Some(Gap::NoSafeTool),
            ),
            case("a/blocked", Level::Must, Outcome::Skip, Some(Gap::Blocked)),
            case("a/error", Level::Must, Outcome::Error, None),
        ];
        let c = measure(cases, Some(50.0));
        assert_eq!((c.applicable, c.graded), (8, 4));
        assert_eq!(c.percent, 50.0);
        assert!(c.met);
        assert!(!measure(cases, Some(50.1)).met);
        let reasons: Vec<Gap> = c.ungraded.iter().map(|g| g.reason).collect();
        assert_eq!(
            reasons,
            [
                Gap::NoSafeTool,
                Gap::Blocked,
                Gap::RunnerError,
                Gap::NotApplicable
            ]
        );
        assert_eq!(c.ungraded[0].must, ["a/tool"]);
        assert_eq!(c.ungraded[0].cases, ["a/tool", "a/tool2"]);
        assert!(c.ungraded[0].remedy.contains("--allow-tool-calls"));
        assert_eq!(c.missing(), 4);
        assert!(
            c.line()
                .contains("4 of 8 applicable MUST and SHOULD cases graded (50%)"),
            "{}",
            c.line()
        );
    }

    #[test]
    fn nothing_applicable_is_full_coverage_and_rounding_never_flatters() {
        let na = [case("a/na", Level::Must, Outcome::Skip, None)];
        let c = measure(na, Some(100.0));
        assert_eq!((c.applicable, c.percent, c.met), (0, 100.0, true));
        // 2 of 3: 66.666… shown as 66.6, and a bound of 66.7 is missed.
        let cases = [
            case("a/1", Level::Must, Outcome::Pass, None),
            case("a/2", Level::Must, Outcome::Pass, None),
            case("a/3", Level::Must, Outcome::Skip, Some(Gap::Account)),
        ];
        let c = measure(cases, Some(66.7));
        assert_eq!(c.percent, 66.6);
        assert!(!c.met);
        let note = c.shortfall_note("r").expect("a note");
        assert!(note.contains("below --min-coverage 66.7"), "{note}");
        assert!(note.contains("1 account (1 MUST)"), "{note}");
        assert_eq!(measure(cases, None).shortfall_note("r"), None);
    }

    #[test]
    fn a_percentage_is_a_number_from_0_to_100() {
        assert_eq!(parse_percent("90"), Ok(90.0));
        assert_eq!(parse_percent("92.5"), Ok(92.5));
        assert_eq!(parse_percent("0"), Ok(0.0));
        assert_eq!(parse_percent("100"), Ok(100.0));
        for bad in ["abc", "-1", "101", "NaN", "inf", ""] {
            let e = parse_percent(bad).expect_err(bad);
            assert!(e.contains("percentage from 0 to 100"), "{e}");
        }
    }
}
