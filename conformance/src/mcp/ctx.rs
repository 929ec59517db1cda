//! What an MCP case's check gets ([`Ctx`]): the run's settings, the shared discovery, the
//! case's tool family, and a way to start servers (on the scheduler's [`Scope`], which kills
//! them afterwards) whose exchanges the cross-cutting rules see.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::core::checks::reorder_window;
use crate::core::client::{Client, ClientError};
use crate::core::model::Check;
use crate::core::schedule::Scope;
use crate::mcp::discovery::{DEFAULT_VERSION, Discovery};
use crate::mcp::profile::Profile;
use crate::mcp::revision::{Era, Revision};
use crate::mcp::revision_probe::Support;
use crate::mcp::roles::{Expected, FakeKind, Family, Role, Roles};
use crate::mcp::target::Target;
use crate::mcp::watch::{Observer, Watch};

pub use crate::core::starts::Starts;

/// The run's one line on how its cases' servers started: when no server a case started ever
/// answered though discovery's did, the server most likely runs only as its first instance.
#[must_use]
pub fn starts_verdict(starts: &Starts, runner: &str) -> Option<String> {
    starts.only_first_instance().map(|given_up| {
        format!(
            "{runner}: no server a case started answered initialize ({given_up} case(s) \
             gave up, each after two fresh servers), although the discovery session's \
             server did: the server seems to work only as its first instance (a lock \
             file, a port, state the first instance leaves behind); a server that is only \
             slow to start needs a larger --timeout-ms"
        )
    })
}

