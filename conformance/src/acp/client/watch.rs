//! Client mode's id rule, on the engine of [`crate::core::watch`] that agent mode and
//! `mcp-conformance` use: the client answers each request of the scripted agent exactly once,
//! under its id (JSON-RPC 2.0 §5; ACP docs overview: JSON-RPC 2.0, both sides send requests).
//! Every case's wire log ([`Wire`], as the agent logged it: its own lines before they went out)
//! is booked per agent process once the case has run: a second answer to a request answered
//! already (however late: after the cancel, after the turn), an answer under an id the agent
//! never sent on that connection (a made-up one, or the request's own retyped: `1` as `"1"`),
//! or an answer under id null (JSON-RPC 2.0 §4.1: notifications, such as `session/update`, are
//! never answered; an error under id null is allowed only after a line whose id could not be
//! read) is a finding of [`RESPONSE_IDS_CASE`], graded once with the first offending line, its
//! id quoted as the client wrote it. The cases whose request went unanswered because its answer
//! came under another id are blocked by it (one defect, one verdict).
//!
//! The client's own requests (`initialize`, `session/*`) and the agent's answers to them owe
//! nothing back: only the agent's requests are booked ([`Answerable::Requests`]).

use serde_json::Value;

use super::wire::{Kind, Wire};
use crate::core::model::Check;
use crate::core::watch::{Answerable, Finding, Findings, Idless, Owed, Owing, written};

/// The case that grades the id rule in client mode.
pub const RESPONSE_IDS_CASE: &str = "client/response-ids";

/// The id rule, the one cross-cutting rule of client mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct IdRule;

/// The shared store of client mode's cross-cutting findings of one run.
#[derive(Debug, Clone, Default)]
pub struct Watch {
    findings: Findings<IdRule>,
}

impl Watch {
    /// An empty store.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The first offence against the id rule, and how many answers were looked at.
    #[must_use]
    pub fn result(&self) -> (Option<Finding>, u64) {
        self.findings.result(IdRule)
    }

    /// The verdict of [`RESPONSE_IDS_CASE`]: the first offence fails, with the case that saw
    /// it; no answer looked at at all is `None` (the case says why).
    #[must_use]
    pub fn grade(&self) -> Option<Check> {
        match self.result() {
            (Some(f), _) => Some(Check::fail(
                "each agent request answered exactly once, under its id (JSON-RPC 2.0 §5)",
                format!("{} (first seen in {})", f.evidence, f.case),
            )),
            (None, 0) => None,
            (None, _) => Some(Check::Pass),
        }
    }

