//! The client-mode checks: each reads the agent-side wire of its own run ([`Ran`]) and returns
//! a [`Check`]. Shared here: finding the ACP agent process and the turn, and saying what the
//! client did at the end (for a finding's `actual`).

pub mod cancel;
pub mod lifecycle;
pub mod permission;
pub mod requests;

use serde_json::Value;

use super::config::ClientModeConfig;
use super::run::Ran;
use super::wire::AgentRequest;
use crate::core::model::Check;

/// The ACP agent process of the run and the client's `session/prompt` line's time, or the
/// [`Check`] that ends the case: the runner could not even get to a turn.
pub fn turn(ran: &Ran) -> Result<(u32, u64), Check> {
    if let Some(e) = &ran.facts.spawn_error {
        return Err(Check::Error(e.clone()));
    }
    let Some(pid) = ran.wire.acp_pid() else {
        return Err(Check::Error(format!(
            "precondition not met: the client never spoke to the scripted agent it was given \
             (no line reached it); client {}{}",
            ran.facts
                .client_exit
                .as_deref()
                .unwrap_or("still running at the case timeout"),
            stderr_hint(ran)
        )));
    };
    let Some((ms, _)) = ran.wire.client_request(pid, "session/prompt") else {
        return Err(Check::Error(format!(
            "precondition not met: the client sent no session/prompt, so there was no turn to \
             check; {}",
            ending(ran, pid)
        )));
    };
    Ok((pid, ms))
}

/// What the client did at the end, for a finding.
#[must_use]
pub fn ending(ran: &Ran, pid: u32) -> String {
    let eof = ran.wire.eof_ms(pid).map_or_else(
        || "never closed the agent's stdin".to_owned(),
        |ms| format!("closed the agent's stdin at {ms} ms"),
    );
    let exit = ran.facts.client_exit.as_deref().map_or_else(
        || "was still running at the case timeout".to_owned(),
        |e| format!("ended ({e})"),
    );
    format!("the client {eof} and {exit}{}", stderr_hint(ran))
}

fn stderr_hint(ran: &Ran) -> String {
    let last = ran
        .facts
        .client_stderr
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty());
    last.map_or_else(String::new, |l| {
        format!(
            "; its stderr ends: {}",
            crate::core::transcript::clip_to(l.as_bytes(), 200)
        )
    })
}

/// `method (id X)`.
#[must_use]
pub fn label(r: &AgentRequest) -> String {
    format!("{} (id {})", r.method, r.id)
}

/// A short form of a client's answer: `selected <id>`, `cancelled`, `error <code>`, `result`.
#[must_use]
pub fn answer_kind(answer: &Value) -> String {
    if let Some(e) = answer.get("error") {
        return format!("error {}", e.get("code").unwrap_or(&Value::Null));
    }
    match answer
        .pointer("/result/outcome/outcome")
        .and_then(Value::as_str)
    {
        Some("selected") => format!(
            "selected {}",
            answer
                .pointer("/result/outcome/optionId")
                .unwrap_or(&Value::Null)
        ),
        Some(other) => other.to_owned(),
        None => "result".to_owned(),
    }
}

/// The answer bound in milliseconds.
#[must_use]
pub fn bound_ms(cfg: &ClientModeConfig) -> u64 {
    u64::try_from(cfg.answer_bound.as_millis()).unwrap_or(u64::MAX)
}
