//! Cancelling a turn: the client sends `session/cancel {sessionId}` and answers the permission
//! request still pending `cancelled`. The runner tells the client to cancel only in a way the
//! client documents ([`CancelDriver`]); without one the cases are `skip`.

use serde_json::Value;

use super::{answer_kind, ending, label, turn};
use crate::acp::client::config::{CancelDriver, ClientModeConfig};
use crate::acp::client::run::Ran;
use crate::core::model::Check;

/// Why the cancel cases are skipped without a [`CancelDriver`].
pub const NO_DRIVER: &str = "no way to tell this client to cancel a turn was given (a signal it \
                         documents as its interrupt, or its own turn timeout)";

fn precondition(ran: &Ran, cfg: &ClientModeConfig) -> Result<(u32, u64), Check> {
    if cfg.cancel == CancelDriver::None {
        return Err(Check::skip(NO_DRIVER));
    }
    let t = turn(ran)?;
    if matches!(cfg.cancel, CancelDriver::Signal(_)) && !ran.facts.cancel_signal_sent {
        return Err(Check::Error(format!(
            "precondition not met: the turn's permission request never went out, so the runner \
             never told the client to cancel; {}",
            ending(ran, t.0)
        )));
    }
    Ok(t)
}

/// `client/cancel-sends-session-cancel`.
pub fn sends_session_cancel(ran: &Ran, cfg: &ClientModeConfig) -> Check {
    let (pid, prompt_ms) = match precondition(ran, cfg) {
        Ok(t) => t,
        Err(c) => return c,
    };
    let sid = ran
        .wire
        .client_request(pid, "session/prompt")
        .and_then(|(_, l)| l.params().get("sessionId").cloned())
        .unwrap_or(Value::Null);
    match ran.wire.client_notification(pid, "session/cancel") {
        Some((ms, l)) if ms >= prompt_ms && l.params().get("sessionId") == Some(&sid) => {
            Check::Pass
        }
        Some((ms, l)) => Check::fail(
            format!("session/cancel {{sessionId: {sid}}} during the turn"),
            format!(
                "at {ms} ms: {}",
                crate::core::transcript::clip_to(l.raw.as_bytes(), 300)
            ),
        ),
        None => Check::fail(
            format!("session/cancel {{sessionId: {sid}}} when the client cancels its turn"),
            format!("no session/cancel; {}", ending(ran, pid)),
        ),
    }
}

/// `client/cancel-answers-pending-permission`.
pub fn answers_pending_cancelled(ran: &Ran, cfg: &ClientModeConfig) -> Check {
    let (pid, _) = match precondition(ran, cfg) {
        Ok(t) => t,
        Err(c) => return c,
    };
    let Some((cancel_ms, _)) = ran.wire.client_notification(pid, "session/cancel") else {
        return Check::skip(
            "the client sent no session/cancel (graded by client/cancel-sends-session-cancel), \
             so no request was pending at a cancel",
        );
    };
    let Some(r) = ran
        .wire
        .agent_requests(pid)
        .into_iter()
        .find(|r| r.method == "session/request_permission")
    else {
        return Check::Error("the scripted agent sent no permission request (runner fault)".into());
    };
    let answer = ran.wire.answer_to(pid, &r);
    // A client may answer `cancelled` just before its session/cancel, as part of cancelling.
    if let Some((_, a)) = answer
        && answer_kind(a) == "cancelled"
    {
        return Check::Pass;
    }
    if let Some((ms, a)) = answer
        && ms <= cancel_ms
    {
        return Check::skip(format!(
            "nothing was pending at the cancel: the client answered {} ({}) at {ms} ms, before \
             its session/cancel at {cancel_ms} ms",
            label(&r),
            answer_kind(a)
        ));
    }
    let expected = format!(
        "{} pending at session/cancel answered {{outcome: {{outcome: \"cancelled\"}}}}",
        label(&r)
    );
    match answer {
        Some((ms, a)) => {
            let fail = Check::fail(
                expected,
                format!("{} {} ms after the cancel", answer_kind(a), ms - cancel_ms),
            );
            // A client that does not implement the method (-32601) answers so whether or not a
            // cancel came first: client/supports-request-permission grades that defect.
            if a.pointer("/error/code") == Some(&Value::from(-32601)) {
                Check::blocked(super::SUPPORTS_PERMISSION_CASE, fail)
            } else {
                fail
            }
        }
        None => super::unless_explained(
            ran,
            pid,
            &r,
            Check::fail(expected, format!("no answer; {}", ending(ran, pid))),
        ),
    }
}
