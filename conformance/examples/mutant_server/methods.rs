//! The server's state and dispatch: one line in, the lines to write out. Each method's answer
//! is built in one place; the envelope defects (ids, `jsonrpc`, error shapes, stray lines) are
//! applied to the finished answer in [`Server::envelope`].

use serde_json::{Map, Value, json};

use crate::catalogue;
use crate::defects::Defect;
use crate::display;
use crate::wire::{
    self, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, Incoming, METHOD_NOT_FOUND, Out,
    PARSE_ERROR,
};

/// The revisions the server speaks, newest first.
const VERSIONS: [&str; 3] = ["2025-06-18", "2025-03-26", "2024-11-05"];

/// Revisions after the ones the server speaks.
const LATER: [&str; 2] = ["2025-11-25", "2026-07-28"];

/// What the server knows of its connection.
pub struct Server {
    defect: Defect,
    /// Whether 2025-11-25 is spoken too (`--revision-2025-11-25`, or a display defect).
    also_2025_11_25: bool,
    /// The negotiated revision, once `initialize` was answered.
    version: Option<String>,
    /// Requests served on this connection.
    requests: usize,
    /// Whether the oversized line was written already (it is written once).
    oversized_done: bool,
    /// Set by a line that is not JSON under `die-on-bad-line`: exit after writing.
    pub giving_up: bool,
}

impl Server {
    pub fn new(defect: Defect, also_2025_11_25: bool) -> Self {
        Self {
            defect,
            also_2025_11_25,
            version: None,
            requests: 0,
            oversized_done: false,
            giving_up: false,
        }
    }

    fn is(&self, defect: Defect) -> bool {
        self.defect == defect
    }

    /// The answer to a line longer than the server reads (JSON-RPC 2.0 §5.1: an invalid
    /// request whose id cannot be read).
    pub fn oversized(&self) -> Vec<Out> {
        vec![Out::Json(wire::error(
            &Value::Null,
            INVALID_REQUEST,
            "line too long",
        ))]
    }

    /// The lines to write for one line of stdin.
    pub fn line(&mut self, bytes: &[u8]) -> Vec<Out> {
        let value: Value = match serde_json::from_slice(bytes) {
            Ok(v) => v,
            Err(_) if self.is(Defect::ParseErrorSilent) => return Vec::new(),
            Err(_) if self.is(Defect::DieOnBadLine) => {
                // Exits once what came before is written (main reads `giving_up`), so the
                // answers owed for earlier lines do not depend on how reads were split.
                self.giving_up = true;
                return Vec::new();
            }
            Err(_) => {
                return vec![Out::Json(wire::error(
                    &Value::Null,
                    PARSE_ERROR,
                    "parse error",
                ))];
            }
        };
        match value {
            Value::Object(obj) => self.message(obj),
            Value::Array(items) if !items.is_empty() => self.batch(items),
            Value::Array(_) if self.is(Defect::EmptyBatchSilent) => Vec::new(),
            Value::Array(_) => vec![Out::Json(wire::error(
                &Value::Null,
                INVALID_REQUEST,
                "empty batch",
            ))],
            _ if self.is(Defect::ScalarParseError) => {
                vec![Out::Json(wire::error(
                    &Value::Null,
                    PARSE_ERROR,
                    "parse error",
                ))]
            }
            _ => vec![Out::Json(wire::error(
                &Value::Null,
                INVALID_REQUEST,
                "not a request object",
            ))],
        }
    }

    /// A batch: answered as one under 2025-03-26 (the only revision with batches), else refused.
    fn batch(&mut self, items: Vec<Value>) -> Vec<Out> {
        if self.version.as_deref() != Some("2025-03-26") {
            return vec![Out::Json(wire::error(
                &Value::Null,
                INVALID_REQUEST,
                "batches are not part of this revision",
            ))];
        }
        if self.is(Defect::BatchDropped) {
            return Vec::new();
        }
        let mut answers = Vec::new();
        for item in items {
            let outs = match item {
                Value::Object(obj) => self.message(obj),
                _ => vec![Out::Json(wire::error(
                    &Value::Null,
                    INVALID_REQUEST,
                    "not a request object",
                ))],
            };
            answers.extend(outs.into_iter().filter_map(|o| match o {
                Out::Json(v) => Some(v),
                Out::Raw(_) => None,
            }));
        }
        if answers.is_empty() {
            return Vec::new();
        }
        if self.is(Defect::BatchUnwrapped) {
            return answers.into_iter().map(Out::Json).collect();
        }
        vec![Out::Json(Value::Array(answers))]
    }

