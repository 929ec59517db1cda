//! Agent requests get answers: every request (vendor `cursor/*` and `_` extensions included)
//! within the bound, and a request whose id collides with the client's own pending one.

use serde_json::Value;

use super::{bound_ms, ending, label, mislabelled, turn, unless_explained};
use crate::acp::client::config::ClientModeConfig;
use crate::acp::client::run::Ran;
use crate::acp::client::watch::RESPONSE_IDS_CASE;
use crate::acp::client::wire::AgentRequest;
use crate::core::model::Check;

/// `client/answers-agent-requests`.
pub fn answers_every_request(ran: &Ran, cfg: &ClientModeConfig) -> Check {
    let (pid, _) = match turn(ran) {
        Ok(t) => t,
        Err(c) => return c,
    };
    let bound = bound_ms(cfg);
    let requests = ran.wire.agent_requests(pid);
    if requests.is_empty() {
        return Check::Error("the scripted agent sent no request (runner fault)".into());
    }
    let unanswered: Vec<&AgentRequest> = requests
        .iter()
        .filter(|r| ran.wire.answer_to(pid, r).is_none())
        .collect();
    let relabelled: Vec<&AgentRequest> = unanswered
        .iter()
        .zip(mislabelled(ran, pid, &unanswered))
        .filter_map(|(r, m)| m.then_some(*r))
        .collect();
    let mut wrong = Vec::new();
    for r in &requests {
        match ran.wire.answer_to(pid, r) {
            None if relabelled.iter().any(|m| std::ptr::eq(*m, r)) => {}
            None => wrong.push(format!("{}: no answer", label(r))),
            Some((ms, _)) if ms - r.ms > bound => {
                wrong.push(format!("{}: answered after {} ms", label(r), ms - r.ms));
            }
            Some(_) => {}
        }
    }
    let expected = format!(
        "an answer (a result or an error) to each of the agent's {} requests within {bound} ms",
        requests.len()
    );
    let relabelled: Vec<String> = relabelled
        .iter()
        .map(|r| {
            format!(
                "{}: no answer under its id, an answer under another id after it",
                label(r)
            )
        })
        .collect();
    if wrong.is_empty() && relabelled.is_empty() {
        return Check::Pass;
    }
    if wrong.is_empty() {
        // Answered, under the wrong id: the id is client/response-ids' subject.
        return Check::blocked(
            RESPONSE_IDS_CASE,
            Check::fail(expected, relabelled.join("; ")),
        );
    }
    if !relabelled.is_empty() {
        wrong.push(format!(
            "(graded by {RESPONSE_IDS_CASE}: {})",
            relabelled.join("; ")
        ));
    }
    Check::fail(
        expected,
        format!("{}; {}", wrong.join("; "), ending(ran, pid)),
    )
}

/// `client/colliding-request-ids`.
pub fn answers_colliding_id(ran: &Ran, cfg: &ClientModeConfig) -> Check {
    let (pid, _) = match turn(ran) {
        Ok(t) => t,
        Err(c) => return c,
    };
    let Some((_, prompt)) = ran.wire.client_request(pid, "session/prompt") else {
        return Check::Error("no session/prompt".into());
    };
    let prompt_id = prompt.id().cloned().unwrap_or(Value::Null);
    let requests = ran.wire.agent_requests(pid);
    let Some(r) = requests.iter().find(|r| r.id == prompt_id) else {
        return Check::Error(format!(
            "the scripted agent sent no request with the prompt's id {prompt_id} (runner fault)"
        ));
    };
    let bound = bound_ms(cfg);
    match ran.wire.answer_to(pid, r) {
        Some((ms, _)) if ms - r.ms <= bound => Check::Pass,
        Some((ms, _)) => Check::fail(
            format!(
                "an answer within {bound} ms to the agent's request under the id of the client's pending session/prompt ({prompt_id})"
            ),
            format!("answered after {} ms", ms - r.ms),
        ),
        None => unless_explained(
            ran,
            pid,
            r,
            Check::fail(
                format!(
                    "an answer to the agent's request {} sent under the id of the client's \
                     pending session/prompt ({prompt_id}): requests and responses are told \
                     apart by shape",
                    r.method
                ),
                format!("no answer; {}", ending(ran, pid)),
            ),
        ),
    }
}
