//! How the one scheduler runs MCP cases ([`McpRunner`]): each case's [`Ctx`] on its scope,
//! with the shared discovery, the run's settings, and its place in the catalogue for the order
//! of cross-cutting findings.

use std::sync::Arc;
use std::sync::atomic::AtomicU32;
use std::time::Duration;

use crate::core::case::Needs;
use crate::core::model::Check;
use crate::core::schedule::{Runner, Scope};
use crate::core::transcript::Entry;
use crate::mcp::ctx::Ctx;
use crate::mcp::discovery::Discovery;
use crate::mcp::gate::{Case, Mcp};
use crate::mcp::profile::Profile;
use crate::mcp::revision::Revision;
use crate::mcp::revision_probe::Support;
use crate::mcp::target::Target;
use crate::mcp::watch::Watch;

/// The MCP run's settings besides the scheduler's.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// The profile.
    pub profile: Profile,
    /// Whether fake-claude drives the server.
    pub drive_fake: bool,
    /// `--allow-tool-calls`: call tools that might act outside the provider profile.
    pub allow_tool_calls: bool,
}

/// The MCP gate's [`Runner`].
#[derive(Debug)]
pub struct McpRunner {
    /// The server under test.
    pub target: Arc<Target>,
    /// The shared discovery snapshot.
    pub discovery: Arc<Discovery>,
    /// The cross-cutting findings of the whole run.
    pub watch: Watch,
    /// The run's settings.
    pub settings: Settings,
    /// Which revisions the server supports (discovery's probes).
    pub support: Arc<Support>,
    /// The revision revision-independent cases are graded on.
    pub base: Revision,
    /// How the cases' fresh servers started (one cause for a server that starts only once).
    pub starts: Arc<crate::mcp::ctx::Starts>,
}

impl Runner for McpRunner {
    type Gate = Mcp;

    fn name(&self) -> &'static str {
        "mcp-conformance"
    }

    fn peer(&self) -> &'static str {
        "server"
    }

    fn timeout_expected(&self, timeout: Duration) -> String {
        format!(
            "a verdict within the case timeout of {} ms (plus the servers' start)",
            timeout.as_millis()
        )
    }

    fn context(&self, case: &Case, scope: Scope) -> Result<(Ctx, Box<dyn Send>), Check> {
        // Discovery stopped at an answer under another id: no case but the cross-cutting ones
        // (which grade discovery's exchanges too) has what it needs, and the id rule grades the
        // defect once.
        if let Some(why) = &self.discovery.mislabelled
            && !case.needs.crosscut()
        {
            return Err(Check::blocked(
                crate::core::watch::ID_RULE_CASE,
                Check::fail(
                    "discovery's requests answered under their own ids (JSON-RPC 2.0 §5)",
                    why.clone(),
                ),
            ));
        }
        // Over Streamable HTTP a case about stdio itself is not applicable: said, not run.
        if self.target.is_http()
            && let Some(skip) = crate::mcp::transport::skip_over_http(case.id)
        {
            return Err(skip);
        }
        let ctx = Ctx {
            profile: self.settings.profile,
            drive_fake: self.settings.drive_fake,
            discovery: self.discovery.clone(),
            case_id: case.id,
            allow_tool_calls: self.settings.allow_tool_calls,
            watch: self.watch.clone(),
            family: case.variant,
            server_env: Vec::new(),
            target: self.target.clone(),
            scope,
            position: crate::mcp::catalogue::position(case.id),
            servers: Arc::new(AtomicU32::new(0)),
            revision: crate::mcp::revision::of_case(case.id, self.base),
            support: self.support.clone(),
            starts: self.starts.clone(),
        };
        Ok((ctx, Box::new(())))
    }

    fn preamble(&self, case: &Case) -> Vec<Entry> {
        if case.needs != Needs::Discovery {
            return Vec::new();
        }
        let mut entries = self.discovery.transcript.clone();
        if case.id == crate::mcp::catalogue::revisions::SUPPORT_CASE {
            entries.extend(self.support.transcript.iter().cloned());
        }
        entries
    }
}
