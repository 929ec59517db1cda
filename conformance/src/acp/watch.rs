//! ACP's cross-cutting id rule, checked by the engine of [`crate::core::watch`] on every
//! exchange of every case, for whichever side is under test ([`Role`]): the peer answers each
//! request of the other side exactly once, under its id (JSON-RPC 2.0 §5; ACP docs overview:
//! JSON-RPC 2.0, both sides send requests). A second answer to a request answered already
//! (however late: after the case moved on, after a cancel settled the turn), or an answer under
//! an id never sent on that connection, is a finding of the mode's id case (agent mode:
//! [`ID_RULE_CASE`]), graded once with the first offending exchange; a repeated answer is not
//! handed to the case (one defect, one verdict).
//!
//! Agent mode's raw client feeds one [`Observer`] per agent connection live; client mode walks
//! each agent process's wire log through the same [`Observer`] once the case has run, with the
//! roles turned (the agent's lines are the ones owed an answer). Only requests are booked
//! ([`Answerable::Requests`]): the tester's answers to the peer's own requests owe nothing.

use std::sync::Arc;

use serde_json::Value;

pub use crate::core::watch::ID_RULE_CASE;
use crate::core::watch::{
    Answerable, Finding, Findings, Idless, Observe, Owed, Owing, Seen, written,
};

/// The id rule, ACP's one cross-cutting rule (of either mode).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct IdRule;

/// The shared store of one run's cross-cutting findings (either mode).
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

    /// Whether exchanges of case `case` count: the `jsonrpc/ids/*` cases send exotic ids on
    /// purpose and grade their answers themselves.
    #[must_use]
    pub fn counts_in(case: &str) -> bool {
        !case.starts_with("jsonrpc/ids/")
    }
}

/// Which side is under test: the one whose answers are booked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Role {
    /// Agent mode: the agent answers the runner's requests, reported live by the raw client.
    Agent,
    /// Client mode: the client answers the scripted agent's requests, read from the wire log of
    /// agent process `pid`. An answer under id null is booked too: the scripted agent writes no
    /// line whose id cannot be read, so it answers a notification (JSON-RPC 2.0 §4.1) or
    /// mislabels a request (§5).
    Client {
        /// The agent process, named in the evidence.
        pid: u32,
    },
}

/// One connection's view (an agent of agent mode, an agent process of client mode), reporting
/// into the shared [`Watch`].
#[derive(Debug)]
pub struct Observer {
    watch: Watch,
    case: &'static str,
    position: usize,
    agent: u32,
    role: Role,
    owed: Owed,
}

impl Observer {
    /// A fresh agent-mode observer for agent number `agent` of case `case` at catalogue
    /// `position`.
    #[must_use]
    pub fn new(watch: Watch, case: &'static str, position: usize, agent: u32) -> Arc<Self> {
        Arc::new(Self::with_role(watch, case, position, agent, Role::Agent))
    }

    /// A fresh observer of connection number `agent` of case `case` at catalogue `position`,
    /// for the side under test `role`.
    #[must_use]
    pub fn with_role(
        watch: Watch,
        case: &'static str,
        position: usize,
        agent: u32,
        role: Role,
    ) -> Self {
        Self {
            watch,
            case,
            position,
            agent,
            role,
            owed: Owed::new(Answerable::Requests),
        }
    }

    fn response(&self, line: u64, m: &Value, raw: &[u8], index: usize) -> Seen {
        if m.get("method").is_some() || !(m.get("result").is_some() || m.get("error").is_some()) {
            return Seen::Fresh;
        }
        // An error with id null answers a line whose id could not be read (JSON-RPC §5): in
        // agent mode the case that sent it counts the answers.
        let Some(id) = m.get("id").filter(|id| !id.is_null()) else {
            if let Role::Client { .. } = self.role {
                self.idless(line, m, raw, index);
            }
            return Seen::Fresh;
        };
        let counts = Watch::counts_in(self.case);
        if counts {
            self.watch.findings.looked(IdRule);
        }
        let owing = self.owed.answer(id);
        let (id_text, shown) = as_written(m, raw, index);
        if counts
            && !self.string_ids_pending(&owing)
            && let Some(evidence) = owing.offence(&id_text, &shown)
        {
            self.offend(line, evidence);
        }
        self.owed.seen(&owing)
    }

