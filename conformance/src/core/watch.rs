//! The cross-cutting engine: what every connection of every case shows, graded once per rule
//! with the first offending exchange as evidence. A gate names its rules (MCP's are
//! [`crate::mcp::watch`]); the engine gives it the store ([`Findings`]), the order that makes
//! "first" the same at any `--jobs` and load ([`Order`]), the per-connection bookkeeping of what
//! the runner sent ([`Sent`]), and the interface the raw client reports through ([`Observe`]).

use std::collections::{BTreeMap, HashMap, HashSet};
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

/// Which of the runner's lines carry something the peer may answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answerable {
    /// Any readable id, also on an invalid request or on a response-shaped line the runner
    /// sends on purpose (a server may answer it -32600 under its id): MCP.
    AnyId,
    /// Only requests: the runner's own answers to the peer's requests (a `result` or an
    /// `error`, no `method`) owe nothing back, and their ids (the peer's) are no request of the
    /// runner's: ACP, whose agents call the client.
    Requests,
}

/// Notes in `sent` the requests in one line the runner is about to send (a message or a batch;
/// any line that does not parse sends no request), and returns their compact ids. Any readable
/// id may be answered, also on an invalid request: `method` is recorded as sent, or empty.
pub fn note_sent(sent: &Sent, line: &[u8]) -> Vec<String> {
    note_sent_as(sent, line, Answerable::AnyId)
}

/// [`note_sent`], with what counts as answerable.
pub fn note_sent_as(sent: &Sent, line: &[u8], answerable: Answerable) -> Vec<String> {
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
        let reply =
            m.get("method").is_none() && (m.get("result").is_some() || m.get("error").is_some());
        if answerable == Answerable::Requests && reply {
            continue;
        }
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

/// How many messages of a line the runner is about to send carry no readable id and are no
/// reply of the runner's ([`Answerable::Requests`]): a line that does not parse counts one.
fn owing_no_id(line: &[u8], answerable: Answerable) -> u64 {
    let parsed = serde_json::from_slice::<Value>(line)
        .or_else(|_| serde_json::from_str::<Value>(&String::from_utf8_lossy(line)));
    let Ok(v) = parsed else {
        return 1;
    };
    let items: Vec<&Value> = match &v {
        Value::Array(a) if !a.is_empty() => a.iter().collect(),
        other => vec![other],
    };
    let count = items
        .into_iter()
        .filter(|m| {
            let reply = m.get("method").is_none()
                && (m.get("result").is_some() || m.get("error").is_some());
            !(answerable == Answerable::Requests && reply) && m.get("id").is_none_or(Value::is_null)
        })
        .count();
    u64::try_from(count).unwrap_or(u64::MAX)
}

/// The longest line the engine takes a peer to read whole: a longer one (T6's oversized
/// probe) may be answered under id null whatever it holds.
pub const READABLE_LINE_BYTES: usize = 1024 * 1024;

/// What the runner's lines on one connection may draw an error under id null from (JSON-RPC
/// 2.0 §5: null "if there was an error in detecting the id in the Request object"): counts of
/// the lines and messages whose id a peer may not read, and of notifications.
#[derive(Debug, Default)]
struct IdlessSources {
    /// Lines that do not parse as UTF-8 JSON or are too long to read, batches (answered as one
    /// under a revision without them), and messages that are no valid request: no `"jsonrpc":
    /// "2.0"`, a method that is not a string, unstructured params, an id that is null, no
    /// string and no 64-bit integer, or a response-shaped line the runner sends on purpose.
    unreadable: std::sync::atomic::AtomicU64,
    /// Valid notifications (never answered, T3, JSON-RPC 2.0 §4.1).
    notifications: std::sync::atomic::AtomicU64,
    /// Whether an error under id null that may answer a request was hidden from the cases
    /// ([`Idless::Mislabelled`], [`Idless::Ambiguous`]).
    hidden: std::sync::atomic::AtomicBool,
}

impl IdlessSources {
    fn note(&self, line: &[u8], answerable: Answerable) {
        use std::sync::atomic::Ordering::Relaxed;
        let parsed = (line.len() <= READABLE_LINE_BYTES)
            .then(|| serde_json::from_slice::<Value>(line).ok())
            .flatten();
        let Some(v) = parsed else {
            self.unreadable.fetch_add(1, Relaxed);
            return;
        };
        let items: Vec<&Value> = match &v {
            Value::Array(a) => {
                self.unreadable.fetch_add(1, Relaxed);
                a.iter().collect()
            }
            other => vec![other],
        };
        for m in items {
            let reply = m.get("method").is_none()
                && (m.get("result").is_some() || m.get("error").is_some());
            if answerable == Answerable::Requests && reply {
                continue;
            }
            let envelope = m.get("jsonrpc").and_then(Value::as_str) == Some("2.0")
                && m.get("method").is_some_and(Value::is_string)
                && m.get("params")
                    .is_none_or(|p| p.is_object() || p.is_array());
            match m.get("id") {
                None if envelope => self.notifications.fetch_add(1, Relaxed),
                Some(id) if envelope && (id.is_string() || id.is_i64()) => 0,
                _ => self.unreadable.fetch_add(1, Relaxed),
            };
        }
    }
}

/// What an error response under id null (no method) can answer on one connection, from what
/// the runner sent there ([`Owed::idless`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Idless {
    /// A line whose id a peer may not read was sent: the case that sent it counts the answers.
    Unreadable,
    /// Only notifications can have drawn it (no request is pending): an answered notification.
    Notification,
    /// Every line sent was a valid request with a readable id (JSON-RPC 2.0 §5 wants its id
    /// back) or nothing but them may be answered: the id rule's finding.
    Mislabelled,
    /// A request with a readable id is pending and notifications were sent: it answers one or
    /// the other, which the wire does not tell.
    Ambiguous,
}

