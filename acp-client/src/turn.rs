//! One prompt turn (ACP-2, ACP-3, ACP-6, ACP-7, ACP-8, ACP-11, ACP-12): the handshake, the prompt, the cancel.
//! The client never kills the agent: the caller owns its process group and ends it after every
//! turn (Cursor never exits on stdin EOF after a turn).

use mcp_wire::message::{self, ErrorObject, code};
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::watch;
use tokio::time::Instant;

use crate::config::{PermissionMode, TurnConfig};
use crate::conn::{Conn, Waited};
use crate::outbound::{
    CancelParams, InitializeParams, LoadSessionParams, NewSessionParams, PROTOCOL_VERSION,
    PromptParams, SetModeParams, TextBlock, to_value,
};
use crate::policy::AgentRequestPolicy;
use crate::report::{TurnOutcome, TurnReport};

/// Runs one turn against an agent already started: `agent_stdout` is read, `agent_stdin` written,
/// every agent line and the client's records go to `events` (see the crate docs). Returns when
/// `session/prompt` is answered, a handshake step fails, the agent closes, or after a cancel.
pub async fn run_turn<R, W, E>(
    agent_stdout: R,
    agent_stdin: W,
    events: E,
    cfg: &TurnConfig,
    policy: &dyn AgentRequestPolicy,
    cancel: watch::Receiver<bool>,
) -> TurnReport
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send,
    E: AsyncWrite + Unpin + Send,
{
    let mut conn = Conn::new(agent_stdout, agent_stdin, events, cfg, policy, cancel);
    let outcome = turn(&mut conn, cfg).await;
    conn.drain().await;
    let mut report = conn.report;
    report.outcome = outcome;
    report.events_error = conn.events.error;
    report
}

/// The result of one handshake step: its result, or the outcome that ends the turn.
type Step = Result<Value, TurnOutcome>;

