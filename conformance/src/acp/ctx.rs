//! What an agent-mode case's check gets ([`Ctx`]): a way to start agents on the scheduler's
//! [`Scope`] (killed by process group afterwards), each with the runner's client side serving
//! the case's scratch directory; and the discovery handshake before any case ([`discover`]).

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::acp::driver::{Agent, Caps, PROTOCOL_VERSION};
use crate::acp::responder::{Permission, Served, State};
use crate::acp::watch::{Observer, Watch};
use crate::core::checks::show;
use crate::core::client::{ClientError, ServerSpec};
use crate::core::model::Check;
use crate::core::schedule::Scope;
use crate::core::starts::Starts;
use crate::core::transcript::{Peer, Transcript};

/// What a case's check gets: a way to start agents that the scheduler kills afterwards.
#[derive(Clone)]
pub struct Ctx {
    /// The case's id.
    pub case_id: &'static str,
    /// The case's timeout.
    pub timeout: Duration,
    /// The case's scratch directory (absolute): every session's `cwd`, where `fs/*` is served.
    pub scratch: PathBuf,
    pub(crate) spec: Arc<ServerSpec>,
    /// The case's transcript, agents and deadlines (the scheduler's).
    pub(crate) scope: Scope,
    /// The id rule's findings of the whole run ([`crate::acp::watch`]).
    pub(crate) watch: Watch,
    /// The case's place in the catalogue (discovery is 0, cases from 1): the order of findings.
    pub(crate) position: usize,
    /// Agents started by the case so far.
    pub(crate) agents: Arc<AtomicU32>,
    /// How the run's cases' agents started (one cause for an agent that starts only once).
    pub(crate) starts: Arc<Starts>,
}

impl Ctx {
    /// Runs one handshake step (`initialize`, `session/new`) whose time is not the case's: it
    /// may take the whole case timeout, and the case's deadlines move out by what it took. Real
    /// agents take seconds to create a session, and more on a loaded machine; that says nothing
    /// about what a case checks.
    pub async fn handshake<T>(
        &self,
        step: impl std::future::Future<Output = Result<T, Check>>,
    ) -> Result<T, Check> {
        self.scope.off_the_clock(step).await
    }

    /// A fresh agent's first answer (`initialize`), off the case's clock as
    /// [`Ctx::handshake`]. The discovery session's agent did answer, so silence here is the
    /// runner's `error` (`timed_out`), never a verdict on what the case checks; while no agent
    /// any case started has answered, its reason names the likely cause, an agent that works
    /// only as its first instance (GATE-LOAD-1).
    pub async fn first_answer(
        &self,
        step: impl std::future::Future<Output = Result<Value, ClientError>>,
    ) -> Result<Value, Check> {
        match self.scope.off_the_clock(step).await {
            Ok(answer) => {
                self.starts.answered();
                Ok(answer)
            }
            Err(ClientError::Timeout {
                foreign_id: false,
                ms,
                unmatched,
                arrived,
                ..
            }) if unmatched.is_empty() && arrived.is_empty() => {
                self.scope.mark_timed_out();
                let given_up = self.starts.gave_up(Some(self.case_id));
                let cause = if self.starts.none_answered() {
                    format!(
                        "no agent a case started has answered yet ({given_up} case(s) gave up \
                         so far), so the agent most likely works only as its first instance (a \
                         lock file, a port, state the first instance leaves behind), or the \
                         machine is too loaded to start it: raise --timeout-ms or lower --jobs \
                         to tell"
                    )
                } else {
                    "other cases' agents did, so the machine is probably overloaded: raise \
                     --timeout-ms or lower --jobs"
                        .to_owned()
                };
                Err(Check::Error(format!(
                    "the agent did not answer initialize within {ms} ms; the discovery \
                     session's agent did; {cause}"
                )))
            }
            Err(e) => Err(e.into()),
        }
    }

    /// The scratch directory as a string (a session's `cwd`).
    #[must_use]
    pub fn cwd(&self) -> String {
        self.scratch.to_string_lossy().into_owned()
    }

    /// Adds a note of the runner's own to the transcript.
    pub fn note(&self, text: &str) {
        self.scope.note(text);
    }

