//! The report model and its three writers: [`pretty`] for people, [`json`] for machines (a
//! versioned schema, `docs/conformance-report.schema.json`), [`junit`] for CI dashboards.
//! Writers are pure functions of a [`Report`], golden-tested with synthetic reports.

pub mod json;
pub mod junit;
pub mod pretty;

use serde::Serialize;
use serde_json::Value;

use crate::core::coverage::Coverage;
use crate::core::model::{Gap, Level, Outcome};
use crate::core::transcript::Entry;

/// The version of the JSON report's schema. Bumped on any incompatible change; additions of
/// optional fields keep it.
pub const FORMAT_VERSION: u32 = 1;

/// What a report needs of a profile type: MCP's (`crate::mcp::profile::Profile`) and ACP's own
/// (`crate::acp::AcpProfile`) share every writer through it.
pub trait ProfileName: Serialize + Copy {
    /// The lowercase name shown in reports.
    fn name(&self) -> &'static str;
    /// The protocol tag of the JSON report (`"acp"`), absent for MCP (its schema predates it).
    fn protocol(&self) -> Option<&'static str> {
        None
    }
    /// What the peer under test is called in the pretty report (`server`, `agent`, `client`).
    fn peer(&self) -> &'static str {
        "server"
    }
    /// The name of the peer's self-description (`serverInfo`, `agentInfo`).
    fn info_key(&self) -> &'static str {
        "serverInfo"
    }
}

/// A whole run (generic over the gate's profile type).
#[derive(Debug, Clone, Serialize)]
pub struct Report<P> {
    /// [`FORMAT_VERSION`].
    pub format_version: u32,
    /// Who produced the report.
    pub runner: RunnerInfo,
    /// What was checked.
    pub server: ServerReport,
    /// The profile in force.
    pub profile: P,
    /// Whether SHOULD deviations failed (`--strict`).
    pub strict: bool,
    /// Whether fake-claude drove the server (`--drive-fake`).
    pub drive_fake: bool,
    /// The baseline in force.
    pub baseline: BaselineReport,
    /// Every case run, in catalogue order.
    pub cases: Vec<CaseResult>,
    /// Counts.
    pub summary: Summary,
    /// How much of what applies was graded, what was not and why, and whether that meets
    /// `--min-coverage` (absent when no case ran: a runner error before any case).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coverage: Option<Coverage>,
    /// The runner's exit status (130: interrupted, with the verdicts reached so far).
    pub exit_code: u8,
    /// The run's deadlines (GATE-LOAD-1): `--timeout-ms`, the start-up discovery measured and
    /// the base case timeout the cases used (absent when no discovery ran: client mode, a
    /// runner error before it, the writers' golden files).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deadlines: Option<crate::core::deadline::Deadlines>,
    /// Wall time of the run, from the start to the report (absent in reports made without a
    /// run, such as the writers' golden files).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// Why the runner could not do its job (exit status 2 before any case ran: bad usage after
    /// parsing, a server that would not start or initialize), or why the run ended early
    /// (exit status 130: interrupted, `cases` holding the verdicts reached). Absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The runner's identity.
#[derive(Debug, Clone, Serialize)]
pub struct RunnerInfo {
    /// `mcp-conformance`.
    pub name: String,
    /// The runner's version.
    pub version: String,
}

/// The server under test.
#[derive(Debug, Clone, Serialize)]
pub struct ServerReport {
    /// The command line, as words.
    pub command: Vec<String>,
    /// Whether it is the embedded default (reference adapter wired to fake-claude and
    /// fake-cursor-agent).
    pub builtin: bool,
    /// `serverInfo` from `initialize`.
    #[serde(rename = "serverInfo")]
    pub server_info: Option<Value>,
    /// The negotiated `protocolVersion` of the discovery session.
    #[serde(rename = "protocolVersion")]
    pub protocol_version: Option<String>,
}

/// The baseline in force.
#[derive(Debug, Clone, Default, Serialize)]
pub struct BaselineReport {
    /// The file, when one was given.
    pub file: Option<String>,
    /// How many ids it lists.
    pub listed: usize,
    /// Listed ids that name no case of the catalogue (each counts as a failure).
    pub unknown: Vec<String>,
}

/// One graded case.
#[derive(Debug, Clone, Serialize)]
pub struct CaseResult {
    /// Stable slug id.
    pub id: String,
    /// First segment of the id.
    pub section: String,
    /// The protocol revision the case was graded on (MCP: a revision's date), absent where the
    /// gate has none (ACP).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revision: Option<String>,
    /// Contract id or MCP spec section.
    pub requirement: String,
    /// Level under the profile.
    pub level: Level,
    /// Graded outcome.
    pub outcome: Outcome,
    /// A failure the baseline expects (not counted as failed).
    pub baselined: bool,
    /// Listed in the baseline but passed: counted as failed (the baseline is stale).
    pub stale_baseline: bool,
    /// What the case checks.
    pub description: String,
    /// What the requirement asks for (fail, warn, info).
    pub expected: Option<String>,
    /// What the server did (fail, warn, info).
    pub actual: Option<String>,
    /// Why the case was skipped or could not run (skip, error).
    pub reason: Option<String>,
    /// The case whose failure removed this case's precondition (a `skip`): one defect, one
    /// verdict. Absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blocked_by: Option<String>,
    /// Why the case was not graded (a `skip` or an `error`): the group it counts in under the
    /// report's `coverage`. Absent on graded cases.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ungraded: Option<Gap>,
    /// Wall time of the case.
    pub duration_ms: u64,
    /// When the case started (for the JUnit suites' wall time; not in the JSON report).
    #[serde(skip)]
    pub started_at: Option<std::time::Instant>,
    /// Whether the case hit its timeout.
    pub timed_out: bool,
    /// The wire transcript of the case.
    pub transcript: Vec<Entry>,
}

impl CaseResult {
    /// Whether the case counts against the gate (an unbaselined failure, an error, or a stale
    /// baseline entry).
    #[must_use]
    pub fn counts_as_failed(&self) -> bool {
        (self.outcome == Outcome::Fail && !self.baselined)
            || self.outcome == Outcome::Error
            || self.stale_baseline
    }
}

/// Outcome counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Passed (stale baseline entries excluded).
    pub passed: usize,
    /// Counted as failed: unbaselined failures + errors + stale baseline entries.
    pub failed: usize,
    /// SHOULD deviations without `--strict`.
    pub warned: usize,
    /// Skipped.
    pub skipped: usize,
    /// Informational.
    pub info: usize,
    /// Failures the baseline expects.
    pub baselined: usize,
    /// Stale baseline entries (listed cases that passed, unknown ids); included in `failed`.
    pub stale: usize,
    /// Cases the runner could not do; included in `failed`.
    pub errors: usize,
}

impl Summary {
    /// The last line of every pretty report: `N passed, N failed, N skipped`.
    #[must_use]
    pub fn last_line(&self) -> String {
        format!(
            "{} passed, {} failed, {} skipped",
            self.passed, self.failed, self.skipped
        )
    }

    /// The line before it: warnings, informational and baselined counts.
    #[must_use]
    pub fn detail_line(&self) -> String {
        format!(
            "{} warned, {} info, {} baselined, {} stale baseline, {} errors",
            self.warned, self.info, self.baselined, self.stale, self.errors
        )
    }
}
