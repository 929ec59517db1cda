//! The ACP agent: one loop that takes the client's messages in order and answers them through
//! one dispatch table (a file per method), like `cursor-agent acp`. Routing is by shape (ACP-1):
//! a `method` with an `id` is a request, without one a notification, and `result`/`error` is an
//! answer to one of our own requests (ids may collide with the client's; shape decides).
//!
//! End of input (spike, item 6): with no prompt turn answered yet the agent exits 0 after the
//! profile's `idle_exit_ms` (≈0.5 s, measured 564 ms); once a turn was answered it never exits on
//! EOF (10/10 runs) and only a signal (or the safety lifetime) ends it.

mod authenticate;
mod initialize;
mod prompt;
mod session_load;
mod session_new;
mod set_config;
mod set_mode;
pub mod turn;
pub mod vars;

use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::argv::Options;
use crate::input::Input;
use crate::out::Out;
use crate::profile::Profile;
use crate::scenario::Scenario;
use crate::{process, rpc};

/// A session created by `session/new` or `session/load`.
#[derive(Debug, Clone)]
pub struct Session {
    /// The ACP session id.
    pub id: String,
    /// The working directory the client gave.
    pub cwd: String,
    /// The current mode (`agent`, `plan`, `ask`).
    pub mode: String,
    /// The current model id.
    pub model: String,
}

/// What the next client message is, for a caller that waits.
#[derive(Debug)]
pub enum Next {
    /// A message.
    Msg(Value),
    /// stdin has ended (now or earlier).
    Eof,
    /// The deadline passed first.
    Timeout,
}

/// What handling a message means for a running turn.
#[derive(Debug)]
pub enum Handled {
    /// Answered or ignored; nothing for the turn.
    Done,
    /// The client answered one of our requests.
    Answer(Value),
    /// `session/cancel` for this session id.
    Cancel(String),
    /// `session/prompt` (the caller runs the turn or refuses it).
    Prompt(Value),
}

/// The agent's state.
pub struct Agent {
    /// stdout.
    pub out: Out,
    rx: Receiver<Input>,
    /// Cursor's standing answers.
    pub profile: Profile,
    /// argv.
    pub opts: Options,
    /// The process scenario (handshake, and the turn when the prompt names none).
    pub base: Scenario,
    /// Sessions by creation order.
    pub sessions: Vec<Session>,
    /// Prompt turns answered so far.
    pub turns_answered: u64,
    /// The `clientCapabilities` of the client's `initialize` (null before it).
    pub client_caps: Value,
    next_request_id: u64,
    eof: bool,
}

impl Agent {
    /// An agent reading from `rx` and writing to `out`.
    pub fn new(
        rx: Receiver<Input>,
        out: Out,
        profile: Profile,
        opts: Options,
        base: Scenario,
    ) -> Self {
        Self {
            out,
            rx,
            profile,
            opts,
            base,
            sessions: Vec::new(),
            turns_answered: 0,
            client_caps: Value::Null,
            next_request_id: 0,
            eof: false,
        }
    }

    /// Serves the client until the process ends.
    pub fn run(mut self) -> ! {
        loop {
            match self.next(None) {
                Next::Msg(msg) => match self.handle(msg) {
                    Handled::Prompt(msg) => prompt::handle(&mut self, &msg),
                    // Idle: stale answers to abandoned requests and cancels without a turn
                    // change nothing.
                    Handled::Done | Handled::Answer(_) | Handled::Cancel(_) => {}
                },
                Next::Eof => self.on_eof(),
                Next::Timeout => {}
            }
        }
    }

    fn on_eof(&self) -> ! {
        if self.turns_answered > 0 {
            process::hang();
        }
        std::thread::sleep(Duration::from_millis(self.profile.idle_exit_ms()));
        process::exit(0)
    }

    /// The next client message, waiting until `deadline` (forever when `None`).
    pub fn next(&mut self, deadline: Option<Instant>) -> Next {
        if self.eof {
            if let Some(d) = deadline {
                std::thread::sleep(d.saturating_duration_since(Instant::now()));
                return Next::Timeout;
            }
            return Next::Eof;
        }
        let got = match deadline {
            None => self.rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
            Some(d) => self
                .rx
                .recv_timeout(d.saturating_duration_since(Instant::now())),
        };
        match got {
            Ok(Input::Msg(v)) => Next::Msg(v),
            Ok(Input::Eof) | Err(RecvTimeoutError::Disconnected) => {
                self.eof = true;
                Next::Eof
            }
            Err(RecvTimeoutError::Timeout) => Next::Timeout,
        }
    }

    /// A fresh id for an agent → client request (a counter from 0, as Cursor's SDK numbers them).
    pub fn request_id(&mut self) -> Value {
        let id = self.next_request_id;
        self.next_request_id += 1;
        Value::from(id)
    }

    /// The session `params.sessionId` names.
    pub fn session_index(&self, params: &Value) -> Option<usize> {
        let id = params.get("sessionId")?.as_str()?;
        self.sessions.iter().position(|s| s.id == id)
    }

    /// Whether the client advertised capability `name` as `true` (a dotted path inside
    /// `clientCapabilities`: `terminal`, `fs.readTextFile`).
    pub fn advertised(&self, name: &str) -> bool {
        let pointer = format!("/{}", name.replace('.', "/"));
        self.client_caps.pointer(&pointer) == Some(&Value::Bool(true))
    }

    /// Answers `id` with `result`.
    pub fn reply(&mut self, id: &Value, result: Value) {
        self.out.send(&rpc::result(id, result));
    }

    /// Answers `id` with the error object `error`.
    pub fn reply_error(&mut self, id: &Value, error: Value) {
        self.out.send(&rpc::error(id, error));
    }

    /// Handles one client message: the dispatch table.
    pub fn handle(&mut self, msg: Value) -> Handled {
        let Some(method) = msg.get("method").and_then(Value::as_str).map(str::to_owned) else {
            return Handled::Answer(msg);
        };
        let params = msg.get("params").cloned().unwrap_or(Value::Null);
        let Some(id) = msg.get("id").cloned() else {
            if method == "session/cancel" {
                let sid = params.get("sessionId").and_then(Value::as_str);
                return Handled::Cancel(sid.unwrap_or_default().to_owned());
            }
            return Handled::Done; // other notifications: ignored
        };
        if self.base.handshake.unsigned_ids && id.as_i64().is_some_and(|n| n < 0) {
            // Not even the id survives a reader that wants it unsigned.
            self.out.send(&serde_json::json!({"jsonrpc": "2.0",
                "error": {"code": -32700, "message": "Parse error"}}));
            return Handled::Done;
        }
        match method.as_str() {
            "initialize" => initialize::handle(self, &id, &params),
            "authenticate" => authenticate::handle(self, &id),
            "session/new" => session_new::handle(self, &id, &params),
            "session/load" => session_load::handle(self, &id, &params),
            "session/set_mode" => set_mode::handle(self, &id, &params),
            "session/set_config_option" => set_config::config_option(self, &id, &params),
            "session/set_model" | "unstable_setSessionModel" | "session/unstable_set_model" => {
                set_config::model(self, &id, &params);
            }
            "session/prompt" => return Handled::Prompt(msg),
            _ => self.reply_error(&id, rpc::method_not_found(&method)),
        }
        Handled::Done
    }
}
