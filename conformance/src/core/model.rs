//! What a check returns (expected vs actual, skip, blocked, the runner's error), the RFC 2119
//! level a finding is graded at, and the graded outcome: kept apart from how cases are run or
//! reported.

use std::future::Future;
use std::pin::Pin;

use serde::Serialize;

/// How much a case matters (RFC 2119 wording of the requirement it checks).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum Level {
    /// A deviation fails the gate.
    #[serde(rename = "MUST")]
    Must,
    /// A deviation warns; it fails only under `--strict`.
    #[serde(rename = "SHOULD")]
    Should,
    /// Reported, never gating.
    #[serde(rename = "INFO")]
    Info,
}

impl Level {
    /// `MUST`, `SHOULD` or `INFO`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Level::Must => "MUST",
            Level::Should => "SHOULD",
            Level::Info => "INFO",
        }
    }
}

/// What a check found. `Err` of a check's `Result` is an early exit with one of these.
#[derive(Debug, Clone, PartialEq)]
pub enum Check {
    /// The requirement holds.
    Pass,
    /// The requirement does not hold: what was expected and what the server did.
    Fail {
        /// What the requirement asks for.
        expected: String,
        /// What the server did.
        actual: String,
    },
    /// A failure of a MUST of JSON-RPC or MCP the case saw beside its own rule (a response under
    /// another id than the request's): graded MUST whatever the case's level in the profile.
    Violation {
        /// What the requirement asks for.
        expected: String,
        /// What the server did.
        actual: String,
    },
    /// Informational whatever the level: the server made an allowed choice worth reporting
    /// (e.g. it answered another supported protocol version).
    Note {
        /// What a contract server would do.
        expected: String,
        /// What this one did.
        actual: String,
    },
    /// The case could not apply (the server lacks the capability, a needed tool is missing).
    Skip(String),
    /// The case applies but could not be graded for a reason outside the peer's conformance
    /// (no tool was safe to call, the agent needs an account): reported as `skip` with its
    /// [`Gap`], and counted against the coverage (`--min-coverage`).
    Ungraded {
        /// Why it could not be graded.
        gap: Gap,
        /// The reason, in words.
        reason: String,
    },
    /// The runner itself could not do the case (spawn failed, internal error): JUnit `<error>`.
    Error(String),
    /// The server does not provide what the case needs, and case `by` grades that defect (one
    /// defect, one verdict): reported as `skip` with `blocked_by`, as long as `by` ran and
    /// failed; otherwise the case is graded by `fallback` (the failure it would have been).
    Blocked {
        /// The case that grades the missing precondition.
        by: &'static str,
        /// The finding when `by` did not fail in this run.
        fallback: Box<Check>,
    },
}

impl Check {
    /// A failure.
    pub fn fail(expected: impl Into<String>, actual: impl Into<String>) -> Self {
        Check::Fail {
            expected: expected.into(),
            actual: actual.into(),
        }
    }

    /// A note (outcome `info`).
    pub fn note(expected: impl Into<String>, actual: impl Into<String>) -> Self {
        Check::Note {
            expected: expected.into(),
            actual: actual.into(),
        }
    }

    /// A skip with its reason.
    pub fn skip(reason: impl Into<String>) -> Self {
        Check::Skip(reason.into())
    }

    /// An applicable case left ungraded for `gap`, with its reason.
    pub fn ungraded(gap: Gap, reason: impl Into<String>) -> Self {
        Check::Ungraded {
            gap,
            reason: reason.into(),
        }
    }

    /// Blocked by case `by`, else graded as `fallback`.
    #[must_use]
    pub fn blocked(by: &'static str, fallback: Check) -> Self {
        Check::Blocked {
            by,
            fallback: Box::new(fallback),
        }
    }

    /// Whether this finding is a deviation (a failure before levels apply).
    #[must_use]
    pub fn is_fail(&self) -> bool {
        matches!(self, Check::Fail { .. } | Check::Violation { .. })
    }
}

/// A check's result: `Ok` and `Err` both carry the final [`Check`]; `Err` lets `?` end a case early.
pub type CheckResult = Result<Check, Check>;

/// The boxed future a check function returns.
pub type CheckFuture = Pin<Box<dyn Future<Output = CheckResult> + Send>>;

/// Why a case was not graded (a `skip` or an `error`): the groups of the coverage summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Gap {
    /// No listed tool was safe to call: outside the provider profile the runner calls only
    /// tools annotated `readOnlyHint: true` (`--allow-tool-calls` would grade the case).
    NoSafeTool,
    /// The agent needs an account: it asked for authentication before a session.
    Account,
    /// RUNNER-12: the peer's turns never did what the case grades (a tool call, a permission request, an fs
    /// or terminal request, a turn long enough to cancel): an applicable rule left ungraded, not
    /// a capability it lacks.
    NotExercised,
    /// Another case's failure removed the precondition (`blocked_by`).
    Blocked,
    /// The runner could not do the case (`error`).
    RunnerError,
    /// The case does not apply to this peer (a capability it does not declare, an option not
    /// given): not counted in the coverage.
    NotApplicable,
}

impl Gap {
    /// The kebab-case name used in reports.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Gap::NoSafeTool => "no-safe-tool",
            Gap::Account => "account",
            Gap::NotExercised => "not-exercised",
            Gap::Blocked => "blocked",
            Gap::RunnerError => "runner-error",
            Gap::NotApplicable => "not-applicable",
        }
    }

    /// Whether the case counts among the applicable ones (every gap but `not-applicable`).
    #[must_use]
    pub fn applicable(self) -> bool {
        self != Gap::NotApplicable
    }
}

/// The graded outcome of a case (after level, `--strict` and baseline).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// The requirement holds.
    Pass,
    /// A required case failed (MUST, or SHOULD under `--strict`), or timed out.
    Fail,
    /// A SHOULD deviation without `--strict`.
    Warn,
    /// Informational.
    Info,
    /// Not applicable, with a reason.
    Skip,
    /// The runner could not do the case.
    Error,
}

impl Outcome {
    /// The lowercase name used in reports.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Fail => "fail",
            Outcome::Warn => "warn",
            Outcome::Info => "info",
            Outcome::Skip => "skip",
            Outcome::Error => "error",
        }
    }
}
