//! The MCP gate's profiles (`--profile`) and the level of a case under each.

use serde::Serialize;

use crate::core::model::Level;

/// Which contract a server is held to (`--profile`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    /// Base protocol; computer-mcp metadata is informational.
    Plain,
    /// A provider of the computer-mcp tools: every META rule is MUST, plus run lifecycle.
    Provider,
    /// A gateway re-exporting provider tools: META-CONN-1 (work and continuation stripped).
    Gateway,
}

impl Profile {
    /// The lowercase name used on the command line and in reports.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Profile::Plain => "plain",
            Profile::Provider => "provider",
            Profile::Gateway => "gateway",
        }
    }
}

/// The level of a case under each profile; `None` means the case is not part of that profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Levels {
    /// Under `--profile plain`.
    pub plain: Option<Level>,
    /// Under `--profile provider`.
    pub provider: Option<Level>,
    /// Under `--profile gateway`.
    pub gateway: Option<Level>,
}

impl Levels {
    /// The same level in every profile.
    #[must_use]
    pub const fn all(level: Level) -> Self {
        Self {
            plain: Some(level),
            provider: Some(level),
            gateway: Some(level),
        }
    }

    /// A rule the contract makes MUST for providers, which the MCP spec or JSON-RPC 2.0 state
    /// without a MUST for other servers (T4's error codes, T3's -32601 for an unknown method:
    /// JSON-RPC 2.0 §5.1 defines the codes; real servers drop malformed lines silently).
    pub const CONTRACT_MUST: Self = Self {
        plain: Some(Level::Should),
        provider: Some(Level::Must),
        gateway: Some(Level::Should),
    };

    /// A rule only the kit's contract makes (T6's frame bound, T4's liveness after bad input,
    /// invalid UTF-8, T5's batch rejection outside 2025-03-26, T2's answer to a missing
    /// proposal, T3's `server/discover` fallback): MCP and JSON-RPC say nothing of it, so a
    /// plain server's deviation is informational; a gateway in front of a provider should keep
    /// it.
    pub const KIT_ONLY: Self = Self {
        plain: Some(Level::Info),
        provider: Some(Level::Must),
        gateway: Some(Level::Should),
    };

    /// A contract-only rule: informational for other servers.
    pub const CONTRACT_INFO: Self = Self {
        plain: Some(Level::Info),
        provider: Some(Level::Must),
        gateway: Some(Level::Info),
    };

    /// One SDK's behaviour, with no specification text at hand that states it (the stateless
    /// era's error codes and era mixing, as the Python SDK 2.3.0 answers them): informational in
    /// every profile. The official Rust SDK rmcp 3.1.0 answers otherwise, so an SDK's choice is
    /// no rule a server deviates from.
    pub const SDK_ONLY: Self = Self::all(Level::Info);

    /// Only under the provider profile.
    pub const PROVIDER_ONLY: Self = Self {
        plain: None,
        provider: Some(Level::Must),
        gateway: None,
    };

    /// A computer-mcp metadata rule a gateway must keep (risk: META-CONN-1 keeps it).
    pub const META_KEPT: Self = Self {
        plain: Some(Level::Info),
        provider: Some(Level::Must),
        gateway: Some(Level::Must),
    };

    /// A connection-local metadata rule (work, continuation): a gateway strips these, so they
    /// are not checked there (META-CONN-1 checks the stripping instead).
    pub const META_LOCAL: Self = Self {
        plain: Some(Level::Info),
        provider: Some(Level::Must),
        gateway: None,
    };

    /// Only under the gateway profile.
    pub const GATEWAY_ONLY: Self = Self {
        plain: None,
        provider: None,
        gateway: Some(Level::Must),
    };

    /// The level under `profile`.
    #[must_use]
    pub fn get(&self, profile: Profile) -> Option<Level> {
        match profile {
            Profile::Plain => self.plain,
            Profile::Provider => self.provider,
            Profile::Gateway => self.gateway,
        }
    }
}

impl crate::core::report::ProfileName for Profile {
    fn name(&self) -> &'static str {
        Profile::name(*self)
    }
}
