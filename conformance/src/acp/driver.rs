//! The agent-mode driver: one agent process under test, spoken to through the shared raw-stdio
//! [`Client`] (bounded frames, transcript, group kill), with the runner's client side answering
//! the agent's requests ([`super::responder`]). It knows the ACP handshake and the prompt turn,
//! and turns an agent that needs an account into a `skip` with the agent's own answer.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use super::responder::{Permission, State};
use crate::core::checks::show;
use crate::core::client::{Client, ClientError, Frame, error_code};
use crate::core::model::{Check, Gap};

/// The ACP protocol version the runner speaks.
pub const PROTOCOL_VERSION: u64 = 1;

/// The `clientCapabilities` the runner advertises.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caps {
    /// `fs.readTextFile` and `fs.writeTextFile` (served in the scratch directory).
    pub fs: bool,
    /// `terminal` (every `terminal/*` method, served in the scratch directory).
    pub terminal: bool,
}

impl Caps {
    /// Nothing advertised: the agent must not call `fs/*` or `terminal/*`.
    pub const NONE: Self = Self {
        fs: false,
        terminal: false,
    };
    /// `fs/*` advertised and served.
    pub const FS: Self = Self {
        fs: true,
        terminal: false,
    };
    /// `terminal/*` advertised and served (only in the case that grades its use).
    pub const TERMINAL: Self = Self {
        fs: false,
        terminal: true,
    };

    /// The `initialize` params proposing `version`.
    #[must_use]
    pub fn init_params(self, version: Value) -> Value {
        json!({
            "protocolVersion": version,
            "clientCapabilities": {
                "fs": {"readTextFile": self.fs, "writeTextFile": self.fs},
                "terminal": self.terminal
            },
            "clientInfo": {"name": "acp-conformance", "version": env!("CARGO_PKG_VERSION")}
        })
    }
}

/// One prompt turn as the runner saw it.
#[derive(Debug, Clone, Default)]
pub struct Turn {
    /// The whole answer to `session/prompt`.
    pub answer: Value,
    /// Every `session/update` notification's params, in order.
    pub updates: Vec<Value>,
    /// Every other message of the agent during the turn (requests, other notifications).
    pub other: Vec<Value>,
    /// Lines on stdout that were not JSON.
    pub garbage: usize,
}

impl Turn {
    /// The `stopReason`, when the answer has one.
    #[must_use]
    pub fn stop_reason(&self) -> Option<&str> {
        self.answer
            .pointer("/result/stopReason")
            .and_then(Value::as_str)
    }

    /// A case whose own subject is how a turn ends needs a turn that ends with a `stopReason`.
    /// A result without one is the defect of [`PROMPT_RULE`] (which grades every prompt's
    /// answer): blocked by it, failing as `expected` when that rule holds in the run. An error
    /// answer, or a result with a `stopReason`, is the case's to grade (`Ok`).
    pub fn ended(&self, expected: impl Into<String>) -> Result<(), Check> {
        without_stop_reason(&self.answer, expected)
    }
}

/// The case that grades the answer to every `session/prompt`: a result with a `stopReason` of
/// the enum (schema PromptResponse). A case that needs an ended turn as its precondition is
/// blocked by it (one defect, one verdict).
pub const PROMPT_RULE: &str = "prompt/stop-reason";

/// `Err` (blocked by [`PROMPT_RULE`], else `expected`) when `answer` is a result without a
/// string `stopReason`; shown as missing, never as an empty reason.
pub fn without_stop_reason(answer: &Value, expected: impl Into<String>) -> Result<(), Check> {
    match answer.get("result") {
        Some(result) if result.get("stopReason").and_then(Value::as_str).is_none() => {
            let what = match result.get("stopReason") {
                None | Some(Value::Null) => "a result with no stopReason".to_owned(),
                Some(other) => format!("a stopReason that is not a string ({other})"),
            };
            Err(Check::blocked(
                PROMPT_RULE,
                Check::fail(expected, format!("{what}: {}", show(answer))),
            ))
        }
        _ => Ok(()),
    }
}