/// What a peer owes on one connection (JSON-RPC 2.0 §5: "the Server MUST reply with exactly
/// one Response" per request, under its id): the requests the runner sent, and which of them
/// were answered. Every gate's observer keeps one per connection.
#[derive(Debug)]
pub struct Owed {
    sent: Sent,
    answered: Mutex<HashSet<String>>,
    answerable: Answerable,
    /// Lines sent that a peer may answer with an id-less error though they owe no answer
    /// under an id: notifications, lines that do not parse, messages with id null.
    others: std::sync::atomic::AtomicU64,
    /// What the lines sent may draw an error under id null from.
    idless: IdlessSources,
}

/// What one response (a message with a non-null id and no method) is to what the peer owes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Owing {
    /// The first answer to a request the runner sent: (method, or empty for an invalid
    /// request; tool name of a `tools/call`).
    First(String, Option<String>),
    /// A second answer to a request answered already on this connection, however late.
    Repeat(String),
    /// An answer under an id no request of the runner carried on this connection.
    Unsolicited,
}

impl Owed {
    /// Nothing sent yet; `answerable` says which of the runner's lines owe an answer.
    #[must_use]
    pub fn new(answerable: Answerable) -> Self {
        Self {
            sent: Sent::default(),
            answered: Mutex::new(HashSet::new()),
            answerable,
            others: std::sync::atomic::AtomicU64::new(0),
            idless: IdlessSources::default(),
        }
    }

    /// Notes the requests of a line the runner is about to send. An id sent again (a case
    /// reusing one on purpose) may be answered again.
    pub fn sending(&self, line: &[u8]) {
        self.idless.note(line, self.answerable);
        let others = owing_no_id(line, self.answerable);
        self.others
            .fetch_add(others, std::sync::atomic::Ordering::Relaxed);
        let again = note_sent_as(&self.sent, line, self.answerable);
        let mut answered = self.answered.lock().unwrap_or_else(PoisonError::into_inner);
        for id in again {
            answered.remove(&id);
        }
    }

    /// Whether a request with id `id` was sent on this connection.
    #[must_use]
    pub fn was_sent(&self, id: &Value) -> bool {
        self.sent
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .contains_key(&id.to_string())
    }

    /// Whether a request of the runner is still unanswered on this connection.
    #[must_use]
    pub fn pending(&self) -> bool {
        let answered = self.answered.lock().unwrap_or_else(PoisonError::into_inner);
        self.sent
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .keys()
            .any(|id| !answered.contains(id))
    }