    /// Client mode: books an answer under id null. An error under id null is allowed only after
    /// a line whose id could not be read (JSON-RPC 2.0 §5).
    fn idless(&self, line: u64, m: &Value, raw: &[u8], index: usize) {
        let idless = self.owed.idless();
        if idless == Idless::Unreadable && m.get("error").is_some() {
            return;
        }
        self.watch.findings.looked(IdRule);
        let (id, shown) = as_written(m, raw, index);
        let evidence = match idless {
            // JSON-RPC 2.0 §4.1: a notification is never answered.
            Idless::Notification => format!(
                "a response with id {id} while no request of the agent's was pending: an \
                 answer to a notification, which is never answered: {shown}"
            ),
            Idless::Ambiguous => format!(
                "a response with id {id} while a request of the agent's was pending: an answer \
                 to a notification (never answered) or that request's answer under the wrong \
                 id: {shown}"
            ),
            // JSON-RPC 2.0 §5: a response carries the id of the request it answers.
            Idless::Mislabelled | Idless::Unreadable => format!(
                "a response with id {id}, which no request of the agent carried (every line \
                 the agent sent had a readable id): {shown}"
            ),
        };
        self.offend(line, evidence);
    }

    /// Records an offence at `line` of this connection, naming the agent process in client
    /// mode.
    fn offend(&self, line: u64, evidence: String) {
        let evidence = match self.role {
            Role::Agent => evidence,
            Role::Client { pid } => format!("agent pid {pid}: {evidence}"),
        };
        self.watch.findings.offend(
            IdRule,
            (self.position, self.agent, line),
            self.case,
            evidence,
        );
    }
}

/// Message `index` of line `raw` as the peer wrote it: its id's text (`null` when none) and the
/// message, clipped for evidence.
fn as_written(m: &Value, raw: &[u8], index: usize) -> (String, String) {
    let w = written(raw).into_iter().nth(index);
    let text = w.as_ref().map_or_else(|| m.to_string(), |w| w.text.clone());
    let id = w
        .and_then(|w| w.id)
        .or_else(|| m.get("id").map(Value::to_string))
        .unwrap_or_else(|| "null".into());
    (id, crate::core::transcript::clip_to(text.as_bytes(), 300))
}

impl Observer {
    /// Whether `owing` is an answer under an id never sent while every request pending on the
    /// connection carries a string id (a case's liveness probe): most likely that request's
    /// answer under a retyped id, the subject of `jsonrpc/ids/string` (JSON-RPC 2.0 §5), which
    /// grades string ids once; the id rule leaves it to that case (one defect, one verdict).
    /// Agent mode only: client mode has no such case.
    fn string_ids_pending(&self, owing: &Owing) -> bool {
        let pending = self.owed.pending_ids();
        self.role == Role::Agent
            && *owing == Owing::Unsolicited
            && !pending.is_empty()
            && pending.iter().all(|id| id.starts_with('"'))
    }
}

impl Observe for Observer {
    fn sending(&self, line: &[u8]) {
        self.owed.sending(line);
    }

    /// stdout lines that are no ACP message are `stdout/protocol-only`'s, graded per case.
    fn not_protocol(&self, _line: u64, _evidence: String) {}

    fn message(&self, line: u64, msg: &Value, raw: &[u8]) -> Seen {
        match msg {
            // A batch is read whole by the case.
            Value::Array(a) => {
                for (i, m) in a.iter().enumerate() {
                    self.response(line, m, raw, i);
                }
                Seen::Fresh
            }
            one => self.response(line, one, raw, 0),
        }
    }

