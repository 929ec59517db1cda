//! Client mode's id rule, on the observer agent mode uses ([`crate::acp::watch`], on the engine
//! of [`crate::core::watch`]) with the roles turned: the client answers each request of the
//! scripted agent exactly once, under its id (JSON-RPC 2.0 §5; ACP docs overview: JSON-RPC 2.0,
//! both sides send requests). Every case's wire log ([`Wire`], as the agent logged it: its own
//! lines before they went out) is walked per agent process once the case has run: a second
//! answer to a request answered already (however late: after the cancel, after the turn), an
//! answer under an id the agent never sent on that connection (a made-up one, or the request's
//! own retyped: `1` as `"1"`), or an answer under id null (JSON-RPC 2.0 §4.1: notifications,
//! such as `session/update`, are never answered; an error under id null is allowed only after a
//! line whose id could not be read) is a finding of [`RESPONSE_IDS_CASE`], graded once with the
//! first offending line, its id quoted as the client wrote it. The cases whose request went
//! unanswered because its answer came under another id are blocked by it (one defect, one
//! verdict).
//!
//! The client's own requests (`initialize`, `session/*`) and the agent's answers to them owe
//! nothing back: only the agent's requests are booked.

use super::wire::{Kind, Wire};
use crate::acp::watch::{Observer, Role};
use crate::core::model::Check;
use crate::core::watch::Observe as _;

/// The case that grades the id rule in client mode.
pub const RESPONSE_IDS_CASE: &str = "client/response-ids";

/// The shared store of client mode's findings: agent mode's, filled with the roles turned.
pub use crate::acp::watch::Watch;

/// The verdict of [`RESPONSE_IDS_CASE`]: the first offence fails, with the case that saw it; no
/// answer looked at at all is `None` (the case says why).
#[must_use]
pub fn grade(watch: &Watch) -> Option<Check> {
    match watch.result() {
        (Some(f), _) => Some(Check::fail(
            "each agent request answered exactly once, under its id (JSON-RPC 2.0 §5)",
            format!("{} (first seen in {})", f.evidence, f.case),
        )),
        (None, 0) => None,
        (None, _) => Some(Check::Pass),
    }
}

/// Books every client answer of case `case` (catalogue `position`) into `watch`, against the
/// requests each agent process sent before it, in the order the agent logged them.
pub fn observe(watch: &Watch, wire: &Wire, case: &'static str, position: usize) {
    for (agent, (pid, _, _)) in wire.processes().into_iter().enumerate() {
        let agent = u32::try_from(agent).unwrap_or(u32::MAX);
        let role = Role::Client { pid };
        let o = Observer::with_role(watch.clone(), case, position, agent, role);
        for (line, e) in wire.events.iter().enumerate() {
            if e.pid != pid {
                continue;
            }
            match &e.kind {
                Kind::A2c(l) => o.sending(l.raw.as_bytes()),
                Kind::C2a(l) => {
                    if let Some(json) = &l.json {
                        let line = u64::try_from(line).unwrap_or(u64::MAX);
                        o.message(line, json, l.raw.as_bytes());
                    }
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::acp::client::wire::parse_event;
    use crate::core::watch::Finding;

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

    /// The first offence in `lines` (case `answers-agent-requests` at position 1), whose
    /// evidence must start with `start`.
    fn offence(lines: &[(&str, &str)], start: &str) -> Finding {
        let w = Watch::new();
        observe(&w, &wire(lines), "client/answers-agent-requests", 1);
        let f = w.result().0.expect("an offence");
        assert!(f.evidence.starts_with(start), "{}", f.evidence);
        f
    }

    #[test]
    fn a_request_answered_twice_offends_once_with_the_id_as_written() {
        let permission = r#"{"jsonrpc":"2.0","id":0,"method":"session/request_permission"}"#;
        let answer = r#"{"jsonrpc":"2.0","id":0,"result":{"outcome":{}}}"#;
        let f = offence(
            &[
                // The client's own request and the agent's answer to it owe nothing.
                ("c2a", r#"{"jsonrpc":"2.0","id":0,"method":"initialize"}"#),
                ("a2c", r#"{"jsonrpc":"2.0","id":0,"result":{}}"#),
                ("a2c", permission),
                ("c2a", answer),
                ("c2a", answer),
            ],
            "agent pid 7: a second response to id 0 (session/request_permission)",
        );
        assert_eq!(
            (f.case, f.order),
            ("client/answers-agent-requests", (1, 0, 5))
        );
    }

    #[test]
    fn an_answer_under_id_null_offends_unless_an_agent_line_was_unreadable() {
        let update = r#"{"jsonrpc":"2.0","method":"session/update","params":{}}"#;
        offence(
            &[
                ("a2c", update),
                ("c2a", r#"{"jsonrpc":"2.0","id":null,"result":{}}"#),
            ],
            "agent pid 7: a response with id null while no request of the agent's was pending: \
             an answer to a notification",
        );
        // A request answered under id null, with no notification it could answer: mislabelled.
        offence(
            &[
                ("a2c", r#"{"jsonrpc":"2.0","id":4,"method":"cursor/task"}"#),
                ("c2a", r#"{"jsonrpc":"2.0","result":{}}"#),
            ],
            "agent pid 7: a response with id null, which no request",
        );
        // An error under id null after a line the client could not read answers that line.
        let w = Watch::new();
        let error = r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700}}"#;
        observe(
            &w,
            &wire(&[("a2c", "{cut"), ("c2a", error)]),
            "client/answers-agent-requests",
            1,
        );
        assert_eq!(w.result(), (None, 0));
    }

    #[test]
    fn an_answer_under_an_id_the_agent_never_sent_offends() {
        offence(
            &[
                (
                    "a2c",
                    r#"{"jsonrpc":"2.0","id":1,"method":"cursor/update_todos"}"#,
                ),
                ("c2a", r#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
                (
                    "c2a",
                    r#"{"jsonrpc":"2.0","id":18446744073709551616,"result":{}}"#,
                ),
            ],
            "agent pid 7: a response with id 18446744073709551616, which no",
        );
        // The request's own id retyped is another id.
        offence(
            &[
                (
                    "a2c",
                    r#"{"jsonrpc":"2.0","id":1,"method":"cursor/update_todos"}"#,
                ),
                ("c2a", r#"{"jsonrpc":"2.0","id":"1","result":{}}"#),
            ],
            r#"agent pid 7: a response with id "1", which no"#,
        );
    }
}