    fn message(&mut self, mut obj: Map<String, Value>) -> Vec<Out> {
        if self.is(Defect::WrongVersionAccepted) && obj.get("jsonrpc") == Some(&json!("1.0")) {
            obj.insert("jsonrpc".into(), json!("2.0"));
        }
        if self.is(Defect::NullIdAccepted)
            && obj.get("id") == Some(&Value::Null)
            && let Some(method) = obj.get("method").and_then(Value::as_str)
        {
            let method = method.to_owned();
            let params = obj.get("params").cloned().unwrap_or(Value::Null);
            return self.request(Value::Null, &method, &params);
        }
        match wire::classify(&obj) {
            Incoming::Invalid { id, message } => {
                self.envelope("", &id, wire::error(&id, INVALID_REQUEST, message))
            }
            Incoming::Response => Vec::new(),
            Incoming::Notification { method, .. } => self.notification(&method),
            Incoming::Request { id, method, params } => self.request(id, &method, &params),
        }
    }

    fn notification(&mut self, method: &str) -> Vec<Out> {
        eprintln!("mutant-server: notification {method}");
        let answered = match method {
            "notifications/initialized" => self.is(Defect::AnswerInitialized),
            "notifications/cancelled" => self.is(Defect::AnswerCancelled),
            _ => self.is(Defect::AnswerUnknownNotifications),
        };
        let mut outs = Vec::new();
        if answered {
            outs.push(Out::Json(wire::error(
                &Value::Null,
                METHOD_NOT_FOUND,
                "unknown method",
            )));
        }
        let known = matches!(
            method,
            "notifications/initialized" | "notifications/cancelled"
        );
        // Raw lines: a batch keeps them out of its answer (see `batch`).
        if !known && self.is(Defect::JunkAfterUnknownNotification) {
            outs.push(Out::Raw(format!("debug: got {method}").into_bytes()));
        }
        if !known && self.is(Defect::JsonJunkAfterUnknownNotification) {
            outs.push(Out::Raw(
                json!({"debug": {"got": method}}).to_string().into_bytes(),
            ));
        }
        if method == "notifications/initialized" {
            if self.is(Defect::LogBadLevel) {
                outs.push(Out::Json(
                    json!({"jsonrpc": "2.0", "method": "notifications/message",
                    "params": {"level": "verbose", "logger": "mutant", "data": "ready"}}),
                ));
            } else {
                // Logging is allowed at any time after initialize (MCP utilities/logging).
                let mut note = json!({"jsonrpc": "2.0", "method": "notifications/message",
                    "params": {"level": "info", "logger": "mutant", "data": "ready"}});
                if self.is(Defect::NotificationNoJsonrpc) {
                    note.as_object_mut().map(|o| o.remove("jsonrpc"));
                }
                outs.push(Out::Json(note));
            }
        }
        outs
    }

    fn request(&mut self, id: Value, method: &str, params: &Value) -> Vec<Out> {
        self.requests += 1;
        eprintln!("mutant-server: request {method} (#{})", self.requests);
        let mut outs = Vec::new();
        if let Some(answer) = self.dispatch(&id, method, params) {
            outs.extend(self.envelope(method, &id, answer));
        }
        if method == "initialize" && self.is(Defect::RequestBeforeInitialized) {
            outs.push(Out::Json(
                json!({"jsonrpc": "2.0", "id": "mutant-roots-1", "method": "roots/list"}),
            ));
        }
        let noise_at = match self.defect {
            Defect::NoiseAfterThird => Some(3),
            Defect::NoiseAfterEighth => Some(8),
            _ => None,
        };
        if noise_at == Some(self.requests) {
            outs.push(Out::Raw(
                format!("mutant-server: served {} requests", self.requests).into_bytes(),
            ));
        }
        outs
    }

    /// The answer to one request (`None`: no answer).
    fn dispatch(&mut self, id: &Value, method: &str, params: &Value) -> Option<Value> {
        let known = matches!(
            method,
            "tools/list"
                | "tools/call"
                | "resources/list"
                | "resources/read"
                | "resources/templates/list"
                | "prompts/list"
                | "prompts/get"
                | "logging/setLevel"
        );
        if known && self.version.is_none() && !self.is(Defect::ServedBeforeInitialize) {
            return Some(wire::error(id, INVALID_REQUEST, "not initialized"));
        }
        let answer = match method {
            "initialize" => Ok(self.initialize(params)),
            "ping" if self.is(Defect::PingNotEmpty) => Ok(json!({"pong": true})),
            "ping" => Ok(json!({})),
            "tools/list" => catalogue::tools_list(self.defect, params),
            "tools/call" => catalogue::tools_call(self.defect, params),
            "resources/list" => Ok(catalogue::resources_list(self.defect)),
            "resources/read" => catalogue::resources_read(self.defect, params),
            "resources/templates/list" => Ok(json!({"resourceTemplates": []})),
            "prompts/list" => Ok(catalogue::prompts_list(self.defect)),
            "prompts/get" => catalogue::prompts_get(self.defect, params),
            "logging/setLevel" => catalogue::set_level(params),
            _ if self.is(Defect::UnknownMethodSilent) => return None,
            _ if self.is(Defect::UnknownMethodCode) => {
                Err((INVALID_REQUEST, "no such method".to_owned()))
            }
            _ => Err((METHOD_NOT_FOUND, format!("method not found: {method}"))),
        };
        let answer = match answer {
            Ok(result) if self.version.as_deref() == Some(display::REVISION) => {
                Ok(display::decorate(self.defect, method, result))
            }
            other => other,
        };
        Some(match answer {
            Ok(result) => wire::result(id, result),
            Err((code, message)) => wire::error(id, code, &message),
        })
    }