async fn turn<R, W, E>(conn: &mut Conn<'_, R, W, E>, cfg: &TurnConfig) -> TurnOutcome
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send,
    E: AsyncWrite + Unpin + Send,
{
    let Some(cwd) = cfg.cwd.to_str().filter(|_| cfg.cwd.is_absolute()) else {
        return TurnOutcome::InvalidConfig {
            detail: format!(
                "cwd must be an absolute UTF-8 path, got {}",
                cfg.cwd.display()
            ),
        };
    };
    if conn.cancel_requested() {
        return TurnOutcome::CancelledDuringHandshake { step: "initialize" };
    }

    // ACP-2: initialize. `authenticate` is never sent, whatever `authMethods` says.
    let init = match step(
        conn,
        cfg,
        "initialize",
        to_value(InitializeParams::new(&cfg.client_info)),
    )
    .await
    {
        Ok(result) => result,
        Err(outcome) => return outcome,
    };
    // ACP-12: a strict client: the answer must be an InitializeResponse.
    if let Err(detail) = check_initialize(&init) {
        return TurnOutcome::InvalidResponse {
            step: "initialize",
            detail,
        };
    }
    let capabilities = init.get("agentCapabilities").cloned();
    let load_session = capabilities
        .as_ref()
        .and_then(|c| c.get("loadSession"))
        .and_then(Value::as_bool)
        == Some(true);
    conn.report.agent_capabilities = capabilities;
    conn.report.agent_identity = crate::report::AgentIdentity::of(&init);

    // ACP-8: session/load only when advertised; otherwise nothing more is sent.
    let offered_modes;
    let session_id = match &cfg.resume_session_id {
        Some(_) if !load_session => return TurnOutcome::ResumeUnsupported,
        Some(id) => {
            let params = to_value(LoadSessionParams {
                session_id: id,
                cwd,
                mcp_servers: [],
            });
            match session_step(conn, cfg, "session/load", params).await {
                Ok(result) => offered_modes = advertised_modes(&result),
                Err(outcome) => return outcome,
            }
            id.clone()
        }
        None => {
            let params = to_value(NewSessionParams {
                cwd,
                mcp_servers: [],
            });
            let result = match session_step(conn, cfg, "session/new", params).await {
                Ok(result) => result,
                Err(outcome) => return outcome,
            };
            offered_modes = advertised_modes(&result);
            match result.get("sessionId").and_then(Value::as_str) {
                Some(id) => id.to_owned(),
                None => {
                    return TurnOutcome::InvalidResponse {
                        step: "session/new",
                        detail: "the result carries no string sessionId".to_owned(),
                    };
                }
            }
        }
    };
    conn.report.session_id = Some(session_id.clone());
    conn.session_id = Some(session_id.clone());

    // ACP-4: plan mode goes through session/set_mode (Cursor ignores `--mode plan`). ACP-11:
    // never more power than asked: a mode the agent does not advertise, or a switch it refuses,
    // ends the turn before the prompt.
    if cfg.permission_mode == PermissionMode::Plan {
        let mode = "plan";
        if !offered_modes.iter().any(|m| m == mode) {
            return TurnOutcome::ModeUnavailable {
                mode,
                offered: offered_modes,
                error: None,
            };
        }
        let params = to_value(SetModeParams {
            session_id: &session_id,
            mode_id: mode,
        });
        match step(conn, cfg, "session/set_mode", params).await {
            Ok(_) => {}
            Err(TurnOutcome::HandshakeError { error, .. }) => {
                return TurnOutcome::ModeUnavailable {
                    mode,
                    offered: offered_modes,
                    error: Some(error),
                };
            }
            Err(outcome) => return outcome,
        }
    }

    prompt(conn, cfg, &session_id).await
}

/// ACP-12: whether an `initialize` result is a valid `InitializeResponse` of protocol 1: an
/// object with `protocolVersion` 1, `agentCapabilities` an object (or `null`, read as absent)
/// and `authMethods` an array when present.
fn check_initialize(init: &Value) -> Result<(), String> {
    let Some(obj) = init.as_object() else {
        return Err(format!(
            "the result is {}, not an InitializeResponse object",
            kind_of(init)
        ));
    };
    match obj.get("protocolVersion") {
        None => return Err("the result carries no protocolVersion".to_owned()),
        Some(v) if v.as_u64() != Some(PROTOCOL_VERSION) => {
            let shown = bounded(&v.to_string());
            return Err(format!(
                "the agent answered protocolVersion {shown}; this client speaks 1"
            ));
        }
        Some(_) => {}
    }
    if obj
        .get("agentCapabilities")
        .is_some_and(|c| !c.is_object() && !c.is_null())
    {
        return Err("agentCapabilities is not an object".to_owned());
    }
    if obj.get("authMethods").is_some_and(|m| !m.is_array()) {
        return Err("authMethods is not an array".to_owned());
    }
    Ok(())
}

/// The JSON type of `v`, in words.
fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A value's text cut to a few dozen bytes for a message.
fn bounded(text: &str) -> String {
    crate::report::truncate(text, 64).to_owned()
}

/// Longest mode id kept, and how many are kept (the error names them).
const MODE_ID_MAX: usize = 64;
const MODES_MAX: usize = 32;

/// The mode ids a `session/new` or `session/load` answer advertises (`modes.availableModes[].id`,
/// ACP-11), bounded.
fn advertised_modes(result: &Value) -> Vec<String> {
    result
        .pointer("/modes/availableModes")
        .and_then(Value::as_array)
        .map(|modes| {
            modes
                .iter()
                .filter_map(|m| m.get("id").and_then(Value::as_str))
                .filter(|id| id.len() <= MODE_ID_MAX)
                .take(MODES_MAX)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// A bounded handshake step.
async fn step<R, W, E>(
    conn: &mut Conn<'_, R, W, E>,
    cfg: &TurnConfig,
    name: &'static str,
    params: Value,
) -> Step
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send,
    E: AsyncWrite + Unpin + Send,
{
    let deadline = Instant::now() + cfg.step_timeout;
    match conn.call(name, params, Some(deadline), true).await {
        Waited::Answer(Ok(result)) => Ok(result),
        Waited::Answer(Err(error)) => Err(TurnOutcome::HandshakeError { step: name, error }),
        Waited::Timeout => Err(TurnOutcome::HandshakeTimeout {
            step: name,
            after: cfg.step_timeout,
        }),
        Waited::Closed(detail) => Err(TurnOutcome::AgentClosed { step: name, detail }),
        Waited::Cancelled => Err(TurnOutcome::CancelledDuringHandshake { step: name }),
    }
}

/// `session/new` or `session/load`: an auth-required error is its own outcome (ACP-2).
async fn session_step<R, W, E>(
    conn: &mut Conn<'_, R, W, E>,
    cfg: &TurnConfig,
    name: &'static str,
    params: Value,
) -> Step
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send,
    E: AsyncWrite + Unpin + Send,
{
    step(conn, cfg, name, params)
        .await
        .map_err(|outcome| match outcome {
            TurnOutcome::HandshakeError { step, error } if is_auth_required(&error) => {
                TurnOutcome::AuthRequired { step, error }
            }
            other => other,
        })
}

/// ACP's "Authentication required" is `-32000`; an agent that uses another code but says so in
/// its message counts too.
pub(crate) fn is_auth_required(error: &ErrorObject) -> bool {
    let message = error.message.to_ascii_lowercase();
    error.code == code::SERVER_ERROR || (message.contains("auth") && message.contains("required"))
}

/// ACP-3, ACP-6, ACP-7: the prompt, answered or cancelled.
async fn prompt<R, W, E>(
    conn: &mut Conn<'_, R, W, E>,
    cfg: &TurnConfig,
    session_id: &str,
) -> TurnOutcome
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send,
    E: AsyncWrite + Unpin + Send,
{
    let params = to_value(PromptParams {
        session_id,
        prompt: [TextBlock::new(&cfg.prompt)],
    });
    conn.prompting = true;
    let waited = conn.call("session/prompt", params, None, true).await;
    let waited = match waited {
        Waited::Cancelled => {
            // ACP-7: session/cancel, then later permission requests are answered cancelled,
            // then a bounded wait for the prompt's answer.
            conn.cancelled = true;
            let frame = message::notification(
                "session/cancel",
                Some(to_value(CancelParams { session_id })),
            );
            let sent = conn.send(&frame).await;
            conn.events
                .record(&json!({"acp_client": "cancel", "sent": sent.is_ok()}))
                .await;
            if sent.is_err() {
                return TurnOutcome::CancelledUnanswered;
            }
            let deadline = Instant::now() + cfg.cancel_grace;
            match conn.wait_pending(deadline).await {
                Waited::Timeout | Waited::Cancelled => return TurnOutcome::CancelledUnanswered,
                other => other,
            }
        }
        other => other,
    };
    // ACP-10: whatever is read from here on is not the turn's.
    conn.settled = true;
    match waited {
        Waited::Answer(Ok(response)) => TurnOutcome::Completed {
            stop_reason: response
                .get("stopReason")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            response,
        },
        Waited::Answer(Err(error)) => TurnOutcome::PromptError { error },
        Waited::Closed(detail) => TurnOutcome::AgentClosed {
            step: "session/prompt",
            detail,
        },
        Waited::Timeout | Waited::Cancelled => TurnOutcome::CancelledUnanswered,
    }
}