    /// Books every client answer of case `case` (catalogue `position`) against the requests
    /// each agent process sent before it, in the order the agent logged them.
    pub fn observe(&self, wire: &Wire, case: &'static str, position: usize) {
        let pids: Vec<u32> = wire.processes().into_iter().map(|(p, _, _)| p).collect();
        for (agent, pid) in pids.iter().enumerate() {
            let owed = Owed::new(Answerable::Requests);
            let agent = u32::try_from(agent).unwrap_or(u32::MAX);
            for (line, e) in wire.events.iter().enumerate() {
                if e.pid != *pid {
                    continue;
                }
                match &e.kind {
                    Kind::A2c(l) => owed.sending(l.raw.as_bytes()),
                    Kind::C2a(l) => {
                        let Some(json) = &l.json else { continue };
                        let items: Vec<&Value> = match json {
                            Value::Array(a) => a.iter().collect(),
                            one => vec![one],
                        };
                        let line = u64::try_from(line).unwrap_or(u64::MAX);
                        for (i, m) in items.into_iter().enumerate() {
                            let Some(answer) = self.answer(&owed, m) else {
                                continue;
                            };
                            let w = written(l.raw.as_bytes()).into_iter().nth(i);
                            let text = w.as_ref().map_or_else(|| m.to_string(), |w| w.text.clone());
                            let id = w
                                .and_then(|w| w.id)
                                .or_else(|| m.get("id").map(Value::to_string))
                                .unwrap_or_else(|| "null".into());
                            let shown = crate::core::transcript::clip_to(text.as_bytes(), 300);
                            if let Some(evidence) = answer.offence(&id, &shown) {
                                self.findings.offend(
                                    IdRule,
                                    (position, agent, line),
                                    case,
                                    format!("agent pid {pid}: {evidence}"),
                                );
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
    }

    /// Books `m` when it is a response (a `result` or an `error`, no `method`).
    fn answer(&self, owed: &Owed, m: &Value) -> Option<Answer> {
        if m.get("method").is_some() || !(m.get("result").is_some() || m.get("error").is_some()) {
            return None;
        }
        let Some(id) = m.get("id").filter(|id| !id.is_null()) else {
            // An error under id null answers a line whose id could not be read (JSON-RPC 2.0
            // §5): only when the agent sent one is it no finding.
            let idless = owed.idless();
            if idless == Idless::Unreadable && m.get("error").is_some() {
                return None;
            }
            self.findings.looked(IdRule);
            return Some(Answer::Idless(idless));
        };
        self.findings.looked(IdRule);
        Some(Answer::Id(owed.answer(id)))
    }
}

/// What one client response is to what the client owes.
enum Answer {
    /// A response under an id, booked.
    Id(Owing),
    /// A response under id null (or none), and what it can answer.
    Idless(Idless),
}

impl Answer {
    /// The id rule's evidence for an offending answer.
    fn offence(&self, id: &str, shown: &str) -> Option<String> {
        match self {
            Answer::Id(owing) => owing.offence(id, shown),
            // JSON-RPC 2.0 §4.1: a notification is never answered.
            Answer::Idless(Idless::Notification) => Some(format!(
                "a response with id {id} while no request of the agent's was pending: an \
                 answer to a notification, which is never answered: {shown}"
            )),
            Answer::Idless(Idless::Ambiguous) => Some(format!(
                "a response with id {id} while a request of the agent's was pending: an answer \
                 to a notification (never answered) or that request's answer under the wrong \
                 id: {shown}"
            )),
            // JSON-RPC 2.0 §5: a response carries the id of the request it answers.
            Answer::Idless(_) => Some(format!(
                "a response with id {id}, which no request of the agent carried (every line \
                 the agent sent had a readable id): {shown}"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::acp::client::wire::parse_event;

    fn wire(lines: &[(&str, &str)]) -> Wire {
        let mut w = Wire::default();
        w.push(
            parse_event(r#"{"event":"start","ms":0,"pid":7,"pgid":7,"argv":["acp"]}"#)
                .expect("event"),
        );
        for (ms, (dir, raw)) in lines.iter().enumerate() {
            let e = serde_json::json!({"event": dir, "ms": ms, "pid": 7, "raw": raw});
            w.push(parse_event(&e.to_string()).expect("event"));
        }
        w
    }

    #[test]
    fn a_request_answered_twice_offends_once_with_the_id_as_written() {
        let w = Watch::new();
        w.observe(
            &wire(&[
                // The client's own request and the agent's answer to it owe nothing.
                ("c2a", r#"{"jsonrpc":"2.0","id":0,"method":"initialize"}"#),
                ("a2c", r#"{"jsonrpc":"2.0","id":0,"result":{}}"#),
                (
                    "a2c",
                    r#"{"jsonrpc":"2.0","id":0,"method":"session/request_permission"}"#,
                ),
                ("c2a", r#"{"jsonrpc":"2.0","id":0,"result":{"outcome":{}}}"#),
                ("c2a", r#"{"jsonrpc":"2.0","id":0,"result":{"outcome":{}}}"#),
            ]),
            "client/answers-agent-requests",
            1,
        );
        let f = w.result().0.expect("an offence");
        assert!(
            f.evidence
                .starts_with("agent pid 7: a second response to id 0 (session/request_permission)"),
            "{}",
            f.evidence
        );
        assert_eq!(
            (f.case, f.order),
            ("client/answers-agent-requests", (1, 0, 5))
        );
    }

    #[test]
    fn an_answer_under_id_null_offends_unless_an_agent_line_was_unreadable() {
        let w = Watch::new();
        w.observe(
            &wire(&[
                (
                    "a2c",
                    r#"{"jsonrpc":"2.0","method":"session/update","params":{}}"#,
                ),
                ("c2a", r#"{"jsonrpc":"2.0","id":null,"result":{}}"#),
            ]),
            "client/answers-agent-requests",
            1,
        );
        let f = w.result().0.expect("an offence");
        assert!(
            f.evidence.starts_with(
                "agent pid 7: a response with id null while no request of the agent's was \
                 pending: an answer to a notification"
            ),
            "{}",
            f.evidence
        );
        // A request answered under id null, with no notification it could answer: mislabelled.
        let w = Watch::new();
        w.observe(
            &wire(&[
                ("a2c", r#"{"jsonrpc":"2.0","id":4,"method":"cursor/task"}"#),
                ("c2a", r#"{"jsonrpc":"2.0","result":{}}"#),
            ]),
            "client/answers-agent-requests",
            1,
        );
        let f = w.result().0.expect("an offence");
        assert!(
            f.evidence
                .starts_with("agent pid 7: a response with id null, which no request"),
            "{}",
            f.evidence
        );
        // An error under id null after a line the client could not read answers that line.
        let w = Watch::new();
        w.observe(
            &wire(&[
                ("a2c", "{cut"),
                (
                    "c2a",
                    r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700}}"#,
                ),
            ]),
            "client/answers-agent-requests",
            1,
        );
        assert_eq!(w.result(), (None, 0));
    }

    #[test]
    fn an_answer_under_an_id_the_agent_never_sent_offends() {
        let w = Watch::new();
        w.observe(
            &wire(&[
                (
                    "a2c",
                    r#"{"jsonrpc":"2.0","id":1,"method":"cursor/update_todos"}"#,
                ),
                ("c2a", r#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
                (
                    "c2a",
                    r#"{"jsonrpc":"2.0","id":18446744073709551616,"result":{}}"#,
                ),
            ]),
            "client/colliding-request-ids",
            3,
        );
        let f = w.result().0.expect("an offence");
        assert!(
            f.evidence
                .starts_with("agent pid 7: a response with id 18446744073709551616, which no"),
            "{}",
            f.evidence
        );
    }
}
