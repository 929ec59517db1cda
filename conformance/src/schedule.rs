//! The scheduler: runs the selected cases in parallel under a concurrency limit, each with its
//! own fresh server (unless it only reads the shared discovery), its own transcript and a timeout;
//! afterwards every server the case started is killed by process group, whatever happened.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::{Semaphore, mpsc};

use crate::client::{Client, Deadline, ProcHandle};
use crate::discovery::{DEFAULT_VERSION, Discovery};
use crate::model::{Case, Check, Needs, Profile};
use crate::roles::{FakeKind, Family, Role, Roles};
use crate::target::Target;
use crate::transcript::{Entry, Transcript};
use crate::watch::{Observer, Watch};

/// How much of a case's time is kept back so a waiting case fails with its own message before
/// the scheduler's timeout fires (at most; see [`wait_deadline`]).
const WAIT_MARGIN: Duration = Duration::from_millis(300);

/// The deadline a case's waits use: the case's own deadline less a margin, so a wait ends with
/// its own message before the scheduler's timeout. The margin is at most a quarter of the case's
/// timeout: a fixed 300 ms would leave nothing to wait with under `--timeout-ms 300` and fail
/// every case "within 0 ms" against a server that answers in a few.
#[must_use]
pub fn wait_deadline(case_deadline: Instant, timeout: Duration) -> Instant {
    let margin = WAIT_MARGIN.min(timeout / 4);
    case_deadline.checked_sub(margin).unwrap_or(case_deadline)
}

/// What a case's check gets: the run's settings, the shared discovery, and a way to start
/// servers that the scheduler will kill afterwards.
#[derive(Clone)]
pub struct Ctx {
    /// The profile in force.
    pub profile: Profile,
    /// Whether fake-claude drives the server (`--drive-fake`).
    pub drive_fake: bool,
    /// The shared discovery snapshot.
    pub discovery: Arc<Discovery>,
    /// The case's id (used in prompts so runs are traceable).
    pub case_id: &'static str,
    /// Whether tools that might act may be called outside the provider profile
    /// (`--allow-tool-calls`).
    pub allow_tool_calls: bool,
    /// The cross-cutting findings of the whole run.
    pub watch: Watch,
    /// The tool family the case checks (`None`: the first, or the whole listing).
    pub family: Option<&'static Family>,
    /// Variables set on every server this case starts, on top of the target's.
    pub server_env: Vec<(std::ffi::OsString, std::ffi::OsString)>,
    target: Arc<Target>,
    transcript: Transcript,
    procs: Arc<Mutex<Vec<ProcHandle>>>,
    /// The deadline every wait of the case uses ([`wait_deadline`]).
    deadline: Deadline,
    /// The case's hard deadline (the scheduler's), moved with `deadline`.
    hard: Deadline,
    /// The case's timeout.
    timeout: Duration,
    /// The case's place in the catalogue (for the order of cross-cutting findings).
    position: usize,
    /// Servers started by the case so far.
    servers: Arc<AtomicU32>,
    /// Set when a server did not answer `initialize` in time, twice.
    init_timed_out: Arc<AtomicBool>,
}

impl Ctx {
    /// Starts a fresh server (not initialized).
    pub fn spawn(&self) -> Result<Client, Check> {
        let server = self.servers.fetch_add(1, Ordering::Relaxed);
        let observer = Observer::new(self.watch.clone(), self.case_id, self.position, server);
        let spec = if self.server_env.is_empty() {
            std::borrow::Cow::Borrowed(&self.target.spec)
        } else {
            let mut with = self.target.spec.clone();
            with.env.extend(self.server_env.iter().cloned());
            std::borrow::Cow::Owned(with)
        };
        let client = Client::spawn(
            &spec,
            self.transcript.clone(),
            self.deadline.clone(),
            Some(observer),
        )
        .map_err(Check::from)?;
        self.procs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(client.handle());
        Ok(client)
    }

    /// Starts a fresh server and completes the handshake proposing [`DEFAULT_VERSION`].
    pub async fn session(&self) -> Result<Client, Check> {
        self.session_with(DEFAULT_VERSION).await
    }

    /// Starts a fresh server and completes the handshake proposing `version`.
    pub async fn session_with(&self, version: &str) -> Result<Client, Check> {
        let (mut client, answer) = self
            .initialized(crate::discovery::init_params(Some(version)))
            .await?;
        if answer.get("result").is_none_or(|r| !r.is_object()) {
            // Discovery initialized with the same proposal, so this is the server's trouble
            // and the version case's subject: graded there once.
            return Err(Check::blocked(
                "lifecycle/initialize/version/2025-06-18",
                Check::fail(
                    "initialize to succeed",
                    crate::catalogue::support::show(&answer),
                ),
            ));
        }
        client.notify("notifications/initialized", None).await?;
        Ok(client)
    }

