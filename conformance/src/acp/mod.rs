//! ACP (Agent Client Protocol) on the shared runner core: the `acp-conformance` binary's
//! catalogue, driver and scheduler. Agent mode (`-- AGENT_COMMAND…`) starts a fresh agent per
//! case in its own process group, plays the client (serving `fs/*` and `terminal/*` in a scratch
//! directory when it advertises them, answering permission requests by `kind`), and grades the agent against the ACP
//! v1 schema (`assets/acp-schema-v1-stable.json`) and the protocol docs.
//!
//! Shared with `mcp-conformance`: [`crate::client`] (raw stdio, bounded frames, transcripts),
//! [`crate::process`] (group containment), [`crate::pool`] (`--jobs`), [`crate::verdict`]
//! (grading, baseline, exit status), [`crate::report`] (pretty, JSON with `protocol: "acp"`,
//! JUnit), [`crate::select::glob_match`] (`--case`) and [`crate::cli`] (output routing).
//!
//! Client mode (`--client`, [`client`]): the runner plays a scripted agent that the client under
//! test launches, and grades what the client sent; its graded cases go through the same report
//! writers with [`AcpProfile::Client`].

macro_rules! acp_case {
    ($id:literal, $req:literal, $level:ident, $desc:expr, $check:path $(, $factor:expr)?) => {
        $crate::acp::AcpCase {
            id: $id,
            requirement: $req,
            level: $crate::model::Level::$level,
            description: $desc,
            timeout_factor: acp_case!(@factor $($factor)?),
            check: |ctx| Box::pin($check(ctx)),
        }
    };
    (@factor) => { 1 };
    (@factor $f:expr) => { $f };
}

pub mod cases;
pub mod client;
pub mod driver;
pub mod report;
pub mod responder;
pub mod schedule;
pub mod schema;
pub mod terminal;

use std::time::Duration;

use serde::Serialize;

use crate::model::{Check, CheckFuture, Level};
use crate::transcript::Entry;

pub use schedule::Ctx;

/// The ACP runner's profiles: which side is under test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AcpProfile {
    /// Agent mode: the runner is the client, the command is the agent.
    Agent,
    /// Client mode (`--client`): the runner is the agent, the command is the client.
    Client,
}

impl crate::report::ProfileName for AcpProfile {
    fn name(&self) -> &'static str {
        match self {
            AcpProfile::Agent => "agent",
            AcpProfile::Client => "client",
        }
    }
    fn protocol(&self) -> Option<&'static str> {
        Some("acp")
    }
    fn peer(&self) -> &'static str {
        match self {
            AcpProfile::Agent => "agent",
            AcpProfile::Client => "client",
        }
    }
    fn info_key(&self) -> &'static str {
        match self {
            AcpProfile::Agent => "agentInfo",
            AcpProfile::Client => "clientInfo",
        }
    }
}

/// One agent-mode case: data plus a check function.
#[derive(Clone, Copy)]
pub struct AcpCase {
    /// Stable slash-separated slug; its first segment is the section.
    pub id: &'static str,
    /// The ACP schema definition or docs page (and rule) the case checks.
    pub requirement: &'static str,
    /// MUST / SHOULD as the schema or docs say.
    pub level: Level,
    /// One line saying what is checked.
    pub description: &'static str,
    /// Timeout as a multiple of `--timeout-ms`.
    pub timeout_factor: u32,
    /// The check.
    pub check: fn(Ctx) -> CheckFuture,
}

impl std::fmt::Debug for AcpCase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AcpCase")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

/// One finished case of either mode, before grading: what client mode hands to
/// [`report::build`] too.
#[derive(Debug, Clone)]
pub struct Ran {
    /// Stable slug id (`section/…`).
    pub id: &'static str,
    /// The rule checked.
    pub requirement: &'static str,
    /// MUST / SHOULD / INFO.
    pub level: Level,
    /// What is checked.
    pub description: &'static str,
    /// The finding.
    pub check: Check,
    /// Wall time.
    pub duration: Duration,
    /// Whether the case hit its timeout.
    pub timed_out: bool,
    /// The case's wire transcript.
    pub transcript: Vec<Entry>,
}

/// Every agent-mode case, in report order.
#[must_use]
pub fn all() -> Vec<AcpCase> {
    cases::all()
}

/// The cases whose id matches any of `globs` (all when empty), in catalogue order.
#[must_use]
pub fn select(catalogue: &[AcpCase], globs: &[String]) -> Vec<AcpCase> {
    catalogue
        .iter()
        .filter(|c| globs.is_empty() || globs.iter().any(|g| crate::select::glob_match(g, c.id)))
        .copied()
        .collect()
}

/// The Markdown catalogue table of `docs/acp-conformance.md` (checked by a test).
#[must_use]
pub fn markdown(cases: &[AcpCase]) -> String {
    use std::fmt::Write as _;
    let mut out = String::from("| Case id | Level | Rule | What it checks |\n|---|---|---|---|\n");
    for c in cases {
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} |",
            c.id,
            c.level.name(),
            c.requirement.replace('|', "\\|"),
            c.description.replace('|', "\\|")
        );
    }
    out
}
