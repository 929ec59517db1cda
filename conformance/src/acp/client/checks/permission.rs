//! Permission answers: an outcome (the method is supported), never `allow_always`, and only an
//! `optionId` the request offered.

use serde_json::Value;

use super::{TURN_CASE, answer_kind, label, turn};
use crate::acp::client::config::ClientModeConfig;
use crate::acp::client::run::Ran;
use crate::acp::client::wire::AgentRequest;
use crate::core::model::Check;

const METHOD: &str = "session/request_permission";

/// `(optionId, kind)` of each offered option.
fn offered(r: &AgentRequest) -> Vec<(String, String)> {
    r.params
        .get("options")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|o| {
                    let s = |k: &str| o.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
                    (s("optionId"), s("kind"))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Each permission request with the `optionId` the client selected, if it selected one.
fn selections(ran: &Ran, pid: u32) -> Vec<(AgentRequest, Option<Value>, String)> {
    ran.wire
        .agent_requests(pid)
        .into_iter()
        .filter(|r| r.method == METHOD)
        .map(|r| {
            let answer = ran.wire.answer_to(pid, &r).map(|(_, a)| a.clone());
            let kind = answer
                .as_ref()
                .map_or_else(|| "no answer".into(), answer_kind);
            let selected = answer.as_ref().and_then(|a| {
                (a.pointer("/result/outcome/outcome") == Some(&Value::from("selected"))).then(
                    || {
                        a.pointer("/result/outcome/optionId")
                            .cloned()
                            .unwrap_or(Value::Null)
                    },
                )
            });
            (r, selected, kind)
        })
        .collect()
}

/// `client/supports-request-permission`: every permission request is answered with an outcome
/// (`selected` or `cancelled`), not an error. An unanswered one is
/// `client/answers-agent-requests`' finding.
pub fn supports_request_permission(ran: &Ran, _cfg: &ClientModeConfig) -> Check {
    let (pid, _) = match turn(ran) {
        Ok(t) => t,
        Err(c) => return c,
    };
    let requests = permission_requests(ran, pid);
    if requests.is_empty() {
        return Check::Error("the scripted agent sent no permission request (runner fault)".into());
    }
    let refused: Vec<String> = requests
        .iter()
        .filter_map(|r| {
            let (_, a) = ran.wire.answer_to(pid, r)?;
            (a.pointer("/result/outcome/outcome").is_none())
                .then(|| format!("{}: {}", label(r), answer_kind(a)))
        })
        .collect();
    let expected = "an outcome (selected or cancelled) to every session/request_permission: it is \
                    the client's Baseline Method (ACP docs protocol/overview#client)";
    if !refused.is_empty() {
        return Check::fail(expected, refused.join("; "));
    }
    unanswered(ran, pid, &requests, expected).unwrap_or(Check::Pass)
}

/// The permission requests of the run that got no answer under their id, as the finding of a
/// case that judges their answers: blocked by `client/answers-agent-requests`, whose subject an
/// unanswered request is in every case's run ([`crate::acp::client::owed`] books this run's),
/// or by `client/response-ids` when each was answered under another id; the fallback fails
/// with them, never a silent pass (ACP-GATE-2: every agent request is answered). `None` when
/// every request was answered.
fn unanswered(ran: &Ran, pid: u32, requests: &[AgentRequest], expected: &str) -> Option<Check> {
    let missing: Vec<&AgentRequest> = requests
        .iter()
        .filter(|r| ran.wire.answer_to(pid, r).is_none())
        .collect();
    if missing.is_empty() {
        return None;
    }
    let labels: Vec<String> = missing.iter().map(|r| label(r)).collect();
    let by = if super::mislabelled(ran, pid, &missing).iter().all(|m| *m) {
        crate::acp::client::watch::RESPONSE_IDS_CASE
    } else {
        TURN_CASE
    };
    Some(Check::blocked(
        by,
        Check::fail(expected, format!("no answer: {}", labels.join("; "))),
    ))
}

/// The run's permission requests.
fn permission_requests(ran: &Ran, pid: u32) -> Vec<AgentRequest> {
    ran.wire
        .agent_requests(pid)
        .into_iter()
        .filter(|r| r.method == METHOD)
        .collect()
}

/// `client/permission-never-allow-always`.
pub fn never_allow_always(ran: &Ran, _cfg: &ClientModeConfig) -> Check {
    let (pid, _) = match turn(ran) {
        Ok(t) => t,
        Err(c) => return c,
    };
    let bad: Vec<String> = selections(ran, pid)
        .iter()
        .filter_map(|(r, sel, _)| {
            let id = sel.as_ref()?.as_str()?;
            offered(r)
                .iter()
                .any(|(o, k)| o == id && k == "allow_always")
                .then(|| format!("{} answered selected {id:?} (kind allow_always)", label(r)))
        })
        .collect();
    let expected = "no permission answer selecting an option of kind allow_always";
    if bad.is_empty() {
        unanswered(ran, pid, &permission_requests(ran, pid), expected).unwrap_or(Check::Pass)
    } else {
        Check::fail(expected, bad.join("; "))
    }
}

/// `client/permission-echoes-offered-option`.
pub fn echoes_offered_option(ran: &Ran, _cfg: &ClientModeConfig) -> Check {
    let (pid, _) = match turn(ran) {
        Ok(t) => t,
        Err(c) => return c,
    };
    let all = selections(ran, pid);
    let expected = "every selected optionId is one the request offered";
    let unanswered = unanswered(ran, pid, &permission_requests(ran, pid), expected);
    if all.iter().all(|(_, sel, _)| sel.is_none()) {
        if let Some(c) = unanswered {
            return c;
        }
        let answers: Vec<String> = all
            .iter()
            .map(|(r, _, k)| format!("{}: {k}", label(r)))
            .collect();
        return Check::skip(format!(
            "the client selected no option, so no optionId to check (its answers: {})",
            if answers.is_empty() {
                "none".into()
            } else {
                answers.join("; ")
            }
        ));
    }
    let bad: Vec<String> = all
        .iter()
        .filter_map(|(r, sel, _)| {
            let sel = sel.as_ref()?;
            let ok = sel
                .as_str()
                .is_some_and(|id| offered(r).iter().any(|(o, _)| o == id));
            (!ok).then(|| {
                let ids: Vec<String> = offered(r).into_iter().map(|(o, _)| o).collect();
                format!("{} selected {sel}, offered {ids:?}", label(r))
            })
        })
        .collect();
    if bad.is_empty() {
        unanswered.unwrap_or(Check::Pass)
    } else {
        Check::fail(expected, bad.join("; "))
    }
}