    /// Starts a fresh agent (not initialized) whose client side advertises `caps`.
    pub fn spawn(&self, caps: Caps) -> Result<Agent, Check> {
        let agent = self.agents.fetch_add(1, Ordering::Relaxed);
        let observer = Observer::new(self.watch.clone(), self.case_id, self.position, agent);
        let mut client = self.scope.spawn(&self.spec, Some(observer))?;
        let state = State::new(Served {
            fs: caps.fs,
            permission: Permission::AllowOnce,
            scratch: self.scratch.clone(),
        });
        client.set_responder(state.responder());
        Ok(Agent {
            client,
            state,
            init: Value::Null,
        })
    }

    /// A fresh agent after a successful `initialize` proposing version 1 (a failed one is
    /// graded once, by `initialize/protocol-version`).
    pub async fn started(&self, caps: Caps) -> Result<Agent, Check> {
        let mut agent = self.spawn(caps)?;
        let started = Instant::now();
        let answer = self
            .first_answer(agent.initialize_raw(caps, json!(PROTOCOL_VERSION)))
            .await?;
        // A loaded machine slows an agent's exit as much as its start (see exit/*).
        agent.client.set_start_latency(started.elapsed());
        if answer.get("result").is_none_or(|r| !r.is_object()) {
            return Err(Check::blocked(
                "initialize/protocol-version",
                Check::fail("initialize to succeed", show(&answer)),
            ));
        }
        Ok(agent)
    }

    /// A fresh initialized agent with one session in the scratch directory.
    pub async fn session(&self, caps: Caps) -> Result<(Agent, String), Check> {
        let mut agent = self.started(caps).await?;
        let session = self.handshake(agent.new_session(&self.cwd())).await?;
        Ok((agent, session))
    }
}

/// A fresh scratch directory of the case (absolute, canonical: agents compare paths).
pub(crate) fn scratch_dir(case_id: &str) -> std::io::Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!(
        "acp-conformance-{}-{}-{}",
        std::process::id(),
        case_id.replace('/', "-"),
        uuid::Uuid::new_v4().simple()
    ));
    std::fs::create_dir_all(&dir)?;
    std::fs::write(
        dir.join("README.txt"),
        "A scratch file the runner serves.\n",
    )?;
    dir.canonicalize()
}

/// The discovery handshake before any case: a fresh agent's `initialize` result (for the
/// report's `agentInfo` and protocol version) and how long the agent took from its spawn to
/// that answer (every case's deadlines scale with it, GATE-LOAD-1), its group killed
/// afterwards. An agent that does not start or initialize is the runner's error (exit 2), with
/// the transcript to show why. Its exchanges count for the id rule (`watch`) as any case's.
pub async fn discover(
    spec: Arc<ServerSpec>,
    timeout: Duration,
    watch: Watch,
) -> Result<(Value, Duration), (String, Vec<crate::core::transcript::Entry>)> {
    let started = Instant::now();
    let transcript = Transcript::with_peer(Peer::Agent);
    let scope = Scope::new(
        "discovery",
        timeout,
        transcript.clone(),
        started + timeout,
        started + timeout,
    );
    let ctx = Ctx {
        case_id: "discovery",
        timeout,
        scratch: std::env::temp_dir(),
        spec,
        scope: scope.clone(),
        watch,
        position: 0,
        agents: Arc::new(AtomicU32::new(0)),
        starts: Arc::default(),
    };
    let found = match ctx.spawn(Caps::NONE) {
        Ok(mut agent) => match agent.initialize(Caps::NONE, json!(PROTOCOL_VERSION)).await {
            Ok(answer) => match answer.get("result") {
                Some(r) if r.is_object() => Ok((r.clone(), started.elapsed())),
                _ => Err(format!("initialize was answered {}", show(&answer))),
            },
            Err(c) => Err(describe(&c)),
        },
        Err(c) => Err(describe(&c)),
    };
    scope.shutdown().await;
    found.map_err(|e| (e, transcript.entries()))
}

fn describe(c: &Check) -> String {
    match c {
        Check::Fail { expected, actual } | Check::Violation { expected, actual } => {
            format!("expected {expected}, got {actual}")
        }
        Check::Error(e) | Check::Skip(e) | Check::Ungraded { reason: e, .. } => e.clone(),
        other => format!("{other:?}"),
    }
}
