//! Client mode's place in the one case type and the one scheduler: a case carries the scenario
//! the scripted agent plays ([`Script`]); its check runs a fresh client against it
//! ([`client_check`]) and grades what the agent side saw; [`ClientRunner`] hands each case the
//! run's configuration.

use std::sync::Arc;
use std::time::Duration;

use crate::acp::client::checks;
use crate::acp::client::config::{CancelDriver, ClientModeConfig};
use crate::acp::client::owed::Owed;
use crate::acp::client::run::{self, Ran};
use crate::acp::client::watch::{self, Watch};
use crate::acp::gate::AcpProfile;
use crate::core::case::Gate;
use crate::core::model::{Check, CheckResult, Level};
use crate::core::schedule::{Runner, Scope};

/// What the scripted agent plays for a case.
#[derive(Debug, Clone, Copy, Default)]
pub struct Script {
    /// The scripted agent's scenario (fake-cursor-agent format).
    pub scenario: &'static str,
    /// Whether the runner drives the cancel in this case.
    pub drives_cancel: bool,
    /// Whether the case's own subject is whether a request of its scenario is answered (the
    /// cancel cases, the colliding id, the request after unknown updates): its run is then not
    /// booked in [`Owed`], the run-wide tally of unanswered requests.
    pub grades_answers: bool,
}

/// A client-mode case's level, and which clients are held to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientLevel {
    /// MUST / SHOULD as the ACP schema or docs say (or the kit's rule, for `cursor_only`).
    pub level: Level,
    /// A rule of the kit's Cursor policy, not of ACP: graded only under `--profile cursor`.
    pub cursor_only: bool,
}

impl ClientLevel {
    /// A rule of ACP's, for every client.
    #[must_use]
    pub const fn any(level: Level) -> Self {
        Self {
            level,
            cursor_only: false,
        }
    }

    /// A rule of the kit's Cursor policy (ACP-2, ACP-4): only under `--profile cursor`.
    #[must_use]
    pub const fn cursor(level: Level) -> Self {
        Self {
            level,
            cursor_only: true,
        }
    }

    /// `MUST`, `SHOULD` or `INFO`.
    #[must_use]
    pub fn name(self) -> &'static str {
        self.level.name()
    }
}

/// The ACP gate in client mode (`acp-conformance --client -- CLIENT…`).
#[derive(Debug, Clone, Copy)]
pub struct ClientMode;

impl Gate for ClientMode {
    type Ctx = ClientCtx;
    type Levels = ClientLevel;
    type Variant = Script;
    type Profile = AcpProfile;

    fn level(levels: &ClientLevel, profile: AcpProfile) -> Option<Level> {
        (!levels.cursor_only || profile == AcpProfile::Cursor).then_some(levels.level)
    }
}

/// The level of [`checks::AUTHENTICATE_CASE`] (the kit's Cursor policy, ACP-2).
pub const AUTHENTICATE_LEVEL: ClientLevel = ClientLevel::cursor(Level::Must);

/// One client-mode case.
pub type ClientCase = crate::core::case::Case<ClientMode>;

/// What a client-mode check gets.
#[derive(Clone)]
pub struct ClientCtx {
    /// The run's configuration.
    pub cfg: Arc<ClientModeConfig>,
    /// The case's id.
    pub case_id: &'static str,
    /// What the scripted agent plays.
    pub script: Script,
    /// The case's transcript (the scheduler's).
    pub scope: Scope,
    /// The id rule's findings of the whole run ([`crate::acp::client::watch`]).
    pub watch: Watch,
    /// The run's unanswered agent requests ([`crate::acp::client::owed`]).
    pub owed: Owed,
    /// The case's place in the catalogue: the order of findings.
    pub position: usize,
}

/// Runs a fresh client against the case's scenario and grades the run with `check`. A cancel
/// case with nothing to make the client cancel starts no client; a run whose wire log lost
/// events cannot pass.
pub async fn client_check(
    ctx: ClientCtx,
    check: fn(&Ran, &ClientModeConfig) -> Check,
) -> CheckResult {
    if ctx.script.drives_cancel && ctx.cfg.cancel == CancelDriver::None {
        return Ok(Check::skip(checks::cancel::NO_DRIVER));
    }
    let ran = run::run_case(
        &ctx.cfg,
        ctx.case_id,
        ctx.script.scenario,
        ctx.script.drives_cancel,
        ctx.scope.transcript.clone(),
    )
    .await;
    if ran.timed_out {
        ctx.scope.mark_timed_out();
    }
    watch::observe(&ctx.watch, &ran.wire, ctx.case_id, ctx.position);
    if !ctx.script.grades_answers {
        ctx.owed.book(&ran, ctx.case_id, ctx.position);
    }
    let mut verdict = check(&ran, &ctx.cfg);
    // A client that authenticated unprompted and then ended before its turn is blocked by the
    // authenticate rule only where that rule is graded (the Cursor profile); for any other
    // client authenticating is no defect, and the turn case grades the missing turn.
    if let Check::Blocked { by, fallback } = &verdict
        && *by == checks::AUTHENTICATE_CASE
        && ClientMode::level(&AUTHENTICATE_LEVEL, ctx.cfg.profile).is_none()
    {
        verdict = Check::Blocked {
            by: checks::TURN_CASE,
            fallback: fallback.clone(),
        };
    }
    if ran.wire.dropped > 0 && matches!(verdict, Check::Pass) {
        verdict = Check::Error(format!(
            "{} wire events over the bound were not kept: the verdict cannot be trusted",
            ran.wire.dropped
        ));
    }
    Ok(verdict)
}

/// The client-mode [`Runner`].
#[derive(Debug)]
pub struct ClientRunner {
    /// The run's configuration.
    pub cfg: Arc<ClientModeConfig>,
    /// The id rule's findings of the run, filled by every case's wire.
    pub watch: Watch,
    /// The run's unanswered agent requests, booked by every case's wire.
    pub owed: Owed,
    /// The catalogue's case ids in order (a case's place orders its findings).
    pub order: Vec<&'static str>,
}

impl ClientRunner {
    /// The scheduler's timeout of a case: a safety net only, well past the case's own budget
    /// (its timeout, the end grace and the kills after them), which ends every run first.
    #[must_use]
    pub fn safety_timeout(&self) -> Duration {
        self.cfg.case_timeout + self.cfg.end_grace + Duration::from_secs(30)
    }
}

impl Runner for ClientRunner {
    type Gate = ClientMode;

    fn name(&self) -> &'static str {
        "acp-conformance"
    }

    fn peer(&self) -> &'static str {
        "client"
    }

    fn timeout_expected(&self, timeout: Duration) -> String {
        format!(
            "a verdict within the case timeout of {} ms",
            timeout.as_millis()
        )
    }

    fn context(
        &self,
        case: &ClientCase,
        scope: Scope,
    ) -> Result<(ClientCtx, Box<dyn Send>), Check> {
        let ctx = ClientCtx {
            cfg: self.cfg.clone(),
            case_id: case.id,
            script: case.variant,
            scope,
            watch: self.watch.clone(),
            owed: self.owed.clone(),
            position: self.order.iter().position(|id| *id == case.id).unwrap_or(0) + 1,
        };
        Ok((ctx, Box::new(())))
    }
}
