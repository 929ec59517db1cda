//! The session around the turn: no unprompted `authenticate`, unknown `sessionUpdate` variants
//! tolerated, and the agent ended after the turn.

use super::{answer_kind, bound_ms, ending, label, turn, unprompted_authenticate};
use crate::acp::client::config::ClientModeConfig;
use crate::acp::client::run::Ran;
use crate::core::model::Check;

/// `client/no-unprompted-authenticate`: the agent advertises `authMethods` and never answers
/// `auth_required`, so any `authenticate` is unprompted (every agent process is checked).
pub fn no_unprompted_authenticate(ran: &Ran, _cfg: &ClientModeConfig) -> Check {
    // Graded whatever happened next: a client that authenticates unprompted and then crashes
    // fails this rule, not a precondition.
    let calls = unprompted_authenticate(ran);
    if !calls.is_empty() {
        return Check::fail(
            "no authenticate request: session/new never answered auth_required (-32000)",
            format!("authenticate sent: {}", calls.join("; ")),
        );
    }
    match turn(ran) {
        Ok(_) => Check::Pass,
        Err(c) => c,
    }
}

/// `client/tolerates-unknown-session-update`: after non-standard and future `sessionUpdate`
/// variants, the client still answers the permission request that follows them.
pub fn tolerates_unknown_update(ran: &Ran, cfg: &ClientModeConfig) -> Check {
    let (pid, _) = match turn(ran) {
        Ok(t) => t,
        Err(c) => return c,
    };
    let Some(r) = ran.wire.agent_requests(pid).into_iter().next() else {
        return Check::fail(
            "the turn to go on after unknown session/update variants",
            format!(
                "the agent's next message (a permission request) never went out; {}",
                ending(ran, pid)
            ),
        );
    };
    let bound = bound_ms(cfg);
    match ran.wire.answer_to(pid, &r) {
        Some((ms, _)) if ms - r.ms <= bound => Check::Pass,
        Some((ms, a)) => Check::fail(
            format!(
                "an answer within {bound} ms to {} sent after unknown session/update variants",
                label(&r)
            ),
            format!("{} after {} ms", answer_kind(a), ms - r.ms),
        ),
        None => super::unless_explained(
            ran,
            pid,
            &r,
            Check::fail(
                format!(
                    "the client to go on after unknown session/update variants: an answer to {}",
                    label(&r)
                ),
                format!("no answer; {}", ending(ran, pid)),
            ),
        ),
    }
}

/// `client/ends-agent-after-turn`: the agent (which, as Cursor, never exits on stdin EOF after
/// a turn) is gone once the client is done.
pub fn ends_agent(ran: &Ran, cfg: &ClientModeConfig) -> Check {
    let (pid, _) = match turn(ran) {
        Ok(t) => t,
        Err(c) => return c,
    };
    let Some((_, stop)) = ran.wire.prompt_answer(pid) else {
        return Check::Error(format!(
            "precondition not met: the turn's answer never went out; {}",
            ending(ran, pid)
        ));
    };
    if !ran.facts.agents_alive.iter().any(|(p, _)| *p == pid) {
        return Check::Pass;
    }
    let when = if ran.facts.client_exit.is_some() {
        format!("{} ms after the client ended", cfg.end_grace.as_millis())
    } else {
        "at the case timeout".to_owned()
    };
    Check::fail(
        "the client ends the agent after the turn (an agent such as Cursor never exits on stdin EOF)",
        format!(
            "the agent (pid {pid}) still ran {when}, after the turn's answer ({stop}); {}",
            ending(ran, pid)
        ),
    )
}
