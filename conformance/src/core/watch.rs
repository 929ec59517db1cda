//! The cross-cutting engine: what every connection of every case shows, graded once per rule
//! with the first offending exchange as evidence. A gate names its rules (MCP's are
//! [`crate::mcp::watch`]); the engine gives it the store ([`Findings`]), the order that makes
//! "first" the same at any `--jobs` and load ([`Order`]), the per-connection bookkeeping of what
//! the runner sent ([`Sent`]), and the interface the raw client reports through ([`Observe`]).

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::hash::Hash;
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::Value;

/// The case that grades the id rule (JSON-RPC 2.0 §5: a response carries the id of the request
/// it answers): a case that waited in vain while an answer came under another id is blocked by
/// it (one defect, one verdict).
pub const ID_RULE_CASE: &str = "jsonrpc/response-ids";

/// Where an exchange happened, for ordering: (case position, peer within the case, line).
pub type Order = (usize, u32, u64);

/// The first offending exchange of a rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Where it happened.
    pub order: Order,
    /// The case that saw it (`discovery` for the discovery session).
    pub case: &'static str,
    /// What is wrong, with the line (clipped).
    pub evidence: String,
}

struct Inner<R> {
    first: HashMap<R, Finding>,
    /// How many exchanges each rule looked at (a rule that saw nothing skips).
    looked: HashMap<R, u64>,
}

/// The shared store of one run's cross-cutting findings, keyed by a gate's rule type.
pub struct Findings<R> {
    inner: Arc<Mutex<Inner<R>>>,
}

impl<R> Clone for Findings<R> {
    fn clone(&self) -> Self {
        Self {
            inner: self.inner.clone(),
        }
    }
}

impl<R> Default for Findings<R> {
    fn default() -> Self {
        Self {
            inner: Arc::new(Mutex::new(Inner {
                first: HashMap::new(),
                looked: HashMap::new(),
            })),
        }
    }
}

impl<R> fmt::Debug for Findings<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Findings").finish_non_exhaustive()
    }
}

impl<R: Copy + Eq + Hash> Findings<R> {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner<R>> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Counts one exchange looked at for `rule`.
    pub fn looked(&self, rule: R) {
        *self.lock().looked.entry(rule).or_default() += 1;
    }

    /// Records an offence; the earliest by [`Order`] is kept.
    pub fn offend(&self, rule: R, order: Order, case: &'static str, evidence: String) {
        let mut inner = self.lock();
        *inner.looked.entry(rule).or_default() += 1;
        let keep = inner.first.get(&rule).is_none_or(|f| order < f.order);
        if keep {
            inner.first.insert(
                rule,
                Finding {
                    order,
                    case,
                    evidence,
                },
            );
        }
    }

    /// The first offence against `rule`, and how many exchanges were looked at.
    #[must_use]
    pub fn result(&self, rule: R) -> (Option<Finding>, u64) {
        let inner = self.lock();
        (
            inner.first.get(&rule).cloned(),
            inner.looked.get(&rule).copied().unwrap_or(0),
        )
    }
}

/// Requests sent on one connection: compact id → (method, tool name of a `tools/call`).
pub type Sent = Arc<Mutex<BTreeMap<String, (String, Option<String>)>>>;

/// Notes in `sent` the requests in one line the runner is about to send (a message or a batch;
/// any line that does not parse sends no request), and returns their compact ids. Any readable
/// id may be answered, also on an invalid request: `method` is recorded as sent, or empty.
pub fn note_sent(sent: &Sent, line: &[u8]) -> Vec<String> {
    // A line with invalid UTF-8 (sent on purpose) is read by many servers after a lossy
    // decoding, and answered under the id they find there: it is sent all the same.
    let parsed = serde_json::from_slice::<Value>(line)
        .or_else(|_| serde_json::from_str::<Value>(&String::from_utf8_lossy(line)));
    let Ok(v) = parsed else {
        return Vec::new();
    };
    let items: Vec<&Value> = match &v {
        Value::Array(a) => a.iter().collect(),
        other => vec![other],
    };
    let mut sent = sent.lock().unwrap_or_else(PoisonError::into_inner);
    let mut ids = Vec::new();
    for m in items {
        if let Some(id) = m.get("id").filter(|id| !id.is_null()) {
            let method = m.get("method").and_then(Value::as_str).unwrap_or("");
            let tool = m
                .get("params")
                .and_then(|p| p.get("name"))
                .and_then(Value::as_str)
                .map(str::to_owned);
            sent.insert(id.to_string(), (method.to_owned(), tool));
            ids.push(id.to_string());
        }
    }
    ids
}

/// What the engine made of one message the peer sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seen {
    /// Anything but a repeated answer: the case sees it.
    Fresh,
    /// A second response to a request already answered on this connection: a finding of the id
    /// rule, and no answer to anything the case is waiting for (the case does not see it, so
    /// one defect gets one verdict).
    Repeat,
}

/// What the raw client ([`crate::core::client::Client`]) tells the cross-cutting engine about
/// one connection: each line it sends, and each stdout line it reads.
pub trait Observe: Send + Sync + fmt::Debug {
    /// A line the runner is about to send.
    fn sending(&self, line: &[u8]);
    /// A stdout line (number `line`) that is no JSON-RPC message.
    fn not_protocol(&self, line: u64, evidence: String);
    /// A stdout line (number `line`) that is a JSON-RPC message (or a batch).
    fn message(&self, line: u64, msg: &Value) -> Seen;
    /// Whether a request with id `id` was sent on this connection.
    fn was_sent(&self, id: &Value) -> bool;
}

/// One connection's observer, as the client holds it.
pub type Watcher = Arc<dyn Observe>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_earliest_offence_wins_whatever_the_order_it_arrives_in() {
        let w = Findings::<u8>::default();
        w.offend(0, (5, 0, 1), "b", "late".into());
        w.offend(0, (2, 1, 9), "a", "early".into());
        w.offend(0, (2, 1, 10), "a", "later".into());
        let (f, looked) = w.result(0);
        assert_eq!(f.map(|f| f.evidence), Some("early".to_owned()));
        assert_eq!(looked, 3);
        assert_eq!(w.result(1), (None, 0));
    }

    #[test]
    fn sent_requests_are_noted_by_id_with_method_and_tool() {
        let sent = Sent::default();
        let _ = note_sent(
            &sent,
            br#"[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}},{"id":null}]"#,
        );
        assert!(note_sent(&sent, b"not json").is_empty());
        // Invalid UTF-8 inside a string: a lossy reader still finds the id.
        assert_eq!(
            note_sent(
                &sent,
                b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"\xff\xfe\"}"
            ),
            vec!["7".to_owned()]
        );
        let sent = sent.lock().unwrap_or_else(PoisonError::into_inner);
        assert_eq!(sent.len(), 2);
        assert_eq!(
            sent.get("1"),
            Some(&("tools/call".to_owned(), Some("t".to_owned())))
        );
    }
}