    fn was_sent(&self, id: &Value) -> bool {
        self.owed.was_sent(id)
    }

    fn sole_pending(&self, id: &Value) -> bool {
        self.owed.sole_pending(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn see(o: &Observer, line: u64, msg: &Value) -> Seen {
        o.message(line, msg, msg.to_string().as_bytes())
    }

    #[test]
    fn a_prompt_answered_twice_offends_once_and_the_repeat_is_hidden() {
        let w = Watch::new();
        let o = Observer::new(w.clone(), "prompt/stop-reason", 4, 0);
        o.sending(br#"{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{}}"#);
        // The agent's own request and the runner's answer to it owe nothing.
        assert_eq!(
            see(
                &o,
                1,
                &json!({"jsonrpc":"2.0","id":0,"method":"fs/read_text_file"})
            ),
            Seen::Fresh
        );
        o.sending(br#"{"jsonrpc":"2.0","id":0,"result":{"content":""}}"#);
        let answer = json!({"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}});
        assert_eq!(see(&o, 2, &answer), Seen::Fresh);
        assert_eq!(w.result(), (None, 1));
        assert_eq!(see(&o, 3, &answer), Seen::Repeat);
        let f = w.result().0.expect("an offence");
        assert!(
            f.evidence
                .starts_with("a second response to id 2 (session/prompt)"),
            "{}",
            f.evidence
        );
        assert_eq!((f.case, f.order), ("prompt/stop-reason", (4, 0, 3)));
    }

    #[test]
    fn an_answer_under_an_id_never_sent_offends_except_in_the_id_cases() {
        let w = Watch::new();
        let o = Observer::new(w.clone(), "session/new", 2, 1);
        // Nothing pending: it answers nothing a case could wait for, and no case reads it.
        assert_eq!(
            see(&o, 1, &json!({"jsonrpc":"2.0","id":"x","result":{}})),
            Seen::Stray
        );
        // With a request pending it is most likely that request's answer, mislabelled: the
        // case sees it (its wait ends blocked by the id rule).
        o.sending(br#"{"jsonrpc":"2.0","id":3,"method":"session/new","params":{}}"#);
        assert_eq!(
            see(&o, 2, &json!({"jsonrpc":"2.0","id":"y","result":{}})),
            Seen::Fresh
        );
        let f = w.result().0.expect("an offence");
        assert!(
            f.evidence
                .starts_with(r#"a response with id "x", which no request"#),
            "{}",
            f.evidence
        );
        let w = Watch::new();
        let o = Observer::new(w.clone(), "jsonrpc/ids/zero", 2, 1);
        see(&o, 1, &json!({"jsonrpc":"2.0","id":"x","result":{}}));
        assert_eq!(w.result(), (None, 0));
    }

    #[test]
    fn an_answer_under_another_id_while_a_string_id_is_pending_is_left_to_ids_string() {
        let w = Watch::new();
        let o = Observer::new(w.clone(), "jsonrpc/unknown-notification", 3, 0);
        o.sending(br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#);
        see(&o, 1, &json!({"jsonrpc":"2.0","id":1,"result":{}}));
        o.sending(br#"{"jsonrpc":"2.0","id":"probe-after","method":"conformance/probe"}"#);
        // The probe's answer under a retyped id: the case sees it, the id rule does not offend.
        assert_eq!(
            see(
                &o,
                2,
                &json!({"jsonrpc":"2.0","id":"0","error":{"code":-32601}})
            ),
            Seen::Fresh
        );
        assert_eq!(w.result(), (None, 2));
        // With a numeric request pending beside it, the id rule grades it as ever.
        o.sending(br#"{"jsonrpc":"2.0","id":2,"method":"session/new","params":{}}"#);
        see(&o, 3, &json!({"jsonrpc":"2.0","id":"0","result":{}}));
        assert!(w.result().0.is_some());
    }
}
