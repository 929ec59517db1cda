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
//! Flow: [`cases`] (the catalogue, the one case type with [`gate::ClientMode`]) → the one
//! scheduler ([`crate::core::schedule`], `--jobs`) → [`run`] (one client run) → [`checks`] →
//! graded by the shared grading rule ([`crate::core::verdict::grade`], as agent mode and
//! `mcp-conformance`) into [`CaseResult`]s ready for the report writers. Documented in `docs/acp-conformance-client.md`.

pub mod cases;
pub mod checks;
pub mod config;
pub mod gate;
pub mod launch;
pub mod owed;
pub mod run;
pub mod watch;
pub mod wire;

use std::sync::Arc;

pub use cases::CASES;
pub use config::{AGENT_ENV, AGENT_PLACEHOLDER, CancelDriver, ClientModeConfig};
pub use gate::{ClientCase, ClientLevel};

use tokio::sync::mpsc::UnboundedSender;

use crate::acp::client::gate::{ClientMode, ClientRunner};
use crate::core::report::CaseResult;
use crate::core::schedule::{self, Ran, Settings};

/// Runs every selected case of client mode on the one scheduler (`cfg.jobs` at once, each with
/// its own client), and grades each with the run's strictness and baseline.
pub async fn run_client_mode(cfg: &ClientModeConfig) -> Vec<CaseResult> {
    run_client_cases(cfg, None)
        .await
        .iter()
        .map(|ran| crate::core::verdict::grade(ran, cfg.profile, cfg.strict, &cfg.baseline))
        .collect()
}

/// The selected cases of client mode under the run's profile, in report order, with the
/// cross-cutting cases added: a `--case` shard keeps the id rule and the rule on what the
/// client owes ([`owed`]) on the exchanges it makes (the scenarios of the cases it runs; a case
/// not run adds nothing to judge).
#[must_use]
pub fn selected(cfg: &ClientModeConfig) -> Vec<ClientCase> {
    CASES
        .iter()
        .filter(|c| c.level(cfg.profile).is_some())
        .filter(|c| {
            cfg.cases.is_empty() || c.needs.crosscut() || cfg.cases.iter().any(|id| id == c.id)
        })
        .copied()
        .collect()
}

/// [`run_client_mode`] before grading: `progress` receives each case as it finishes.
pub async fn run_client_cases(
    cfg: &ClientModeConfig,
    progress: Option<UnboundedSender<Ran<ClientMode>>>,
) -> Vec<Ran<ClientMode>> {
    let runner = Arc::new(ClientRunner {
        cfg: Arc::new(cfg.clone()),
        watch: watch::Watch::new(),
        owed: owed::Owed::new(),
        order: CASES.iter().map(|c| c.id).collect(),
    });
    let settings = Settings {
        timeout: runner.safety_timeout(),
        jobs: cfg.jobs,
    };
    schedule::run_all(runner, selected(cfg), settings, progress).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shard_keeps_the_cross_cutting_cases() {
        let mut cfg = ClientModeConfig::new(vec!["client".into()], "agent".into());
        cfg.cases = vec!["client/answers-agent-requests".into()];
        let ids: Vec<&str> = selected(&cfg).iter().map(|c| c.id).collect();
        assert_eq!(
            ids,
            ["client/answers-agent-requests", watch::RESPONSE_IDS_CASE]
        );
        // Every shard keeps the rule on what the client owes, graded on the shard's runs too.
        cfg.cases = vec!["client/permission-echoes-offered-option".into()];
        let ids: Vec<&str> = selected(&cfg).iter().map(|c| c.id).collect();
        assert_eq!(
            ids,
            [
                "client/answers-agent-requests",
                "client/permission-echoes-offered-option",
                watch::RESPONSE_IDS_CASE
            ]
        );
        cfg.cases.clear();
        assert_eq!(
            selected(&cfg).len(),
            CASES
                .iter()
                .filter(|c| c.level(cfg.profile).is_some())
                .count()
        );
    }
}
