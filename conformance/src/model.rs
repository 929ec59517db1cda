//! The data model of a conformance case: ids, requirement ids, levels per profile, and what a
//! check returns (expected vs actual), kept apart from how cases are run or reported.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use serde::Serialize;

use crate::client::ClientError;
use crate::schedule::Ctx;

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

    /// A rule the contract makes MUST for providers, which the MCP spec leaves at SHOULD for
    /// other servers (T4, T6 answering: real servers drop malformed lines silently).
    pub const CONTRACT_MUST: Self = Self {
        plain: Some(Level::Should),
        provider: Some(Level::Must),
        gateway: Some(Level::Should),
    };

    /// A rule only the kit's contract makes (T6's frame bound, T4's liveness after bad input,
    /// invalid UTF-8): MCP and JSON-RPC say nothing of it, so a plain server's deviation is
    /// informational; a gateway in front of a provider should keep it.
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

/// What a case needs from the runner besides a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Needs {
    /// A fresh server process of its own.
    Server,
    /// Only the listings every case shares (tools, resources, initialize result): the case reads
    /// the shared discovery session and starts nothing (it "declares it can share").
    Discovery,
    /// A fresh server whose `claude` is fake-claude (`--drive-fake`, provider lifecycle).
    Fake,
    /// A cross-cutting rule ([`crate::watch`]): runs after every other case and grades what
    /// their exchanges showed (it may also probe a server of its own).
    Crosscut,
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

impl From<ClientError> for Check {
    /// Protocol-level trouble while talking to the server is the server's failure, except when
    /// the runner could not start it at all, or when the answer came under another id (graded
    /// once, by `jsonrpc/response-ids`).
    fn from(e: ClientError) -> Self {
        match e {
            ClientError::Spawn { .. } | ClientError::Io(_) => Check::Error(e.to_string()),
            ClientError::Timeout {
                ref waiting_for,
                ms,
                ref unmatched,
                foreign_id,
                ref note,
            } => {
                let fail = Check::fail(
                    format!("an answer to {waiting_for}"),
                    format!(
                        "nothing within {ms} ms{}{note}",
                        crate::client::meanwhile(unmatched)
                    ),
                );
                if foreign_id {
                    Check::blocked(crate::watch::Rule::IdEcho.case_id(), fail)
                } else {
                    fail
                }
            }
            ClientError::Closed {
                peer,
                ref waiting_for,
                ref unmatched,
                ref note,
            } => Check::fail(
                format!("the {} to stay up ({waiting_for})", peer.noun()),
                format!(
                    "the {} closed the connection{note}{}",
                    peer.noun(),
                    crate::client::meanwhile(unmatched)
                ),
            ),
        }
    }
}

/// A check's result: `Ok` and `Err` both carry the final [`Check`]; `Err` lets `?` end a case early.
pub type CheckResult = Result<Check, Check>;

/// The boxed future a check function returns.
pub type CheckFuture = Pin<Box<dyn Future<Output = CheckResult> + Send>>;

/// One case of the catalogue: data plus a check function.
#[derive(Clone, Copy)]
pub struct Case {
    /// Stable slash-separated slug; its first segment is the section.
    pub id: &'static str,
    /// The contract id (`T2`, `META-WORK-5`) or MCP spec section the case checks.
    pub requirement: &'static str,
    /// Level per profile.
    pub levels: Levels,
    /// One line saying what is checked.
    pub description: &'static str,
    /// What the case needs.
    pub needs: Needs,
    /// Timeout as a multiple of `--timeout-ms` (1 for most cases; long for run lifecycle).
    pub timeout_factor: u32,
    /// The case's declared cost in milliseconds: about what it takes against the reference
    /// target on an idle machine (`--jobs 1`), declared where it is well above its kind's
    /// ([`Case::cost`]). It orders the start (longest first), nothing else: never a bound.
    pub cost_ms: u32,
    /// The check.
    pub check: fn(Ctx) -> CheckFuture,
    /// The tool family a run-lifecycle case checks when the server lists several
    /// (`None`: the first family, as every other case uses).
    pub family: Option<&'static crate::roles::Family>,
}

impl std::fmt::Debug for Case {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Case")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

impl Case {
    /// The section: the first segment of the id.
    #[must_use]
    pub fn section(&self) -> &'static str {
        self.id.split('/').next().unwrap_or(self.id)
    }

    /// The expected cost of the case, for the start order only: the declared
    /// [`Case::cost_ms`], else its kind's (a run through the fake, a fresh server, nothing).
    #[must_use]
    pub fn cost(&self) -> Duration {
        let ms = match (self.cost_ms, self.needs) {
            (0, Needs::Fake) => 400,
            (0, Needs::Server) => 200,
            (0, Needs::Discovery | Needs::Crosscut) => 0,
            (declared, _) => declared,
        };
        Duration::from_millis(u64::from(ms))
    }

    /// The case's timeout for a base timeout.
    #[must_use]
    pub fn timeout(&self, base: Duration) -> Duration {
        base.saturating_mul(self.timeout_factor.max(1))
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
