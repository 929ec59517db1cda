//! The agent side of the wire, as the scripted agent logged it (`FAKE_CURSOR_LOG`): every line
//! the client sent (`c2a`) and every line the agent wrote (`a2c`), per agent process, with the
//! agent's own millisecond clock. Grading reads only this: what really crossed the pipe.

use serde_json::Value;

/// At most this many events are kept per case (later ones are counted): memory stays flat
/// whatever a client sends.
pub const MAX_EVENTS: usize = 20_000;

/// One logged event of one agent process.
#[derive(Debug, Clone)]
pub struct Event {
    /// The agent process that logged it.
    pub pid: u32,
    /// Milliseconds since that process started.
    pub ms: u64,
    /// What happened.
    pub kind: Kind,
}

/// What an event is.
#[derive(Debug, Clone)]
pub enum Kind {
    /// The process started with this argv, in this process group.
    Start {
        /// argv after the program name.
        argv: Vec<String>,
        /// Its process group.
        pgid: i32,
    },
    /// A line from the client.
    C2a(Line),
    /// A line from the agent.
    A2c(Line),
    /// The client closed the agent's stdin.
    Eof,
    /// A client line over the agent's bound (only its length is known).
    Oversized(u64),
}

/// A line and, when it is a JSON value, its parse.
#[derive(Debug, Clone)]
pub struct Line {
    /// The text as logged.
    pub raw: String,
    /// The parsed JSON, if it parses.
    pub json: Option<Value>,
}

impl Line {
    /// `method` of a request or notification.
    #[must_use]
    pub fn method(&self) -> Option<&str> {
        self.json.as_ref()?.get("method")?.as_str()
    }

    /// `id`, if any.
    #[must_use]
    pub fn id(&self) -> Option<&Value> {
        self.json.as_ref()?.get("id")
    }

    /// Whether this is a request (a method and an id).
    #[must_use]
    pub fn is_request(&self) -> bool {
        self.method().is_some() && self.id().is_some()
    }

    /// Whether this is a response (`result` or `error`, no method) to request `id`.
    #[must_use]
    pub fn is_response_to(&self, id: &Value) -> bool {
        let Some(v) = &self.json else { return false };
        v.get("method").is_none()
            && (v.get("result").is_some() || v.get("error").is_some())
            && v.get("id") == Some(id)
    }

    /// `params`, or null.
    #[must_use]
    pub fn params(&self) -> &Value {
        self.json
            .as_ref()
            .and_then(|v| v.get("params"))
            .unwrap_or(&Value::Null)
    }
}