    /// Starts a fresh server and sends `initialize` with `params`; returns the client and the
    /// whole answer. The handshake's time is not the case's: each attempt may take the whole
    /// case timeout, and the case's deadline moves out by the time a successful one took. A
    /// server that does not answer in that time is given up and another started (once); a
    /// second silence is the runner's `error` with `timed_out` (the discovery session proved
    /// the server initializes: a slow start under load says nothing about what the case
    /// checks).
    pub async fn initialized(&self, params: Value) -> Result<(Client, Value), Check> {
        self.first_answer("initialize", params).await
    }

    /// Like [`Ctx::initialized`] for any first request of a fresh server (`ping` or another
    /// method before `initialize`; `Value::Null` sends no params): the time until a new server
    /// first answers is its start, not the case's.
    pub async fn first_answer(
        &self,
        method: &str,
        params: Value,
    ) -> Result<(Client, Value), Check> {
        let wait = self.timeout;
        for attempt in 1..=2 {
            // Room for the whole attempt, taken back once it is known what it took.
            self.deadline.extend(wait);
            self.hard.extend(wait);
            let started = Instant::now();
            let answered = async {
                let mut client = self.spawn()?;
                let params = (!params.is_null()).then(|| params.clone());
                let id = client.send_request(method, params).await?;
                let answer = client.response_before(&id, method, started + wait).await;
                Ok::<_, Check>((client, answer))
            }
            .await;
            let took = started.elapsed().min(wait);
            self.deadline.shorten(wait - took);
            self.hard.shorten(wait - took);
            let (mut client, answer) = answered?;
            match answer {
                Ok(answer) => {
                    client.set_start_latency(took);
                    return Ok((client, answer));
                }
                Err(crate::client::ClientError::Timeout {
                    foreign_id: false, ..
                }) => {
                    self.note(&format!(
                        "{method} not answered within {} ms (attempt {attempt} of 2); this \
                         server is given up",
                        took.as_millis()
                    ));
                    crate::process::signal_group(client.pid(), nix::sys::signal::Signal::SIGKILL);
                }
                Err(e) => return Err(e.into()),
            }
        }
        self.init_timed_out.store(true, Ordering::Relaxed);
        Err(Check::Error(format!(
            "the server did not answer {method} within {} ms, twice (two fresh servers); \
             the discovery session's server did, so the machine is probably overloaded: raise \
             --timeout-ms or lower --jobs",
            wait.as_millis()
        )))
    }

    /// The roles found by discovery: those of the case's family when it has one.
    #[must_use]
    pub fn roles(&self) -> &Roles {
        match self.family {
            Some(f) => &f.roles,
            None => &self.discovery.roles,
        }
    }

    /// Which fake drives the roles this case calls.
    #[must_use]
    pub fn fake_kind(&self) -> FakeKind {
        self.family.map_or(FakeKind::Claude, |f| f.fake)
    }

    /// The tool name of `role`, or a failure (provider) / skip (other profiles) saying it is missing.
    pub fn role(&self, role: Role) -> Result<String, Check> {
        match self.roles().name(role) {
            Some(n) => Ok(n.to_owned()),
            None if self.profile == Profile::Provider => Err(Check::blocked(
                "tools/catalogue/roles",
                Check::fail(
                    format!("a tool with the role of {} (TOOL-1)", role.default_name()),
                    "no such tool in tools/list",
                ),
            )),
            None => Err(Check::skip(format!(
                "no tool with the role of {}",
                role.default_name()
            ))),
        }
    }

    /// The listed tool (its whole object) called `name`.
    #[must_use]
    pub fn tool(&self, name: &str) -> Option<&Value> {
        self.discovery
            .tools()
            .iter()
            .find(|t| t.get("name").and_then(Value::as_str) == Some(name))
    }

    /// Adds a note of the runner's own to the transcript.
    pub fn note(&self, text: &str) {
        self.transcript.note(text);
    }

    /// The fake executable driving the case's family, when one does.
    #[must_use]
    pub fn fake_exe(&self) -> Option<&std::path::Path> {
        match self.fake_kind() {
            FakeKind::Claude => self.target.fake_exe.as_deref(),
            FakeKind::Cursor => self.target.fake_cursor_exe.as_deref(),
        }
    }

    /// Ends a case that needs its family's fake when it does not drive the server.
    pub fn require_fake(&self) -> Result<(), Check> {
        if !self.drive_fake {
            return Err(Check::skip(
                "needs --drive-fake (fake-claude as the server's claude)",
            ));
        }
        if self.fake_kind() == FakeKind::Cursor && self.target.fake_cursor_exe.is_none() {
            return Err(Check::skip(
                "needs fake-cursor-agent as the server's cursor-agent (--fake-cursor-agent \
                 PATH, or the binary next to the runner or on PATH)",
            ));
        }
        Ok(())
    }
}

/// One finished case before grading.
#[derive(Debug, Clone)]
pub struct Ran {
    /// The case.
    pub case: Case,
    /// What the check said.
    pub check: Check,
    /// Wall time.
    pub duration: Duration,
    /// Whether the case hit its timeout.
    pub timed_out: bool,
    /// The case's transcript.
    pub transcript: Vec<Entry>,
}

