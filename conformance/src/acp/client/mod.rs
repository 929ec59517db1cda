//! Client mode (`acp-conformance --client -- CLIENT_COMMAND…`): the runner plays a scripted
//! agent that the client under test launches, and grades what the client sent.
//!
//! Per case (a fresh client process each): the runner makes a folder with the scenario and an
//! `agent` script that starts `fake-cursor-agent` on it with its wire log going to a FIFO the
//! runner reads; the client gets that script as its agent command (`{agent}` in its command
//! line, and env `ACP_CONFORMANCE_AGENT`), runs in its own process group with the folder as its
//! working directory, and is graded on the agent-side wire: every line it sent (`c2a`) and every
//! line the agent wrote (`a2c`), as logged by the agent process itself. The case ends when the
//! client has exited and the agent is gone (or the grace passed), or at the case timeout; then
//! the client's group and every agent's group are killed.
//!
//! Flow: [`cases`] (the catalogue) → [`run`] (one client run) → [`checks`] → graded by the
//! shared grading rule ([`crate::verdict::grade_finding`], as agent mode and `mcp-conformance`)
//! into [`CaseResult`]s ready for the report writers. Documented in `docs/acp-conformance-client.md`.

pub mod cases;
pub mod checks;
pub mod config;
pub mod launch;
pub mod run;
pub mod wire;

pub use cases::{CASES, ClientCase};
pub use config::{AGENT_ENV, AGENT_PLACEHOLDER, CancelDriver, ClientModeConfig};

use crate::model::Check;
use crate::report::CaseResult;

/// Runs every selected case of client mode, one after the other, and grades each.
pub async fn run_client_mode(cfg: &ClientModeConfig) -> Vec<CaseResult> {
    let mut out = Vec::new();
    for case in CASES
        .iter()
        .filter(|c| cfg.cases.is_empty() || cfg.cases.iter().any(|id| id == c.id))
    {
        out.push(run_one(cfg, case).await);
    }
    out
}

async fn run_one(cfg: &ClientModeConfig, case: &ClientCase) -> CaseResult {
    if case.drives_cancel && cfg.cancel == CancelDriver::None {
        // Nothing can make the client cancel: no client is started for nothing.
        let ran = run::Ran::not_run();
        return grade(cfg, case, &ran, &Check::skip(checks::cancel::NO_DRIVER));
    }
    let ran = run::run_case(cfg, case.id, case.scenario, case.drives_cancel).await;
    let mut check = (case.check)(&ran, cfg);
    if ran.wire.dropped > 0 && matches!(check, Check::Pass) {
        check = Check::Error(format!(
            "{} wire events over the bound were not kept: the verdict cannot be trusted",
            ran.wire.dropped
        ));
    }
    grade(cfg, case, &ran, &check)
}

/// Grades one client case through the shared grading rule ([`crate::acp::report::grade`], the
/// one agent mode and `mcp-conformance` use), with the run's baseline.
fn grade(cfg: &ClientModeConfig, case: &ClientCase, ran: &run::Ran, check: &Check) -> CaseResult {
    crate::acp::report::grade(
        &crate::acp::Ran {
            id: case.id,
            requirement: case.requirement,
            level: case.level,
            description: case.description,
            check: check.clone(),
            duration: ran.duration,
            timed_out: ran.timed_out,
            transcript: ran.transcript.entries(),
        },
        crate::acp::AcpProfile::Client,
        cfg.strict,
        &cfg.baseline,
    )
}
