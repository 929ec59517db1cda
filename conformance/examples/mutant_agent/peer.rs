//! The agent's side of the connection: writing messages, the client's answers to the agent's
//! own requests, the sessions, and every method but the prompt turn (`turn.rs`).

use std::collections::HashMap;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{Map, Value, json};

use crate::defects::Defect;

/// The modes every session offers (docs session-modes).
const MODES: [&str; 2] = ["ask", "code"];

/// One session the agent created.
#[derive(Clone)]
pub struct Session {
    /// Its working directory (absolute, from `session/new`).
    pub cwd: String,
    /// Set by `session/cancel`; cleared when a new turn starts.
    pub cancelled: Arc<AtomicBool>,
}

struct Inner {
    defect: Defect,
    out: Mutex<std::io::Stdout>,
    sessions: Mutex<HashMap<String, Session>>,
    /// The agent's own requests waiting for the client's answer, by id.
    pending: Mutex<HashMap<String, Sender<Value>>>,
    /// Whether the client offered `fs.readTextFile` (schema ClientCapabilities).
    client_fs: AtomicBool,
    next: AtomicU64,
}

/// The connection, shared by the reader and every turn.
#[derive(Clone)]
pub struct Peer(Arc<Inner>);

/// A success response.
pub fn result_answer(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// An error response.
pub fn error_answer(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Peer {
    pub fn new(defect: Defect) -> Self {
        Self(Arc::new(Inner {
            defect,
            out: Mutex::new(std::io::stdout()),
            sessions: Mutex::new(HashMap::new()),
            pending: Mutex::new(HashMap::new()),
            client_fs: AtomicBool::new(false),
            next: AtomicU64::new(1),
        }))
    }

    pub fn defect(&self) -> Defect {
        self.0.defect
    }

    pub fn is(&self, defect: Defect) -> bool {
        self.0.defect == defect
    }

    pub fn client_fs(&self) -> bool {
        self.0.client_fs.load(Ordering::SeqCst)
    }

    /// Writes one message on its own line.
    pub fn send(&self, msg: &Value) {
        let mut line = serde_json::to_vec(msg).unwrap_or_default();
        line.push(b'\n');
        self.raw(&line);
    }

    /// Writes bytes as they are.
    pub fn raw(&self, bytes: &[u8]) {
        let mut out = lock(&self.0.out);
        if out.write_all(bytes).and_then(|()| out.flush()).is_err() {
            std::process::exit(0);
        }
    }

    /// Sends a request to the client; its answer arrives on the receiver.
    pub fn request(&self, method: &str, params: Value) -> Receiver<Value> {
        let n = self.0.next.fetch_add(1, Ordering::SeqCst);
        let id = format!("mutant-agent-{n}");
        let (tx, rx) = channel();
        lock(&self.0.pending).insert(id.clone(), tx);
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        rx
    }

    /// The session `id`, when the agent created it.
    pub fn session(&self, id: &str) -> Option<Session> {
        lock(&self.0.sessions).get(id).cloned()
    }

    /// The id an answer carries for request id `id` (its defects change it).
    pub fn answer_id(&self, id: &Value) -> Value {
        match (self.defect(), id) {
            (Defect::StringIdRetyped, Value::String(s)) => {
                s.parse::<i64>().map_or_else(|_| json!("0"), |n| json!(n))
            }
            (Defect::BigIdAsFloat, Value::Number(n)) => match n.as_u64() {
                // u64 → f64 rounds above 2^53: what a JavaScript-like reader does to big ids.
                #[expect(clippy::cast_precision_loss, reason = "the defect is the rounding")]
                Some(v) if v > 1 << 31 => json!(v as f64),
                _ => id.clone(),
            },
            _ => id.clone(),
        }
    }

    /// One message from the client.
    pub fn incoming(&self, msg: Map<String, Value>) {
        let Some(method) = msg.get("method").and_then(Value::as_str) else {
            // A response to one of the agent's requests.
            let id = msg.get("id").and_then(Value::as_str).unwrap_or_default();
            if let Some(tx) = lock(&self.0.pending).remove(id) {
                let _ = tx.send(Value::Object(msg.clone()));
            }
            return;
        };
        let params = msg.get("params").cloned().unwrap_or(json!({}));
        let Some(id) = msg.get("id") else {
            self.notification(method, &params);
            return;
        };
        if msg.get("jsonrpc") != Some(&json!("2.0")) {
            self.send(&error_answer(id, -32600, "jsonrpc must be \"2.0\""));
            return;
        }
        eprintln!("mutant-agent: {method}");
        let answer = self.request_from_client(id, method, &params);
        if let Some(answer) = answer {
            self.send(&answer);
        }
    }

    fn notification(&self, method: &str, params: &Value) {
        eprintln!("mutant-agent: notification {method}");
        if method == "session/cancel" {
            let id = params["sessionId"].as_str().unwrap_or_default();
            if let (Some(s), false) = (self.session(id), self.is(Defect::CancelIgnored)) {
                s.cancelled.store(true, Ordering::SeqCst);
            }
        } else if self.is(Defect::AnswerNotification) {
            self.send(&error_answer(&Value::Null, -32601, "method not found"));
        }
    }

    fn request_from_client(&self, id: &Value, method: &str, params: &Value) -> Option<Value> {
        let aid = self.answer_id(id);
        let answer = match method {
            "initialize" => Ok(self.initialize(params)),
            "authenticate" => Err((-32602, "no authentication method".to_owned())),
            "session/new" => self.new_session(params),
            "session/load" if self.is(Defect::LoadUnadvertisedAccepted) => Ok(json!({})),
            "session/load" => Err((-32601, "loadSession is not supported".to_owned())),
            "session/set_mode" => self.set_mode(params),
            "session/prompt" => return self.prompt(id, params),
            m if m.starts_with('_') && self.is(Defect::ExtMethodCode) => {
                Err((-32603, "extension failed".to_owned()))
            }
            _ if self.is(Defect::UnknownMethodCode) => Err((-32600, "no such method".to_owned())),
            _ => Err((-32601, format!("method not found: {method}"))),
        };
        Some(match answer {
            Ok(r) => result_answer(&aid, r),
            Err((code, message)) => error_answer(&aid, code, &message),
        })
    }

    fn initialize(&self, params: &Value) -> Value {
        let proposed = &params["protocolVersion"];
        let fs = params["clientCapabilities"]["fs"]["readTextFile"] == json!(true);
        self.0.client_fs.store(fs, Ordering::SeqCst);
        // docs initialization: the same version when supported, else the latest supported.
        let version = match (self.defect(), proposed.as_u64()) {
            (Defect::VersionEcho, Some(_)) => proposed.clone(),
            (Defect::VersionString, _) => json!("1"),
            _ => json!(1),
        };
        let http = if self.is(Defect::CapabilityNotBoolean) {
            json!("no")
        } else {
            json!(false)
        };
        let auth = if self.is(Defect::AuthMethodNoId) {
            json!([{"name": "Log in", "description": "Opens a browser"}])
        } else {
            json!([])
        };
        json!({"protocolVersion": version,
               "agentCapabilities": {"loadSession": false,
                   "promptCapabilities": {"image": true, "audio": false, "embeddedContext": true},
                   "mcpCapabilities": {"http": http, "sse": false}},
               "authMethods": auth,
               "agentInfo": {"name": "mutant-agent", "title": "Mutant agent", "version": "0.1.0"}})
    }

    fn new_session(&self, params: &Value) -> Result<Value, (i64, String)> {
        let cwd = params["cwd"].as_str().unwrap_or_default();
        if !cwd.starts_with('/') && !self.is(Defect::RelativeCwdAccepted) {
            return Err((-32602, "cwd must be an absolute path".into()));
        }
        if !params["mcpServers"].is_array() && !self.is(Defect::MissingMcpServersAccepted) {
            return Err((-32602, "mcpServers is required".into()));
        }
        let n = self.0.next.fetch_add(1, Ordering::SeqCst);
        let id = if self.is(Defect::SameSessionId) {
            "mutant-session".to_owned()
        } else {
            format!("mutant-session-{n}")
        };
        let session = Session {
            cwd: cwd.to_owned(),
            cancelled: Arc::new(AtomicBool::new(false)),
        };
        lock(&self.0.sessions).insert(id.clone(), session);
        let modes: Vec<Value> = MODES
            .iter()
            .map(|m| json!({"id": m, "name": m.to_uppercase()}))
            .collect();
        let mut result = json!({"sessionId": id,
            "modes": {"currentModeId": MODES[0], "availableModes": modes}});
        if self.is(Defect::SessionNoId) {
            result.as_object_mut().map(|o| o.remove("sessionId"));
        }
        Ok(result)
    }

    fn set_mode(&self, params: &Value) -> Result<Value, (i64, String)> {
        let session = params["sessionId"].as_str().unwrap_or_default();
        if self.session(session).is_none() {
            return Err((-32602, "unknown session".into()));
        }
        let mode = params["modeId"].as_str().unwrap_or_default();
        match (MODES.contains(&mode), self.defect()) {
            (true, Defect::SetModeFails) => Err((-32603, "mode switch failed".into())),
            (true, _) | (false, Defect::SetModeUnknownAccepted) => Ok(json!({})),
            (false, _) => Err((-32602, format!("no mode {mode}"))),
        }
    }

    /// `session/prompt`: refused at once (an unknown session, content it does not take), else
    /// answered by a turn of its own.
    fn prompt(&self, id: &Value, params: &Value) -> Option<Value> {
        let aid = self.answer_id(id);
        let session_id = params["sessionId"].as_str().unwrap_or_default().to_owned();
        let Some(session) = self.session(&session_id) else {
            return Some(error_answer(&aid, -32602, "unknown session"));
        };
        for block in params["prompt"].as_array().into_iter().flatten() {
            let refused = match block["type"].as_str().unwrap_or_default() {
                "text" | "resource" => false,
                "resource_link" => self.is(Defect::ResourceLinkRefused),
                "image" => self.is(Defect::ImageRefused),
                "audio" => !self.is(Defect::AudioUnadvertisedAccepted),
                _ => true,
            };
            if refused {
                return Some(error_answer(
                    &aid,
                    -32602,
                    &format!("content of type {} is not supported", block["type"]),
                ));
            }
        }
        session.cancelled.store(false, Ordering::SeqCst);
        let peer = self.clone();
        std::thread::spawn(move || crate::turn::run(&peer, &aid, &session_id, &session));
        None
    }
}