/// Settings of one run of the scheduler.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// The profile.
    pub profile: Profile,
    /// Whether fake-claude drives the server.
    pub drive_fake: bool,
    /// Base per-case timeout.
    pub timeout: Duration,
    /// Cases at once.
    pub jobs: usize,
    /// `--allow-tool-calls`: call tools that might act outside the provider profile.
    pub allow_tool_calls: bool,
}

/// Runs `cases`; `progress` receives each result as it finishes. Results come back in the
/// order of `cases`. Cases start longest first (by their expected cost, [`Case::cost`]; ties in
/// catalogue order) so the slowest do not start last; cross-cutting cases ([`Needs::Crosscut`])
/// start once every other case has finished, and blocked cases are resolved against the
/// verdicts of the cases that block them ([`crate::pool::resolve_blocked`]).
pub async fn run_all(
    cases: Vec<Case>,
    target: Arc<Target>,
    discovery: Arc<Discovery>,
    watch: Watch,
    settings: Settings,
    progress: Option<mpsc::UnboundedSender<Ran>>,
) -> Vec<Ran> {
    let permits = Arc::new(Semaphore::new(settings.jobs.max(1)));
    let mut out: Vec<Option<Ran>> = vec![None; cases.len()];
    let costs: Vec<Duration> = cases.iter().map(Case::cost).collect();
    let (late, early): (Vec<usize>, Vec<usize>) = crate::pool::longest_first(&costs)
        .into_iter()
        .partition(|&i| cases[i].needs == Needs::Crosscut);
    for phase in [early, late] {
        let results = crate::pool::run_indexed(
            "mcp-conformance",
            cases.len(),
            phase,
            permits.clone(),
            progress.as_ref(),
            |index| {
                let case = cases[index];
                let target = target.clone();
                let discovery = discovery.clone();
                let watch = watch.clone();
                let position = crate::catalogue::position(case.id);
                run_one(case, position, target, discovery, watch, settings)
            },
        )
        .await;
        for (slot, r) in out.iter_mut().zip(results) {
            if r.is_some() {
                *slot = r;
            }
        }
    }
    let mut ran: Vec<Ran> = out
        .into_iter()
        .zip(cases)
        .map(|(ran, case)| {
            ran.unwrap_or_else(|| Ran {
                case,
                check: Check::Error("the case's task panicked (a runner bug)".into()),
                duration: Duration::ZERO,
                timed_out: false,
                transcript: Vec::new(),
            })
        })
        .collect();
    crate::pool::resolve_blocked(&mut ran);
    ran
}

impl crate::pool::Blockable for Ran {
    fn case_id(&self) -> &'static str {
        self.case.id
    }
    fn verdict(&mut self) -> &mut Check {
        &mut self.check
    }
}

async fn run_one(
    case: Case,
    position: usize,
    target: Arc<Target>,
    discovery: Arc<Discovery>,
    watch: Watch,
    settings: Settings,
) -> Ran {
    let started = Instant::now();
    let timeout = case.timeout(settings.timeout);
    let transcript = Transcript::new();
    let procs = Arc::new(Mutex::new(Vec::new()));
    let init_timed_out = Arc::new(AtomicBool::new(false));
    let hard = Deadline::at(started + timeout);
    let ctx = Ctx {
        profile: settings.profile,
        drive_fake: settings.drive_fake,
        discovery: discovery.clone(),
        case_id: case.id,
        allow_tool_calls: settings.allow_tool_calls,
        watch,
        family: case.family,
        server_env: Vec::new(),
        target,
        transcript: transcript.clone(),
        procs: procs.clone(),
        deadline: Deadline::at(wait_deadline(started + timeout, timeout)),
        hard: hard.clone(),
        timeout,
        position,
        servers: Arc::new(AtomicU32::new(0)),
        init_timed_out: init_timed_out.clone(),
    };
    let guarded = crate::pool::guard((case.check)(ctx), started, &hard, &procs, &transcript);
    let (check, timed_out) = guarded.await.into_check(
        &format!(
            "a verdict within the case timeout of {} ms (plus the servers' start)",
            timeout.as_millis()
        ),
        "server",
    );
    let timed_out = timed_out || init_timed_out.load(Ordering::Relaxed);
    let mut entries = if case.needs == Needs::Discovery {
        discovery.transcript.clone()
    } else {
        Vec::new()
    };
    entries.extend(transcript.entries());
    Ran {
        case,
        check,
        duration: started.elapsed(),
        timed_out,
        transcript: entries,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_case_timeout_still_leaves_most_of_it_to_wait_with() {
        let now = Instant::now();
        for ms in [100, 300, 400, 1_000] {
            let timeout = Duration::from_millis(ms);
            let wait = wait_deadline(now + timeout, timeout);
            assert!(
                wait >= now + timeout * 3 / 4,
                "--timeout-ms {ms}: waits end {:?} after the start",
                wait.duration_since(now)
            );
            assert!(wait < now + timeout, "the margin is never zero");
        }
        let long = Duration::from_secs(10);
        assert_eq!(
            wait_deadline(now + long, long),
            now + long - WAIT_MARGIN,
            "long cases keep the full margin"
        );
    }
}