/// `Err` (blocked by [`PROMPT_RULE`], else `expected`) when `answer` is a result whose
/// `stopReason` is a string outside the schema's StopReason enum. For a case whose subject is
/// which reason a turn ends with (`cancelled` after `session/cancel`), a reason of no meaning
/// is prompt/stop-reason's defect when every turn ends with it; when only this case's turn
/// does, prompt/stop-reason passes and the case fails with `expected` (one defect, one verdict).
pub fn outside_the_enum(answer: &Value, expected: impl Into<String>) -> Result<(), Check> {
    let Some(reason) = answer.pointer("/result/stopReason").and_then(Value::as_str) else {
        return Ok(());
    };
    if super::schema::stop_reasons().iter().any(|r| r == reason) {
        return Ok(());
    }
    Err(Check::blocked(
        PROMPT_RULE,
        Check::fail(
            expected,
            format!(
                "stopReason {reason:?}, which is not of the StopReason enum: {}",
                show(answer)
            ),
        ),
    ))
}

/// A turn that never ended (no answer to `session/prompt` before the case's deadline, or the
/// agent gone): the defect of [`PROMPT_RULE`], so a case that needed the turn is blocked by it
/// rather than failed on a subject it never saw. Runner errors stay errors.
#[must_use]
pub fn unanswered(check: Check) -> Check {
    if check.is_fail() {
        Check::blocked(PROMPT_RULE, check)
    } else {
        check
    }
}

/// A started agent.
#[derive(Debug)]
pub struct Agent {
    /// The connection.
    pub client: Client,
    /// The client side's state (what it served, the agent's requests).
    pub state: Arc<State>,
    /// The `initialize` result, once initialized.
    pub init: Value,
}

/// The skip of a turn case whose agent needs an account: never a failure (spec: "agents that
/// need an account"), but a case left ungraded for want of an account ([`Gap::Account`]),
/// counted against the coverage.
#[must_use]
pub fn needs_account(answer: &Value) -> Option<Check> {
    let code = error_code(answer)?;
    let message = answer
        .pointer("/error/message")
        .and_then(Value::as_str)
        .unwrap_or("");
    let auth = code == mcp_wire::code::SERVER_ERROR
        || message.to_ascii_lowercase().contains("auth")
        || message.to_ascii_lowercase().contains("login");
    auth.then(|| {
        Check::ungraded(
            Gap::Account,
            format!(
                "the agent answered {code} {message:?}: it needs an account (ACP initialization: \
             authMethods), so this turn case cannot be checked without credentials"
            ),
        )
    })
}

impl Agent {
    /// Sends `initialize` proposing `version` and returns the whole answer (the result is kept
    /// in [`Agent::init`] when there is one).
    pub async fn initialize(&mut self, caps: Caps, version: Value) -> Result<Value, Check> {
        Ok(self.initialize_raw(caps, version).await?)
    }

    /// [`Agent::initialize`], with the client's error as it is (a silence told apart from a
    /// closed connection: [`crate::acp::ctx::Ctx::first_answer`]).
    pub async fn initialize_raw(
        &mut self,
        caps: Caps,
        version: Value,
    ) -> Result<Value, ClientError> {
        if caps.terminal {
            // Served from the moment it is advertised; a wait never outlasts the case.
            self.state
                .serve_terminals(std::time::Instant::now() + self.client.remaining());
        }
        let answer = self
            .client
            .request("initialize", Some(caps.init_params(version)))
            .await?;
        if let Some(r) = answer.get("result") {
            self.init = r.clone();
        }
        Ok(answer)
    }

    /// `session/new` with `params` as given; the whole answer.
    pub async fn new_session_raw(&mut self, params: Value) -> Result<Value, Check> {
        Ok(self.client.request("session/new", Some(params)).await?)
    }

    /// Like [`Agent::new_session`], returning the whole result.
    pub async fn new_session_result(&mut self, cwd: &str) -> Result<Value, Check> {
        let answer = self
            .new_session_raw(json!({"cwd": cwd, "mcpServers": []}))
            .await?;
        if let Some(skip) = needs_account(&answer) {
            return Err(skip);
        }
        match answer.get("result") {
            Some(r) if r.get("sessionId").is_some_and(Value::is_string) => Ok(r.clone()),
            _ => Err(Check::blocked(
                "session/new/absolute-cwd",
                Check::fail(
                    "a session/new result with a sessionId (ACP session-setup)",
                    show(&answer),
                ),
            )),
        }
    }

