//! Agent-mode scheduling: every selected case in a task of its own on the shared pool
//! ([`crate::pool`], `--jobs`), with a fresh agent (or several) of its own, its own scratch
//! directory, transcript and timeout; afterwards every agent the case started is killed by
//! process group ([`crate::client::ProcHandle::shutdown`]) and the scratch directory removed.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::sync::{Semaphore, mpsc};

use super::driver::{Agent, Caps, PROTOCOL_VERSION};
use super::responder::{Permission, Served, State};
use super::{AcpCase, Ran};
use crate::catalogue::support::show;
use crate::client::{Client, Deadline, ProcHandle, ServerSpec};
use crate::model::Check;
use crate::transcript::{Peer, Transcript};

/// What a case's check gets: a way to start agents that the scheduler kills afterwards.
#[derive(Clone)]
pub struct Ctx {
    /// The case's id.
    pub case_id: &'static str,
    /// The case's timeout.
    pub timeout: Duration,
    /// The case's scratch directory (absolute): every session's `cwd`, where `fs/*` is served.
    pub scratch: PathBuf,
    spec: Arc<ServerSpec>,
    transcript: Transcript,
    procs: Arc<Mutex<Vec<ProcHandle>>>,
    /// The deadline every wait of the case uses.
    deadline: Deadline,
    /// The case's hard deadline (the scheduler's), moved with `deadline`.
    hard: Deadline,
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
        let wait = self.timeout;
        self.deadline.extend(wait);
        self.hard.extend(wait);
        let started = Instant::now();
        let result = step.await;
        let took = started.elapsed().min(wait);
        self.deadline.shorten(wait - took);
        self.hard.shorten(wait - took);
        result
    }

    /// The scratch directory as a string (a session's `cwd`).
    #[must_use]
    pub fn cwd(&self) -> String {
        self.scratch.to_string_lossy().into_owned()
    }

    /// Adds a note of the runner's own to the transcript.
    pub fn note(&self, text: &str) {
        self.transcript.note(text);
    }

    /// Starts a fresh agent (not initialized) whose client side advertises `caps`.
    pub fn spawn(&self, caps: Caps) -> Result<Agent, Check> {
        let mut client = Client::spawn(
            &self.spec,
            self.transcript.clone(),
            self.deadline.clone(),
            None,
        )
        .map_err(Check::from)?;
        self.procs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(client.handle());
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
            .handshake(agent.initialize(caps, json!(PROTOCOL_VERSION)))
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

/// Settings of one agent-mode run.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// Base per-case timeout.
    pub timeout: Duration,
    /// Cases at once.
    pub jobs: usize,
}

/// Runs `cases` against the agent `spec`; `progress` receives each result as it finishes.
/// Cases start longest first (by timeout factor, ties in catalogue order: the shared
/// [`crate::pool`]); results come back in catalogue order; blocked cases are resolved against
/// the cases that block them (one defect, one verdict).
pub async fn run_all(
    cases: Vec<AcpCase>,
    spec: Arc<ServerSpec>,
    settings: Settings,
    progress: Option<mpsc::UnboundedSender<Ran>>,
) -> Vec<Ran> {
    let permits = Arc::new(Semaphore::new(settings.jobs.max(1)));
    let factors: Vec<u32> = cases.iter().map(|c| c.timeout_factor).collect();
    let order = crate::pool::longest_first(&factors);
    let results = crate::pool::run_indexed(
        "acp-conformance",
        cases.len(),
        order,
        permits,
        progress.as_ref(),
        |i| run_one(cases[i], spec.clone(), settings),
    )
    .await;
    let mut ran: Vec<Ran> = results
        .into_iter()
        .zip(&cases)
        .map(|(r, case)| {
            r.unwrap_or_else(|| {
                ran_of(
                    case,
                    Check::Error("the case's task panicked (a runner bug)".into()),
                    Duration::ZERO,
                    false,
                    Vec::new(),
                )
            })
        })
        .collect();
    crate::pool::resolve_blocked(&mut ran);
    ran
}

