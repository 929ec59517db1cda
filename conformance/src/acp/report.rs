//! From finished ACP cases (agent or client mode) to the shared report model: graded by the
//! one grading rule ([`crate::verdict::grade_finding`]), baseline and exit status as for MCP,
//! tagged `protocol: "acp"` in JSON by [`super::AcpProfile`].

use std::collections::BTreeSet;

use serde_json::Value;

use super::{AcpProfile, Ran};
use crate::baseline::Baseline;
use crate::report::{self, BaselineReport, CaseResult, Report, RunnerInfo, ServerReport};
use crate::verdict::{self, CaseInfo, Finished};

/// Grades one finished case of `profile`'s mode (agent mode's transcript and findings are in
/// ACP's words already: its client was started with [`crate::transcript::Peer::Agent`]).
#[must_use]
pub fn grade(ran: &Ran, profile: AcpProfile, strict: bool, baseline: &Baseline) -> CaseResult {
    use crate::report::ProfileName as _;
    verdict::grade_finding(
        CaseInfo {
            id: ran.id,
            requirement: ran.requirement,
            description: ran.description,
            peer: profile.peer(),
        },
        ran.level,
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

/// What the report says of the peer and the run besides the cases.
#[derive(Debug, Clone)]
pub struct RunInfo {
    /// Agent or client mode.
    pub profile: AcpProfile,
    /// The command under test, as words.
    pub command: Vec<String>,
    /// `agentInfo` (or `clientInfo`) the peer gave, when it did.
    pub peer_info: Option<Value>,
    /// The protocol version negotiated, as text.
    pub protocol_version: Option<String>,
    /// `--strict`.
    pub strict: bool,
    /// `--baseline FILE`.
    pub baseline_file: Option<String>,
}

/// The whole report of a run: `ran` graded, summarised, with the exit status. `catalogue_ids`
/// are every id the mode knows (baseline ids naming none of them are stale).
#[must_use]
pub fn build(
    info: RunInfo,
    ran: &[Ran],
    baseline: &Baseline,
    catalogue_ids: &BTreeSet<&str>,
) -> Report<AcpProfile> {
    let cases: Vec<CaseResult> = ran
        .iter()
        .map(|r| grade(r, info.profile, info.strict, baseline))
        .collect();
    assemble(info, cases, baseline, catalogue_ids)
}

/// The whole report of cases graded already ([`grade`]): summarised, with the exit status.
#[must_use]
pub fn assemble(
    info: RunInfo,
    cases: Vec<CaseResult>,
    baseline: &Baseline,
    catalogue_ids: &BTreeSet<&str>,
) -> Report<AcpProfile> {
    let unknown = verdict::unknown_baseline_ids(baseline, catalogue_ids);
    let summary = verdict::summarize(&cases, unknown.len());
    Report {
        format_version: report::FORMAT_VERSION,
        runner: RunnerInfo {
            name: "acp-conformance".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        },
        server: ServerReport {
            command: info.command,
            builtin: false,
            server_info: info.peer_info,
            protocol_version: info.protocol_version,
        },
        profile: info.profile,
        strict: info.strict,
        drive_fake: false,
        baseline: BaselineReport {
            file: info.baseline_file,
            listed: baseline.ids.len(),
            unknown,
        },
        cases,
        summary,
        exit_code: verdict::exit_code(&summary),
        error: None,
    }
}