    /// `session/new` with `cwd` and `mcpServers: []`; returns the session id. An answer saying
    /// the agent needs an account is a skip; any other error fails (ACP session-setup).
    pub async fn new_session(&mut self, cwd: &str) -> Result<String, Check> {
        let result = self.new_session_result(cwd).await?;
        Ok(result
            .get("sessionId")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned())
    }

    /// Sends `session/prompt` and returns its id (for turns the case drives itself).
    pub async fn send_prompt(&mut self, session: &str, prompt: Value) -> Result<Value, Check> {
        Ok(self
            .client
            .send_request(
                "session/prompt",
                Some(json!({"sessionId": session, "prompt": prompt})),
            )
            .await?)
    }

    /// One whole turn: `session/prompt`, the agent's requests answered as [`State`] says,
    /// every update kept. An answer saying the agent needs an account is a skip.
    pub async fn prompt(&mut self, session: &str, prompt: Value) -> Result<Turn, Check> {
        let id = self.send_prompt(session, prompt).await?;
        let answer = self
            .client
            .response_to(&id, "session/prompt")
            .await
            .map_err(|e| unanswered(e.into()))?;
        if let Some(skip) = needs_account(&answer) {
            return Err(skip);
        }
        // Updates sent just before the answer are read already; a short grace catches those a
        // concurrent writer put after it.
        let mut turn = self.take_turn(Duration::from_millis(50)).await?;
        turn.answer = answer;
        Ok(turn)
    }

    /// Everything the agent sent so far (plus `grace` more), split into updates and the rest.
    pub async fn take_turn(&mut self, grace: Duration) -> Result<Turn, Check> {
        let frames = self.client.collect(grace).await?;
        let mut turn = Turn::default();
        for f in frames {
            match f {
                Frame::Json(m)
                    if m.get("method").and_then(Value::as_str) == Some("session/update") =>
                {
                    turn.updates
                        .push(m.get("params").cloned().unwrap_or(Value::Null));
                }
                Frame::Json(m) => turn.other.push(m),
                _ => turn.garbage += 1,
            }
        }
        Ok(turn)
    }

    /// The answer to request `id` if it comes within `wait` (`None` if not yet; other frames are
    /// kept for [`Agent::take_turn`], the agent's requests answered meanwhile).
    pub async fn answer_within(
        &mut self,
        id: &Value,
        what: &str,
        wait: Duration,
    ) -> Result<Option<Value>, Check> {
        match self.client.response_within(id, what, wait).await {
            Ok(v) => Ok(Some(v)),
            Err(crate::core::client::ClientError::Timeout { .. })
                if self.client.remaining() > Duration::ZERO =>
            {
                Ok(None)
            }
            Err(e) => Err(e.into()),
        }
    }

    /// The agent's first request with `method` so far, if any.
    #[must_use]
    pub fn request_seen(&self, method: &str) -> Option<Value> {
        self.state
            .requests()
            .into_iter()
            .find(|r| r.get("method").and_then(Value::as_str) == Some(method))
    }

    /// A text prompt.
    #[must_use]
    pub fn text(text: &str) -> Value {
        json!([{"type": "text", "text": text}])
    }

    /// Cancels the session's turn as ACP's client does (docs prompt-turn#cancellation): the
    /// `session/cancel` notification, then every permission request the case held answered
    /// `cancelled`, and later ones too.
    pub async fn cancel(&mut self, session: &str) -> Result<(), Check> {
        self.client
            .notify("session/cancel", Some(json!({"sessionId": session})))
            .await?;
        for id in self.state.cancel_held() {
            self.client
                .send(&mcp_wire::response(
                    &id,
                    json!({"outcome": {"outcome": "cancelled"}}),
                ))
                .await?;
        }
        Ok(())
    }

    /// Sets how permission requests are answered from now on.
    pub fn permission(&self, p: Permission) {
        self.state.set_permission(p);
    }

    /// The prompt capability `key` (`image`, `audio`, `embeddedContext`) the agent advertised.
    #[must_use]
    pub fn prompt_capability(&self, key: &str) -> bool {
        self.init
            .pointer(&format!("/agentCapabilities/promptCapabilities/{key}"))
            .and_then(Value::as_bool)
            .unwrap_or(false)
    }
}