    /// The ids (compact JSON text, a string's with its quotes) of the runner's requests still
    /// unanswered on this connection.
    #[must_use]
    pub fn pending_ids(&self) -> Vec<String> {
        let answered = self.answered.lock().unwrap_or_else(PoisonError::into_inner);
        self.sent
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .keys()
            .filter(|id| !answered.contains(*id))
            .cloned()
            .collect()
    }

    /// Whether `id` is the only line the runner sent on this connection that is still owed or
    /// could draw an answer without an id: no other request is pending, and no notification or
    /// unreadable line was ever sent. An error response with no id (JSON-RPC 2.0 §5: null when
    /// the request's id could not be read) can then answer nothing else.
    #[must_use]
    pub fn sole_pending(&self, id: &Value) -> bool {
        if self.others.load(std::sync::atomic::Ordering::Relaxed) > 0 {
            return false;
        }
        let answered = self.answered.lock().unwrap_or_else(PoisonError::into_inner);
        let sent = self.sent.lock().unwrap_or_else(PoisonError::into_inner);
        let key = id.to_string();
        sent.contains_key(&key) && sent.keys().all(|k| answered.contains(k) == (*k != key))
    }

    /// What an error response under id null read now can answer (see [`Idless`]).
    #[must_use]
    pub fn idless(&self) -> Idless {
        use std::sync::atomic::Ordering::Relaxed;
        if self.idless.unreadable.load(Relaxed) > 0 {
            return Idless::Unreadable;
        }
        let notifications = self.idless.notifications.load(Relaxed) > 0;
        let any_request = !self
            .sent
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_empty();
        match (self.pending(), notifications) {
            (true, true) => Idless::Ambiguous,
            (false, true) => Idless::Notification,
            (_, false) if any_request => Idless::Mislabelled,
            // Nothing sent at all: it answers nothing the runner sent.
            (_, false) => Idless::Notification,
        }
    }

    /// Notes a request the transport refused before any JSON-RPC reading of it (an HTTP error
    /// status): its id was never read, so an error under id null may answer it (JSON-RPC 2.0
    /// §5), and the transport's own rule grades the refusal (HTTP-4).
    pub fn unread(&self) {
        self.idless
            .unreadable
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// Notes that an error under id null that may answer a pending request was hidden from the
    /// case: a wait that then runs out is blocked by the id rule ([`Owed::idless_hidden`]).
    pub fn hide_idless(&self) {
        self.idless
            .hidden
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// Whether [`Owed::hide_idless`] was called on this connection.
    #[must_use]
    pub fn idless_hidden(&self) -> bool {
        self.idless
            .hidden
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// What the case gets of an offending answer (`owing` not [`Owing::First`]): a repeat is
    /// hidden, and so is an unsolicited answer read while nothing was pending (it cannot be a
    /// mislabelled answer to anything the case waits for, and must not cut a later wait
    /// short); one read while a request is pending is the case's to see (most likely that
    /// request's answer, mislabelled).
    #[must_use]
    pub fn seen(&self, owing: &Owing) -> Seen {
        match owing {
            Owing::First(..) => Seen::Fresh,
            Owing::Repeat(_) => Seen::Repeat,
            Owing::Unsolicited if self.pending() => Seen::Fresh,
            Owing::Unsolicited => Seen::Stray,
        }
    }

    /// Books one response under `id` (not null) against what the peer owes.
    pub fn answer(&self, id: &Value) -> Owing {
        let request = self
            .sent
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&id.to_string())
            .cloned();
        let Some((method, tool)) = request else {
            return Owing::Unsolicited;
        };
        let first = self
            .answered
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id.to_string());
        if first {
            Owing::First(method, tool)
        } else {
            Owing::Repeat(method)
        }
    }
}

impl Owing {
    /// The id rule's evidence for an offending answer (`None` for a first answer): `id` and
    /// `shown` as the peer wrote them ([`written`]).
    #[must_use]
    pub fn offence(&self, id: &str, shown: &str) -> Option<String> {
        match self {
            Owing::First(..) => None,
            Owing::Unsolicited => Some(format!(
                "a response with id {id}, which no request of the runner carried: {shown}"
            )),
            // JSON-RPC 2.0 §5: the Server MUST reply with exactly one Response per Request.
            Owing::Repeat(method) => Some(format!(
                "a second response to id {id} ({}), which was answered already: {shown}",
                if method.is_empty() {
                    "an invalid request"
                } else {
                    method
                }
            )),
        }
    }
}

/// One message of a stdout line as the peer wrote it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Written {
    /// The message's text.
    pub text: String,
    /// Its `id` member's text (`None`: none, or null).
    pub id: Option<String>,
}