/// Parses one log line; `None` for a line that is not a log event.
#[must_use]
pub fn parse_event(text: &str) -> Option<Event> {
    let v: Value = serde_json::from_str(text).ok()?;
    let pid = u32::try_from(v.get("pid")?.as_u64()?).ok()?;
    let ms = v.get("ms").and_then(Value::as_u64).unwrap_or(0);
    let raw = || {
        v.get("raw")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    let line = |raw: String| Line {
        json: serde_json::from_str(&raw).ok(),
        raw,
    };
    let kind = match v.get("event")?.as_str()? {
        "start" => Kind::Start {
            argv: v
                .get("argv")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default(),
            pgid: i32::try_from(v.get("pgid").and_then(Value::as_i64).unwrap_or(0)).unwrap_or(0),
        },
        "c2a" => Kind::C2a(line(raw())),
        "a2c" => Kind::A2c(line(raw())),
        "eof" => Kind::Eof,
        "c2a_oversized" => Kind::Oversized(v.get("bytes").and_then(Value::as_u64).unwrap_or(0)),
        _ => return None,
    };
    Some(Event { pid, ms, kind })
}

/// Every event of one case.
#[derive(Debug, Clone, Default)]
pub struct Wire {
    /// In the order logged.
    pub events: Vec<Event>,
    /// Events over [`MAX_EVENTS`], not kept.
    pub dropped: u64,
}

/// An agent → client request as sent.
#[derive(Debug, Clone)]
pub struct AgentRequest {
    /// When (agent clock).
    pub ms: u64,
    /// Its id.
    pub id: Value,
    /// Its method.
    pub method: String,
    /// Its params.
    pub params: Value,
}

impl Wire {
    /// Adds an event (counted, not kept, over the bound).
    pub fn push(&mut self, e: Event) {
        if self.events.len() >= MAX_EVENTS {
            self.dropped += 1;
        } else {
            self.events.push(e);
        }
    }

    /// The process that spoke ACP: the first started with `acp` in its argv, else the first
    /// that received a client line.
    #[must_use]
    pub fn acp_pid(&self) -> Option<u32> {
        self.events
            .iter()
            .find_map(|e| match &e.kind {
                Kind::Start { argv, .. } if argv.iter().any(|a| a == "acp") => Some(e.pid),
                _ => None,
            })
            .or_else(|| {
                self.events
                    .iter()
                    .find_map(|e| matches!(e.kind, Kind::C2a(_)).then_some(e.pid))
            })
    }

    /// Every agent process started, with its process group.
    #[must_use]
    pub fn processes(&self) -> Vec<(u32, i32, Vec<String>)> {
        self.events
            .iter()
            .filter_map(|e| match &e.kind {
                Kind::Start { argv, pgid } => Some((e.pid, *pgid, argv.clone())),
                _ => None,
            })
            .collect()
    }

    /// Client lines received by process `pid`, with their times.
    pub fn c2a(&self, pid: u32) -> impl Iterator<Item = (u64, &Line)> {
        self.events.iter().filter_map(move |e| match &e.kind {
            Kind::C2a(l) if e.pid == pid => Some((e.ms, l)),
            _ => None,
        })
    }

    /// Lines written by process `pid`, with their times.
    pub fn a2c(&self, pid: u32) -> impl Iterator<Item = (u64, &Line)> {
        self.events.iter().filter_map(move |e| match &e.kind {
            Kind::A2c(l) if e.pid == pid => Some((e.ms, l)),
            _ => None,
        })
    }

    /// Client lines of every process (authenticate may go to any).
    pub fn all_c2a(&self) -> impl Iterator<Item = (u32, u64, &Line)> {
        self.events.iter().filter_map(|e| match &e.kind {
            Kind::C2a(l) => Some((e.pid, e.ms, l)),
            _ => None,
        })
    }

    /// When process `pid` saw its stdin end.
    #[must_use]
    pub fn eof_ms(&self, pid: u32) -> Option<u64> {
        self.events
            .iter()
            .find_map(|e| (e.pid == pid && matches!(e.kind, Kind::Eof)).then_some(e.ms))
    }

    /// The agent's requests to the client, in order.
    #[must_use]
    pub fn agent_requests(&self, pid: u32) -> Vec<AgentRequest> {
        self.a2c(pid)
            .filter(|(_, l)| l.is_request())
            .filter_map(|(ms, l)| {
                Some(AgentRequest {
                    ms,
                    id: l.id()?.clone(),
                    method: l.method()?.to_owned(),
                    params: l.params().clone(),
                })
            })
            .collect()
    }

    /// The client's first response to agent request `r` (sent at or after it), with its time.
    #[must_use]
    pub fn answer_to(&self, pid: u32, r: &AgentRequest) -> Option<(u64, &Value)> {
        self.c2a(pid)
            .filter(|(ms, _)| *ms >= r.ms)
            .find(|(_, l)| l.is_response_to(&r.id))
            .and_then(|(ms, l)| Some((ms, l.json.as_ref()?)))
    }

    /// The times of the client's responses to process `pid` under an id no agent request
    /// logged before them carried (a made-up id, a request's own retyped, or null): what an
    /// answer under the wrong id looks like on the wire.
    #[must_use]
    pub fn stray_answers(&self, pid: u32) -> Vec<u64> {
        let mut asked: Vec<&Value> = Vec::new();
        let mut stray = Vec::new();
        for e in self.events.iter().filter(|e| e.pid == pid) {
            match &e.kind {
                Kind::A2c(l) if l.is_request() => asked.extend(l.id()),
                Kind::C2a(l) => {
                    let Some(v) = &l.json else { continue };
                    let response = v.get("method").is_none()
                        && (v.get("result").is_some() || v.get("error").is_some());
                    if response && !asked.contains(&v.get("id").unwrap_or(&Value::Null)) {
                        stray.push(e.ms);
                    }
                }
                _ => {}
            }
        }
        stray
    }

    /// The client's first request with `method`, with its time and line.
    #[must_use]
    pub fn client_request(&self, pid: u32, method: &str) -> Option<(u64, &Line)> {
        self.c2a(pid)
            .find(|(_, l)| l.method() == Some(method) && l.id().is_some())
    }

    /// The client's first notification with `method`.
    #[must_use]
    pub fn client_notification(&self, pid: u32, method: &str) -> Option<(u64, &Line)> {
        self.c2a(pid)
            .find(|(_, l)| l.method() == Some(method) && l.id().is_none())
    }

    /// The agent's answer to the client's `session/prompt`, with its time: `(ms, stopReason or
    /// error text)`.
    #[must_use]
    pub fn prompt_answer(&self, pid: u32) -> Option<(u64, String)> {
        let (_, prompt) = self.client_request(pid, "session/prompt")?;
        let id = prompt.id()?;
        self.a2c(pid)
            .find(|(_, l)| l.is_response_to(id))
            .and_then(|(ms, l)| {
                let v = l.json.as_ref()?;
                let what = match v.pointer("/result/stopReason").and_then(Value::as_str) {
                    Some(s) => s.to_owned(),
                    None => format!("error {}", v.get("error").unwrap_or(&Value::Null)),
                };
                Some((ms, what))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(text: &str) -> Event {
        parse_event(text).expect("an event")
    }

    #[test]
    fn a_request_under_a_colliding_id_is_not_taken_for_the_response() {
        let mut w = Wire::default();
        w.push(ev(
            r#"{"event":"start","ms":0,"pid":7,"pgid":7,"argv":["acp"]}"#,
        ));
        w.push(ev(
            r#"{"event":"c2a","ms":1,"pid":7,"raw":"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"session/prompt\",\"params\":{\"sessionId\":\"s\"}}"}"#,
        ));
        w.push(ev(
            r#"{"event":"a2c","ms":2,"pid":7,"raw":"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"session/request_permission\",\"params\":{}}"}"#,
        ));
        w.push(ev(
            r#"{"event":"c2a","ms":3,"pid":7,"raw":"{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"outcome\":{\"outcome\":\"cancelled\"}}}"}"#,
        ));
        w.push(ev(
            r#"{"event":"a2c","ms":4,"pid":7,"raw":"{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"stopReason\":\"end_turn\"}}"}"#,
        ));
        assert_eq!(w.acp_pid(), Some(7));
        let reqs = w.agent_requests(7);
        assert_eq!(reqs.len(), 1);
        assert_eq!(w.answer_to(7, &reqs[0]).map(|(ms, _)| ms), Some(3));
        assert_eq!(w.prompt_answer(7), Some((4, "end_turn".to_owned())));
    }

    #[test]
    fn answers_under_ids_the_agent_never_sent_are_stray() {
        let mut w = Wire::default();
        for (ms, dir, raw) in [
            (1, "c2a", r#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
            (
                2,
                "a2c",
                r#"{"jsonrpc":"2.0","id":1,"method":"cursor/task"}"#,
            ),
            (3, "c2a", r#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
            (4, "c2a", r#"{"jsonrpc":"2.0","id":"1","result":{}}"#),
            (5, "c2a", r#"{"jsonrpc":"2.0","id":null,"error":{}}"#),
            (
                6,
                "c2a",
                r#"{"jsonrpc":"2.0","id":9,"method":"session/new"}"#,
            ),
        ] {
            let e = serde_json::json!({"event": dir, "ms": ms, "pid": 7, "raw": raw});
            w.push(ev(&e.to_string()));
        }
        // Before the request, id 1 answered nothing either.
        assert_eq!(w.stray_answers(7), [1, 4, 5]);
    }

    #[test]
    fn lines_that_are_not_log_events_are_ignored() {
        assert!(parse_event("not json").is_none());
        assert!(
            parse_event(r#"{"event":"c2a","ms":1,"raw":"x"}"#).is_none(),
            "no pid"
        );
        let e = ev(r#"{"event":"c2a","ms":1,"pid":3,"raw":"{cut"}"#);
        assert!(matches!(e.kind, Kind::C2a(ref l) if l.json.is_none() && l.raw == "{cut"));
    }
}