impl crate::pool::Blockable for Ran {
    fn case_id(&self) -> &'static str {
        self.id
    }
    fn verdict(&mut self) -> &mut Check {
        &mut self.check
    }
}

fn ran_of(
    case: &AcpCase,
    check: Check,
    duration: Duration,
    timed_out: bool,
    transcript: Vec<crate::transcript::Entry>,
) -> Ran {
    Ran {
        id: case.id,
        requirement: case.requirement,
        level: case.level,
        description: case.description,
        check,
        duration,
        timed_out,
        transcript,
    }
}

/// A fresh scratch directory of the case (absolute, canonical: agents compare paths).
fn scratch_dir(case_id: &str) -> std::io::Result<PathBuf> {
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

async fn run_one(case: AcpCase, spec: Arc<ServerSpec>, settings: Settings) -> Ran {
    let started = Instant::now();
    let timeout = settings.timeout.saturating_mul(case.timeout_factor.max(1));
    let transcript = Transcript::with_peer(Peer::Agent);
    let scratch = match scratch_dir(case.id) {
        Ok(d) => d,
        Err(e) => {
            return ran_of(
                &case,
                Check::Error(format!("cannot create the scratch directory: {e}")),
                started.elapsed(),
                false,
                Vec::new(),
            );
        }
    };
    let procs = Arc::new(Mutex::new(Vec::new()));
    let hard = Deadline::at(started + timeout);
    let ctx = Ctx {
        case_id: case.id,
        timeout,
        scratch: scratch.clone(),
        spec,
        transcript: transcript.clone(),
        procs: procs.clone(),
        deadline: Deadline::at(crate::schedule::wait_deadline(started + timeout, timeout)),
        hard: hard.clone(),
    };
    let guarded = crate::pool::guard((case.check)(ctx), started, &hard, &procs, &transcript);
    let (check, timed_out) = guarded.await.into_check(
        &format!(
            "a verdict within the case timeout of {} ms",
            timeout.as_millis()
        ),
        "agent",
    );
    let _ = std::fs::remove_dir_all(&scratch);
    ran_of(
        &case,
        check,
        started.elapsed(),
        timed_out,
        transcript.entries(),
    )
}

/// The discovery handshake before any case: a fresh agent's `initialize` result (for the
/// report's `agentInfo` and protocol version), its group killed afterwards. An agent that does
/// not start or initialize is the runner's error (exit 2), with the transcript to show why.
pub async fn discover(
    spec: Arc<ServerSpec>,
    timeout: Duration,
) -> Result<Value, (String, Vec<crate::transcript::Entry>)> {
    let started = Instant::now();
    let transcript = Transcript::with_peer(Peer::Agent);
    let procs = Arc::new(Mutex::new(Vec::new()));
    let ctx = Ctx {
        case_id: "discovery",
        timeout,
        scratch: std::env::temp_dir(),
        spec,
        transcript: transcript.clone(),
        procs: procs.clone(),
        deadline: Deadline::at(started + timeout),
        hard: Deadline::at(started + timeout),
    };
    let found = match ctx.spawn(Caps::NONE) {
        Ok(mut agent) => match agent.initialize(Caps::NONE, json!(PROTOCOL_VERSION)).await {
            Ok(answer) => match answer.get("result") {
                Some(r) if r.is_object() => Ok(r.clone()),
                _ => Err(format!("initialize was answered {}", show(&answer))),
            },
            Err(c) => Err(describe(&c)),
        },
        Err(c) => Err(describe(&c)),
    };
    let handles: Vec<ProcHandle> = procs
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .drain(..)
        .collect();
    for h in handles {
        h.shutdown().await;
    }
    found.map_err(|e| (e, transcript.entries()))
}

fn describe(c: &Check) -> String {
    match c {
        Check::Fail { expected, actual } | Check::Violation { expected, actual } => {
            format!("expected {expected}, got {actual}")
        }
        Check::Error(e) | Check::Skip(e) => e.clone(),
        other => format!("{other:?}"),
    }
}
