//! The ACP gate's place in the one case type and the one scheduler: agent-mode cases get a
//! [`Ctx`] and one [`Level`] each; [`AcpRunner`] gives each case a fresh scratch directory
//! (removed afterwards) and an ACP-worded transcript; [`AcpProfile`] says which side is under
//! test.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;

use crate::acp::ctx::{Ctx, scratch_dir};
use crate::core::case::Gate;
use crate::core::client::ServerSpec;
use crate::core::model::{Check, Level};
use crate::core::schedule::{Runner, Scope};
use crate::core::transcript::{Peer, Transcript};

/// The ACP runner's profiles: which side is under test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AcpProfile {
    /// Agent mode: the runner is the client, the command is the agent.
    Agent,
    /// Client mode (`--client`): the runner is the agent, the command is the client, held to
    /// what ACP asks of any client.
    Client,
    /// Client mode held to the kit's Cursor policy too (`--client --profile cursor`): the
    /// client cases plus the rules a Cursor client keeps beyond ACP (never `allow_always`,
    /// ACP-4; no `authenticate`, ACP-2).
    Cursor,
}

impl crate::core::report::ProfileName for AcpProfile {
    fn name(&self) -> &'static str {
        match self {
            AcpProfile::Agent => "agent",
            AcpProfile::Client => "client",
            AcpProfile::Cursor => "cursor",
        }
    }
    fn protocol(&self) -> Option<&'static str> {
        Some("acp")
    }
    fn peer(&self) -> &'static str {
        match self {
            AcpProfile::Agent => "agent",
            AcpProfile::Client | AcpProfile::Cursor => "client",
        }
    }
    fn info_key(&self) -> &'static str {
        match self {
            AcpProfile::Agent => "agentInfo",
            AcpProfile::Client | AcpProfile::Cursor => "clientInfo",
        }
    }
}

/// The ACP gate in agent mode (`acp-conformance -- AGENT…`).
#[derive(Debug, Clone, Copy)]
pub struct Acp;

impl Gate for Acp {
    type Ctx = Ctx;
    /// MUST / SHOULD as the ACP schema or docs say, in the one profile.
    type Levels = Level;
    type Variant = ();
    type Profile = AcpProfile;

    fn level(levels: &Level, _profile: AcpProfile) -> Option<Level> {
        Some(*levels)
    }
}

/// One agent-mode case.
pub type AcpCase = crate::core::case::Case<Acp>;

/// One finished agent-mode case before grading.
pub type Ran = crate::core::schedule::Ran<Acp>;

/// The agent-mode [`Runner`]: a fresh agent (or several) per case, its own scratch directory.
#[derive(Debug)]
pub struct AcpRunner {
    /// The agent command.
    pub spec: Arc<ServerSpec>,
    /// The id rule's findings of the whole run.
    pub watch: crate::acp::watch::Watch,
    /// The catalogue's case ids in report order: a case's place (from 1; discovery is 0)
    /// orders the cross-cutting findings the same at any `--jobs`.
    pub catalogue: Arc<Vec<&'static str>>,
    /// How the cases' agents started (one cause for an agent that starts only once).
    pub starts: Arc<crate::core::starts::Starts>,
}

/// A case's scratch directory, removed once the case's agents are gone.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl Runner for AcpRunner {
    type Gate = Acp;

    fn name(&self) -> &'static str {
        "acp-conformance"
    }

    fn peer(&self) -> &'static str {
        "agent"
    }

    fn timeout_expected(&self, timeout: Duration) -> String {
        format!(
            "a verdict within the case timeout of {} ms",
            timeout.as_millis()
        )
    }

    fn transcript(&self) -> Transcript {
        Transcript::with_peer(Peer::Agent)
    }

    /// Longest first by timeout factor (turn cases), ties in catalogue order.
    fn cost(&self, case: &AcpCase) -> Duration {
        Duration::from_millis(u64::from(case.timeout_factor))
    }

    fn context(&self, case: &AcpCase, scope: Scope) -> Result<(Ctx, Box<dyn Send>), Check> {
        let scratch = scratch_dir(case.id)
            .map_err(|e| Check::Error(format!("cannot create the scratch directory: {e}")))?;
        let ctx = Ctx {
            case_id: case.id,
            timeout: scope.timeout,
            scratch: scratch.clone(),
            spec: self.spec.clone(),
            scope,
            watch: self.watch.clone(),
            position: self
                .catalogue
                .iter()
                .position(|id| *id == case.id)
                .map_or(usize::MAX, |i| i + 1),
            agents: Arc::default(),
            starts: self.starts.clone(),
        };
        Ok((ctx, Box::new(Scratch(scratch))))
    }
}