/// Whether a fresh server's silence on this first request says nothing of the request: a
/// `ping` (the probe [`Ctx::after_silence`] would send) or an `initialize` proposing a revision
/// the kit knows, as the discovery session's answered one did. Any other first request (a
/// proposal no revision uses or none, a method before `initialize`) may be one the server
/// reads and drops, which a ping after it shows.
fn proven_answered(method: &str, params: &Value) -> bool {
    method == "ping"
        || (method == "initialize"
            && params
                .get("protocolVersion")
                .and_then(Value::as_str)
                .and_then(Revision::parse)
                .is_some())
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
    pub(crate) target: Arc<Target>,
    /// The case's transcript, peers, deadlines and timeout (the scheduler's).
    pub(crate) scope: Scope,
    /// The case's place in the catalogue (for the order of cross-cutting findings).
    pub(crate) position: usize,
    /// Servers started by the case so far.
    pub(crate) servers: Arc<AtomicU32>,
    /// The revision the case is graded on ([`crate::mcp::revision::of_case`]).
    pub revision: Revision,
    /// Which revisions the server supports (discovery's probes).
    pub support: Arc<Support>,
    /// How the run's fresh servers started.
    pub(crate) starts: Arc<Starts>,
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
        self.scope.spawn(&spec, Some(Arc::new(observer)))
    }

    /// Starts a fresh server and completes the handshake proposing the case's revision (a
    /// revision-independent case's is the one discovery negotiated; [`DEFAULT_VERSION`] for a
    /// case of the stateless era, which has no handshake).
    pub async fn session(&self) -> Result<Client, Check> {
        match self.revision.era() {
            Era::Handshake => self.session_with(self.revision.date()).await,
            Era::Stateless => self.session_with(DEFAULT_VERSION).await,
        }
    }

    /// Sends `method` with `params` on a fresh connection of the case's revision: after the
    /// handshake proposing its date, or, in the stateless era, as the connection's first
    /// request in the envelope (no `initialize`). Returns the client and the whole answer.
    pub async fn request_in_revision(
        &self,
        method: &str,
        params: Value,
    ) -> Result<(Client, Value), Check> {
        match self.revision.era() {
            Era::Handshake => {
                let mut c = self.session_with(self.revision.date()).await?;
                let answer = c.request(method, Some(params)).await?;
                Ok((c, answer))
            }
            Era::Stateless => {
                self.first_answer(
                    method,
                    crate::mcp::revision::envelope(params, self.revision),
                )
                .await
            }
        }
    }

    /// Starts a fresh server and completes the handshake proposing `version`.
    pub async fn session_with(&self, version: &str) -> Result<Client, Check> {
        let (mut client, answer) = self
            .initialized(crate::mcp::discovery::init_params(Some(version)))
            .await?;
        if answer.get("result").is_none_or(|r| !r.is_object()) {
            // Discovery initialized with the same proposal, so this is the server's trouble
            // and the version case's subject: graded there once.
            return Err(Check::blocked(
                "lifecycle/initialize/version/2025-06-18",
                Check::fail("initialize to succeed", crate::core::checks::show(&answer)),
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
    /// checks) — unless a ping sent after it was answered while the request was not, for a
    /// request no revision's handshake would send (`Ctx::after_silence`).
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
        let wait = self.scope.timeout;
        for attempt in 1..=2 {
            // Room for the whole attempt, taken back once it is known what it took.
            self.scope.extend(wait);
            let started = Instant::now();
            let answered = async {
                let mut client = self.spawn()?;
                let params = (!params.is_null()).then(|| params.clone());
                let id = client.send_request(method, params).await?;
                let answer = client.response_before(&id, method, started + wait).await;
                Ok::<_, Check>((client, id, answer))
            }
            .await;
            let took = started.elapsed().min(wait);
            self.scope.shorten(wait - took);
            let (mut client, id, answer) = answered?;
            let answer = match answer {
                Err(
                    silent @ ClientError::Timeout {
                        foreign_id: false, ..
                    },
                ) if !proven_answered(method, &params) => {
                    match self.after_silence(&mut client, (&id, method), took).await? {
                        Some(late) => Ok(late),
                        None => Err(silent),
                    }
                }
                other => other,
            };
            match answer {
                Ok(answer) => {
                    client.set_start_latency(took);
                    self.starts.answered();
                    return Ok((client, answer));
                }
                Err(ClientError::Timeout {
                    foreign_id: false, ..
                }) => {
                    self.note(&format!(
                        "{method} not answered within {} ms (attempt {attempt} of 2); this \
                         server is given up",
                        took.as_millis()
                    ));
                    crate::core::process::signal_group(
                        client.pid(),
                        nix::sys::signal::Signal::SIGKILL,
                    );
                }
                Err(e) => return Err(e.into()),
            }
        }
        self.scope.mark_timed_out();
        let given_up = self.starts.gave_up(Some(self.case_id));
        let cause = if self.starts.none_answered() {
            // Nothing any case started has answered yet: one cause for every such case.
            format!(
                "no server a case started has answered yet ({} case(s) gave up so far), so \
                 the server most likely works only as its first instance (a lock file, a \
                 port, state the first instance leaves behind), or the machine is too loaded \
                 to start it: raise --timeout-ms or lower --jobs to tell",
                given_up
            )
        } else {
            "other cases' servers did, so the machine is probably overloaded: raise \
             --timeout-ms or lower --jobs"
                .to_owned()
        };
        Err(Check::Error(format!(
            "the server did not answer {method} within {} ms, twice (two fresh servers); \
             the discovery session's server did; {cause}",
            wait.as_millis()
        )))
    }

    /// A fresh server silent on its first request for the whole wait: a ping sent after it,
    /// waited for off the case's clock as a handshake is, tells a silence of the server's own
    /// from a start the machine's load delayed (stdin is ordered, so a ping answer proves the
    /// request was read first). With the ping answered, the request's own answer is still
    /// awaited a reorder window ([`reorder_window`]) and returned if it comes (`Some`); if it
    /// does not, the server read the request and dropped it: a verdict at the case's level,
    /// never the runner's `error` (GATE-LOAD-3: a peer that never answers a request fails).
    /// With no answer to the ping either, `None`: the server had not started in time.
    async fn after_silence(
        &self,
        client: &mut Client,
        (id, method): (&Value, &str),
        silent: Duration,
    ) -> Result<Option<Value>, Check> {
        let alive = Value::from(format!("{method}-then-ping"));
        client
            .send(&mcp_wire::request(&alive, "ping", None))
            .await?;
        let sent = Instant::now();
        let waited = self
            .scope
            .off_the_clock(client.response_to(&alive, &format!("a ping sent after {method}")))
            .await;
        match waited {
            // This instance started: its silence on the request is not the machine's.
            Ok(_) => self.starts.answered(),
            Err(ClientError::Timeout {
                foreign_id: false, ..
            }) => return Ok(None),
            Err(e) => return Err(e.into()),
        }
        let window = reorder_window(sent.elapsed());
        self.scope.extend(window);
        let late = client.response_within(id, method, window).await;
        self.scope.shorten(window);
        match late {
            Ok(answer) => Ok(Some(answer)),
            Err(ClientError::Timeout { .. }) => Err(Check::fail(
                format!("an answer to {method} (JSON-RPC 2.0 §4: a request gets a response)"),
                format!(
                    "no answer within {} ms, though a ping sent after it was answered: the \
                     server read the {method} and dropped it",
                    silent.as_millis()
                ),
            )),
            Err(e) => Err(e.into()),
        }
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
        self.scope.note(text);
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