    fn initialize(&mut self, params: &Value) -> Value {
        let asked = params.get("protocolVersion").and_then(Value::as_str);
        let version = match asked {
            Some(v) if VERSIONS.contains(&v) => v,
            Some(display::REVISION) if self.also_2025_11_25 => display::REVISION,
            // Later revisions are not echoed: claiming one is another defect (the gate then
            // grades that revision's own rules).
            Some(v) if self.is(Defect::EchoAnyVersion) && !LATER.contains(&v) => v,
            _ => VERSIONS[0],
        };
        self.version = Some(version.to_owned());
        let answered = if self.is(Defect::VersionNeverOffered) {
            "2025-01-01"
        } else {
            version
        };
        let mut result = json!({
            "protocolVersion": answered,
            "capabilities": {"tools": {"listChanged": false}, "resources": {},
                             "prompts": {"listChanged": false}, "logging": {}},
            "serverInfo": {"name": "mutant-server", "version": "0.1.0"},
            "instructions": "A small server for the gate's mutant suite."
        });
        if self.is(Defect::NoCapabilities) {
            result.as_object_mut().map(|o| o.remove("capabilities"));
        }
        if self.is(Defect::NoServerInfo) {
            result.as_object_mut().map(|o| o.remove("serverInfo"));
        }
        if self.is(Defect::ServerInfoNoVersion) {
            result["serverInfo"]
                .as_object_mut()
                .map(|o| o.remove("version"));
        }
        result
    }

    /// The envelope defects, applied to a finished answer of `method`.
    fn envelope(&mut self, method: &str, id: &Value, mut answer: Value) -> Vec<Out> {
        let mut before = Vec::new();
        let is_error = answer.get("error").is_some();
        let not_found = answer["error"]["code"] == json!(METHOD_NOT_FOUND);
        match self.defect {
            Defect::NoJsonrpcOnPing if method == "ping" => {
                answer.as_object_mut().map(|o| o.remove("jsonrpc"));
            }
            Defect::WrongJsonrpcOnRead if method == "resources/read" => {
                answer["jsonrpc"] = json!("1.0");
            }
            Defect::ResultAndError if not_found => answer["result"] = json!({}),
            Defect::WrongIdOnPing if method == "ping" => {
                answer["id"] = json!(format!("mutant-{id}"));
            }
            Defect::IdTypeOnRead if method == "resources/read" => {
                answer["id"] = match id {
                    Value::Number(n) => json!(n.to_string()),
                    Value::String(s) => s.parse::<i64>().map_or_else(|_| json!(0), |n| json!(n)),
                    other => other.clone(),
                };
            }
            Defect::NullIdOnError if is_error => answer["id"] = Value::Null,
            Defect::WrongIdOnResourcesList if method == "resources/list" => {
                answer["id"] = json!(format!("mutant-{id}"));
            }
            Defect::ErrorNoMessage if not_found => {
                answer["error"].as_object_mut().map(|o| o.remove("message"));
            }
            Defect::JsonLogOnCall if method == "tools/call" => {
                before.push(Out::Json(
                    json!({"level": "info", "msg": "handling tools/call", "logger": "mutant"}),
                ));
            }
            Defect::ErrorNoCode if not_found => {
                answer["error"].as_object_mut().map(|o| o.remove("code"));
            }
            Defect::ErrorCodeString if not_found => {
                answer["error"]["code"] = json!(METHOD_NOT_FOUND.to_string());
            }
            Defect::ErrorNotObject if not_found => answer["error"] = json!("Method not found"),
            Defect::PartialLine if method == "ping" => {
                before.push(Out::Raw(br#"{"jsonrpc":"2.0","id":"#.to_vec()));
            }
            Defect::OversizedPartial if method == "resources/read" && !self.oversized_done => {
                self.oversized_done = true;
                let mut line = br#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"debug","data":""#.to_vec();
                line.resize(line.len() + 17 * 1024 * 1024, b'x');
                before.push(Out::Raw(line));
            }
            _ => {}
        }
        before.push(Out::Json(answer));
        before
    }
}

/// The error of a failed method: a JSON-RPC code and a message.
pub type MethodError = (i64, String);

/// Invalid params (-32602).
pub fn invalid_params(message: &str) -> MethodError {
    (INVALID_PARAMS, message.to_owned())
}

/// An internal error (-32603).
pub fn internal(message: &str) -> MethodError {
    (INTERNAL_ERROR, message.to_owned())
}