/// Each message of a stdout line as written: one for a message, one per element of a batch;
/// empty when the line is no JSON. serde_json holds an integer beyond 64 bits as a float
/// (18446744073709551616 becomes 1.8446744073709552e+19): evidence quotes the peer's own text.
#[must_use]
pub fn written(line: &[u8]) -> Vec<Written> {
    use serde_json::value::RawValue;
    #[derive(serde::Deserialize)]
    struct IdOf<'a> {
        #[serde(borrow, default)]
        id: Option<&'a RawValue>,
    }
    let one = |raw: &RawValue| Written {
        text: raw.get().to_owned(),
        id: serde_json::from_str::<IdOf<'_>>(raw.get())
            .ok()
            .and_then(|i| i.id)
            .map(|r| r.get().to_owned()),
    };
    let Ok(text) = std::str::from_utf8(line) else {
        return Vec::new();
    };
    if let Ok(items) = serde_json::from_str::<Vec<&RawValue>>(text) {
        return items.into_iter().map(one).collect();
    }
    serde_json::from_str::<&RawValue>(text)
        .map(|raw| vec![one(raw)])
        .unwrap_or_default()
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
    /// A response under an id never sent, read while no request was pending: the id rule's
    /// finding, answering nothing the case could wait for (the case does not see it).
    Stray,
    /// An error under id null that answers no line whose id a peer may not read: an answered
    /// notification's, or a request's under the wrong id ([`Idless`]), graded by the rule it
    /// offends; the case does not see it.
    Idless,
}

/// What the raw client ([`crate::core::client::Client`]) tells the cross-cutting engine about
/// one connection: each line it sends, and each stdout line it reads.
pub trait Observe: Send + Sync + fmt::Debug {
    /// A line the runner is about to send.
    fn sending(&self, line: &[u8]);
    /// A stdout line (number `line`) that is no JSON-RPC message.
    fn not_protocol(&self, line: u64, evidence: String);
    /// A stdout line (number `line`) that is a JSON-RPC message (or a batch), with its text
    /// (`raw`) for evidence quoted as written.
    fn message(&self, line: u64, msg: &Value, raw: &[u8]) -> Seen;
    /// Whether a request with id `id` was sent on this connection.
    fn was_sent(&self, id: &Value) -> bool;
    /// Whether `id` is all this connection may be answering ([`Owed::sole_pending`]).
    fn sole_pending(&self, id: &Value) -> bool;
    /// Whether an error under id null that may answer a pending request was hidden from the
    /// case ([`Owed::idless_hidden`]): a wait that runs out is then blocked by the id rule.
    fn idless_hidden(&self) -> bool {
        false
    }
    /// A request the transport refused before reading it as JSON-RPC ([`Owed::unread`]).
    fn unread(&self) {}
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

