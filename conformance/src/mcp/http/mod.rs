//! The Streamable HTTP side of the MCP gate (`mcp-conformance --url`): its own gate type (a
//! check gets an [`HttpCtx`] on the case's scope), the runner the one scheduler drives, and
//! the handshake every case starts from. The transport's own rules are the cases of
//! [`cases`] (2025-11-25's own in [`rev_2025_11_25`]); each case opens its own session, as the
//! stdio cases start their own server.

pub mod cases;
pub mod rev_2025_11_25;
pub mod run;

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::core::case::Gate;
use crate::core::http::{HttpClient, HttpRequest, HttpResponse, HttpTarget};
use crate::core::model::{Check, Level};
use crate::core::schedule::{Made, Runner, Scope};
use crate::mcp::discovery::{DEFAULT_VERSION, init_params};
use crate::mcp::profile::Profile;
use crate::mcp::revision::Revision;

/// The case every other HTTP case's handshake depends on (`blocked_by` when it cannot run).
pub const ANSWER_CASE: &str = "transport/http/post/answer";

/// The MCP gate over Streamable HTTP.
#[derive(Debug, Clone, Copy)]
pub struct McpHttp;

impl Gate for McpHttp {
    type Ctx = HttpCtx;
    /// One level under every profile: the transport's rules are the specification's.
    type Levels = Level;
    type Variant = ();
    type Profile = Profile;

    fn level(levels: &Level, _profile: Profile) -> Option<Level> {
        Some(*levels)
    }
}

/// One HTTP case.
pub type Case = crate::core::case::Case<McpHttp>;

/// The Markdown table of the transport's own cases (docs/conformance.md, generated): id, level,
/// the contract's rule and what is checked.
#[must_use]
pub fn markdown(cases: &[Case]) -> String {
    use std::fmt::Write as _;
    let mut out = String::from("| Id | Level | Rule | What is checked |\n|---|---|---|---|\n");
    for c in cases {
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} |",
            c.id,
            c.levels.name(),
            c.requirement,
            c.description.replace('|', "\\|")
        );
    }
    out
}

/// The revision an HTTP case is graded on: the one its id names (`ID@DATE`, or a pinned
/// case's `/DATE` tail), else the default the other cases' handshakes propose.
#[must_use]
pub fn revision_of(id: &str) -> Revision {
    crate::mcp::revision::of_instance(id)
        .or_else(|| id.rsplit_once('/').and_then(|(_, d)| Revision::parse(d)))
        .unwrap_or(Revision::DEFAULT)
}

/// What an HTTP case's check gets: a client of the endpoint on the case's transcript and
/// deadline, and the revisions the run may grade.
#[derive(Debug, Clone)]
pub struct HttpCtx {
    /// The client.
    pub client: HttpClient,
    /// The revisions chosen (`--revision`; every known one when none) less those discovery
    /// found the server does not support (when the catalogue ran beside).
    pub revisions: Arc<Vec<Revision>>,
}

/// A session opened by [`HttpCtx::session`].
#[derive(Debug, Clone)]
pub struct Session {
    /// The `Mcp-Session-Id` the server issued with the `InitializeResult`, if any.
    pub id: Option<String>,
    /// The revision the server answered.
    pub version: String,
    /// The answer to `notifications/initialized`.
    pub initialized: HttpResponse,
}

impl HttpCtx {
    /// POSTs `message` with the session's headers (`Mcp-Session-Id` when one was issued,
    /// `MCP-Protocol-Version` of the negotiated revision).
    #[must_use]
    pub fn post_in(session: &Session, message: &Value) -> HttpRequest {
        let req = HttpRequest::post(message).header("mcp-protocol-version", &session.version);
        match &session.id {
            Some(id) => req.header("mcp-session-id", id),
            None => req,
        }
    }

    /// Sends `req`; the runner's own trouble (no connection, no head by the deadline) ends
    /// the case as a failure of the endpoint to answer.
    pub async fn send(&self, req: HttpRequest) -> Result<HttpResponse, Check> {
        self.client
            .send(req)
            .await
            .map_err(|e| Check::fail("an HTTP response", e.to_string()))
    }

    /// `initialize` (proposing [`DEFAULT_VERSION`]) and `notifications/initialized`: the
    /// session every case starts from. A failed handshake is [`ANSWER_CASE`]'s finding.
    pub async fn session(&self) -> Result<Session, Check> {
        self.handshake(DEFAULT_VERSION).await
    }

    /// A session of `revision`, for a case graded on it: a `skip` when the run does not grade
    /// it (not chosen, or not supported as discovery found) or when the server's answer to
    /// `initialize` proposing it names another date (the revision is not supported).
    pub async fn session_on(&self, revision: Revision) -> Result<Session, Check> {
        if !self.revisions.contains(&revision) {
            return Err(Check::skip(format!(
                "revision not supported: {revision} is not among the revisions graded \
                 (--revision, and those the server was found to support)"
            )));
        }
        let session = self.handshake(revision.date()).await?;
        if session.version != revision.date() {
            return Err(Check::skip(format!(
                "revision not supported: initialize proposing {revision} was answered with \
                 protocolVersion {:?}",
                session.version
            )));
        }
        Ok(session)
    }

    async fn handshake(&self, date: &str) -> Result<Session, Check> {
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                          "params": init_params(Some(date))});
        let resp = self.send(HttpRequest::post(&init)).await.map_err(blocked)?;
        let Some(answer) = resp.response_to(&json!(0)) else {
            return Err(blocked(Check::fail(
                "an InitializeResult to initialize",
                describe(&resp),
            )));
        };
        let Some(version) = answer
            .pointer("/result/protocolVersion")
            .and_then(Value::as_str)
        else {
            return Err(blocked(Check::fail(
                "an InitializeResult to initialize",
                crate::core::checks::show(&answer),
            )));
        };
        let mut session = Session {
            id: resp.header("mcp-session-id").map(str::to_owned),
            version: version.to_owned(),
            initialized: resp,
        };
        let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        session.initialized = self.send(Self::post_in(&session, &note)).await?;
        Ok(session)
    }
}

/// A handshake that failed: graded once, by [`ANSWER_CASE`].
fn blocked(fallback: Check) -> Check {
    Check::blocked(ANSWER_CASE, fallback)
}

/// A response in a finding's words: status, content type, and what the body held.
#[must_use]
pub fn describe(resp: &HttpResponse) -> String {
    resp.shown()
}

/// The runner of the HTTP cases.
#[derive(Debug)]
pub struct HttpRunner {
    /// The endpoint under test.
    pub target: Arc<HttpTarget>,
    /// The revisions the run may grade ([`HttpCtx::revisions`]).
    pub revisions: Arc<Vec<Revision>>,
}

impl Runner for HttpRunner {
    type Gate = McpHttp;

    fn name(&self) -> &'static str {
        "mcp-conformance"
    }

    fn peer(&self) -> &'static str {
        "server"
    }

    fn timeout_expected(&self, timeout: Duration) -> String {
        format!(
            "a verdict within the case timeout of {} ms",
            timeout.as_millis()
        )
    }

    fn context(&self, _case: &Case, scope: Scope) -> Result<Made<McpHttp>, Check> {
        let client = HttpClient::new(
            (*self.target).clone(),
            scope.transcript.clone(),
            scope.deadline.clone(),
        );
        Ok((
            HttpCtx {
                client,
                revisions: self.revisions.clone(),
            },
            Box::new(()),
        ))
    }
}
