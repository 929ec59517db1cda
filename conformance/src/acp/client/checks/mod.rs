//! The client-mode checks: each reads the agent-side wire of its own run ([`Ran`]) and returns
//! a [`Check`]. Shared here: finding the ACP agent process and the turn, and saying what the
//! client did at the end (for a finding's `actual`).

pub mod cancel;
pub mod lifecycle;
pub mod permission;
pub mod prompt;
pub mod requests;

use serde_json::Value;

use super::config::ClientModeConfig;
use super::run::Ran;
use super::watch::RESPONSE_IDS_CASE;
use super::wire::AgentRequest;
use crate::core::model::Check;

/// The case that grades a client ending (or hanging) before its turn: the first case, whose
/// subject is the exchange every turn needs. The other cases are blocked by it.
pub const TURN_CASE: &str = "client/answers-agent-requests";

/// The case that grades a client refusing `session/request_permission`.
pub const SUPPORTS_PERMISSION_CASE: &str = "client/supports-request-permission";

/// The case that grades an unprompted `authenticate`.
pub const AUTHENTICATE_CASE: &str = "client/no-unprompted-authenticate";

/// Which of `unanswered` (agent requests with no answer under their id, in the order sent) were
/// answered under another id: each takes the first answer under an id the agent never sent
/// ([`super::wire::Wire::stray_answers`]) that came at or after it and that no earlier one
/// took. Those are blocked by [`RESPONSE_IDS_CASE`], which grades the id (one defect, one
/// verdict); the others got no answer at all.
#[must_use]
pub fn mislabelled(ran: &Ran, pid: u32, unanswered: &[&AgentRequest]) -> Vec<bool> {
    let mut stray = ran.wire.stray_answers(pid).into_iter().peekable();
    unanswered
        .iter()
        .map(|r| {
            while stray.next_if(|ms| *ms < r.ms).is_some() {}
            stray.next().is_some()
        })
        .collect()
}

/// `fail` about the one request of a case's subject that got no answer (the request after
/// unknown updates, under a colliding id, pending at a cancel), unless another rule's defect
/// explains it (one defect, one verdict): answered under another id ([`mislabelled`]), blocked
/// by [`RESPONSE_IDS_CASE`]; a permission request, blocked by [`SUPPORTS_PERMISSION_CASE`],
/// which holds the control: the same request in a plain turn. A client that leaves permission
/// requests unanswered there too fails the turn case (which that case's block then names), so
/// the subject (the unknown updates, the id, the cancel) is not what it broke; one that answers
/// there passes it, and this case fails on its own subject.
#[must_use]
pub fn unless_explained(ran: &Ran, pid: u32, r: &AgentRequest, fail: Check) -> Check {
    if mislabelled(ran, pid, &[r]).first() == Some(&true) {
        Check::blocked(RESPONSE_IDS_CASE, fail)
    } else if r.method == "session/request_permission" {
        Check::blocked(SUPPORTS_PERMISSION_CASE, fail)
    } else {
        fail
    }
}

/// The ACP agent process of the run and the client's `session/prompt` line's time, or the
/// [`Check`] that ends the case. The runner's own trouble (the client could not be started, or it
/// never spoke to the agent it was given while still running: not wired to `{agent}`) is an
/// `error`; a client that ended, or hung, before its turn is graded, never an `error`: blocked
/// by the rule it broke on the way (an unprompted `authenticate`), else by [`TURN_CASE`], which
/// fails with it (one defect, one verdict).
pub fn turn(ran: &Ran) -> Result<(u32, u64), Check> {
    if let Some(e) = &ran.facts.spawn_error {
        return Err(Check::Error(e.clone()));
    }
    let Some(pid) = ran.wire.acp_pid() else {
        let Some(exit) = ran.facts.client_exit.as_deref() else {
            return Err(Check::Error(format!(
                "precondition not met: the client never spoke to the scripted agent it was given \
                 (no line reached it) and was still running at the case timeout{}",
                stderr_hint(ran)
            )));
        };
        return Err(no_turn(
            ran,
            format!(
                "the client ended ({exit}) without a line to the scripted agent{}",
                stderr_hint(ran)
            ),
        ));
    };
    let Some((ms, _)) = ran.wire.client_request(pid, "session/prompt") else {
        return Err(no_turn(
            ran,
            format!("the client sent no session/prompt; {}", ending(ran, pid)),
        ));
    };
    Ok((pid, ms))
}

/// A run with no turn to check: blocked by the rule the client broke before it, else by
/// [`TURN_CASE`] (which itself fails with `actual`).
fn no_turn(ran: &Ran, actual: String) -> Check {
    let fail = Check::fail(
        "a prompt turn with the scripted agent (initialize, session/new, session/prompt)",
        actual,
    );
    let by = if unprompted_authenticate(ran).is_empty() {
        TURN_CASE
    } else {
        AUTHENTICATE_CASE
    };
    Check::blocked(by, fail)
}

/// Every `authenticate` the client sent (the scripted agent never asks for one), described.
#[must_use]
pub fn unprompted_authenticate(ran: &Ran) -> Vec<String> {
    ran.wire
        .all_c2a()
        .filter(|(_, _, l)| l.method() == Some("authenticate"))
        .map(|(pid, ms, l)| {
            format!(
                "agent pid {pid} at {ms} ms: {}",
                crate::core::transcript::clip_to(l.raw.as_bytes(), 300)
            )
        })
        .collect()
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