    #[test]
    fn each_message_of_a_line_is_quoted_as_written() {
        let line = br#"[{"id":18446744073709551616,"result":{}},{"id":"a"},{"id":null},5]"#;
        let w = written(line);
        assert_eq!(w.len(), 4);
        assert_eq!(w[0].id.as_deref(), Some("18446744073709551616"));
        assert_eq!(w[0].text, r#"{"id":18446744073709551616,"result":{}}"#);
        assert_eq!(w[1].id.as_deref(), Some(r#""a""#));
        assert_eq!((w[2].id.as_deref(), w[3].id.as_deref()), (None, None));
        assert!(written(b"not json").is_empty());
    }

    #[test]
    fn an_id_less_error_can_answer_only_a_lone_request_on_a_connection_without_notifications() {
        let lone = serde_json::json!(-7);
        let owed = Owed::new(Answerable::Requests);
        owed.sending(br#"{"jsonrpc":"2.0","id":-7,"method":"initialize"}"#);
        assert!(owed.sole_pending(&lone));
        // The runner's answer to the agent's request draws no error of its own.
        owed.sending(br#"{"jsonrpc":"2.0","id":3,"result":{}}"#);
        assert!(owed.sole_pending(&lone));
        owed.sending(br#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#);
        assert!(!owed.sole_pending(&lone));
        let _ = owed.answer(&serde_json::json!(2));
        assert!(owed.sole_pending(&lone));
        assert!(!owed.sole_pending(&serde_json::json!(2)));
        // A notification (or a line that does not parse) may draw an id-less error too.
        owed.sending(br#"{"jsonrpc":"2.0","method":"_note"}"#);
        assert!(!owed.sole_pending(&lone));
        let owed = Owed::new(Answerable::AnyId);
        owed.sending(b"not json");
        owed.sending(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
        assert!(!owed.sole_pending(&serde_json::json!(1)));
    }

    #[test]
    fn a_peer_owes_one_answer_per_request_and_none_to_its_own_requests() {
        let owed = Owed::new(Answerable::Requests);
        owed.sending(br#"{"jsonrpc":"2.0","id":1,"method":"session/prompt"}"#);
        // The runner's answer to the agent's request 7 is no request of the runner's.
        owed.sending(br#"{"jsonrpc":"2.0","id":7,"result":{}}"#);
        assert_eq!(
            owed.answer(&serde_json::json!(1)),
            Owing::First("session/prompt".into(), None)
        );
        let again = owed.answer(&serde_json::json!(1));
        assert_eq!(again, Owing::Repeat("session/prompt".into()));
        assert!(
            again
                .offence("1", "{}")
                .is_some_and(|e| e.starts_with("a second response to id 1 (session/prompt)"))
        );
        assert_eq!(owed.answer(&serde_json::json!(7)), Owing::Unsolicited);
        // MCP's runner sends response-shaped lines on purpose: their ids may be answered.
        let owed = Owed::new(Answerable::AnyId);
        owed.sending(br#"{"jsonrpc":"2.0","id":9,"result":{}}"#);
        assert_eq!(
            owed.answer(&serde_json::json!(9)),
            Owing::First(String::new(), None)
        );
    }

    #[test]
    fn what_an_error_under_id_null_can_answer_follows_what_was_sent() {
        let owed = Owed::new(Answerable::AnyId);
        owed.sending(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
        assert_eq!(owed.idless(), Idless::Mislabelled);
        owed.sending(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        assert_eq!(owed.idless(), Idless::Ambiguous);
        let _ = owed.answer(&serde_json::json!(1));
        assert_eq!(owed.idless(), Idless::Notification);
        // Anything whose id a peer may not read: the sending case's to count.
        for line in [
            &b"not json"[..],
            br#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            br#"{"jsonrpc":"1.0","id":2,"method":"ping"}"#,
            br#"{"jsonrpc":"2.0","id":2,"method":7}"#,
            br#"{"jsonrpc":"2.0","id":2,"method":"ping","params":3}"#,
            br#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"ping"}"#,
            br#"[{"jsonrpc":"2.0","id":2,"method":"ping"}]"#,
            b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"\xff\"}",
        ] {
            let owed = Owed::new(Answerable::AnyId);
            owed.sending(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
            owed.sending(line);
            assert_eq!(
                owed.idless(),
                Idless::Unreadable,
                "{}",
                String::from_utf8_lossy(line)
            );
        }
        // A request the transport refused unread (an HTTP error status) counts as such a line.
        let refused = Owed::new(Answerable::AnyId);
        refused.sending(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
        refused.unread();
        assert_eq!(refused.idless(), Idless::Unreadable);
        assert!(!owed.idless_hidden());
        owed.hide_idless();
        assert!(owed.idless_hidden());
    }
}
