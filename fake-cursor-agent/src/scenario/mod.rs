//! Scenarios: what the fake agent does, as data (`scenarios/*.json`, embedded by build.rs). A
//! scenario has a `handshake` part (how `initialize` and `session/new` behave, whether
//! `loadSession` is advertised, the auth rule) and the `steps` of a prompt turn. The format is in
//! README.md; this module holds the model, the parser is in `parse.rs`.

mod parse;

use nix::sys::signal::Signal;
use serde_json::Value;

include!(concat!(env!("OUT_DIR"), "/builtin_scenarios.rs"));

/// Env variable naming the scenario of the whole process (handshake and default turn).
pub const ENV_SCENARIO: &str = "FAKE_CURSOR_SCENARIO";
/// The prompt line prefix that picks the turn's scenario.
pub const PROMPT_PREFIX: &str = "scenario:";
/// The scenario used when nothing selects one.
pub const DEFAULT: &str = "default";

/// A loaded scenario.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// How the handshake behaves (used only for the process scenario).
    pub handshake: Handshake,
    /// The turn.
    pub steps: Vec<Step>,
    /// Milliseconds between `session/cancel` and the `cancelled` answer (profile default).
    pub cancel_answer_ms: Option<u64>,
}

/// Handshake behaviour.
#[derive(Debug, Clone, Default)]
pub struct Handshake {
    /// `initialize`.
    pub initialize: Phase,
    /// `session/new` (and `session/load`).
    pub session_new: Phase,
    /// Whether `session/new` demands credentials.
    pub auth: Auth,
    /// Advertise `loadSession` and answer `session/load`.
    pub load_session: bool,
    /// The `modes` of `session/new` and `session/load` answers instead of the profile's
    /// (`Some(Null)`: no `modes` at all).
    pub modes: Option<Value>,
    /// How `session/set_mode` is answered.
    pub set_mode: SetMode,
    /// Read request ids as unsigned: a request under a negative integer id is answered
    /// `-32700` "Parse error" with no id at all (codex-acp's reading).
    pub unsigned_ids: bool,
}

/// How `session/set_mode` is answered.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SetMode {
    /// A mode the session advertises is switched to (`current_mode_update`, then `{}`); another
    /// is `-32602` (default).
    #[default]
    Advertised,
    /// Any mode is answered `{}` and nothing changes (an agent without modes that still answers).
    Ignore,
    /// Every mode is refused with `-32603`.
    Refuse,
}

/// A handshake step's timing.
#[derive(Debug, Clone, Default)]
pub struct Phase {
    /// Delay before the answer.
    pub delay_ms: u64,
    /// Never answer (the agent is stuck from then on).
    pub hang: bool,
    /// The result to answer with instead of the profile's, as it is (only for `initialize`).
    pub result: Option<Value>,
}

/// The auth rule of `session/new`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Auth {
    /// The fake needs no credentials: `session/new` always works (default).
    #[default]
    None,
    /// Real behaviour: `session/new` fails -32000 "Authentication required" unless env
    /// `CURSOR_API_KEY` is set and non-empty or `--api-key` was given.
    Env,
}

/// One step of a turn.
#[derive(Debug, Clone)]
pub enum Step {
    /// `session/update` with this `update` (placeholders filled).
    Update(Value),
    /// Any notification.
    Notify { method: String, params: Value },
    /// An agent → client request.
    Request(RequestStep),
    /// A pause (a cancel ends it early).
    SleepMs(u64),
    /// Serve client messages until this many answers to the agent's requests have come in the
    /// turn (those served before this step count), whatever their ids (for requests written as
    /// `raw` lines, whose ids the fake cannot hold).
    AwaitAnswers(u64),
    /// Stop answering anything, ignore cancel, never exit (until the safety lifetime).
    Hang,
    /// Exit with this status.
    Exit(i32),
    /// Die by this signal.
    Signal(Signal),
    /// Bytes as they are (garbage, malformed JSON), then a newline unless `newline` is false.
    Raw { bytes: Vec<u8>, newline: bool },
    /// A valid JSON line of exactly `bytes` bytes: `msg` with the string at `pad` grown.
    Line {
        bytes: usize,
        msg: Value,
        pad: String,
    },
    /// Text on stderr.
    Stderr { text: String, newline: bool },
    /// Answer `session/prompt`; the turn's later steps still run (no cancel after this).
    Answer(Answer),
    /// Answer `session/prompt` once more, answered or not (a defect on purpose: JSON-RPC 2.0
    /// §5 asks for exactly one response per request).
    AnswerAgain(Answer),
    /// The nested steps N times, `{{i}}` = 0..N-1.
    Repeat { n: u64, steps: Vec<Step> },
    /// Branch on the session's current mode (`"*"` matches any).
    Mode(Vec<(String, Vec<Step>)>),
    /// Branch on what the client advertised in `initialize`: the first branch (in key order)
    /// naming a capability it set `true` (`terminal`, `fs.readTextFile`), else `"*"`.
    Capability(Vec<(String, Vec<Step>)>),
}

/// An agent → client request step.
#[derive(Debug, Clone)]
pub struct RequestStep {
    /// Method, e.g. `session/request_permission`, `cursor/update_todos`.
    pub method: String,
    /// Params as written (placeholders filled); the fake adds nothing, not even `sessionId`.
    pub params: Value,
    /// A fixed request id (string or large integer); else the next of a counter from 0.
    pub id: Option<Value>,
    /// Wait for the answer before going on (false: fire and forget, as Cursor's non-blocking
    /// extension requests).
    pub wait: bool,
    /// Steps by answer: the selected `optionId`, `cancelled`, `error`, `result`, or `*`.
    pub on: Vec<(String, Vec<Step>)>,
    /// Placeholders set from the answer: name and a JSON pointer into the whole answer
    /// (`{"terminal_id": "/result/terminalId"}` makes `{{terminal_id}}`); a string is used as it
    /// is, other values as JSON text, a missing one leaves the placeholder unset.
    pub bind: Vec<(String, String)>,
}

/// How `session/prompt` is answered.
#[derive(Debug, Clone)]
pub enum Answer {
    /// `{stopReason}`.
    Stop(String),
    /// A JSON-RPC error object.
    Error(Value),
    /// A result as it is (placeholders filled): a `PromptResponse` or not (an injection).
    Result(Value),
}

/// A scenario that cannot be loaded: the fake's own failure (exit 2).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ScenarioError {
    /// No built-in scenario of that name, and not a path.
    #[error("unknown scenario {name:?} (from {via}); built-in: {known}")]
    Unknown {
        name: String,
        via: &'static str,
        known: String,
    },
    /// A scenario file that cannot be read.
    #[error("cannot read scenario file {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    /// A scenario that does not follow the format.
    #[error("scenario {name}: {detail}")]
    Invalid { name: String, detail: String },
}

/// The scenario a prompt's first line names (`scenario: NAME`), if any.
pub fn from_prompt(prompt: &str) -> Option<&str> {
    let first = prompt.split('\n').next().unwrap_or_default().trim();
    first.strip_prefix(PROMPT_PREFIX).map(str::trim)
}

/// The process scenario: env `FAKE_CURSOR_SCENARIO`, else `default`.
pub fn for_process() -> Result<Scenario, ScenarioError> {
    match std::env::var(ENV_SCENARIO) {
        Ok(name) if !name.is_empty() => load(&name, ENV_SCENARIO),
        _ => load(DEFAULT, "default"),
    }
}

/// A built-in name, else a path to a scenario file (anything with a `/` or ending in `.json`).
pub fn load(name: &str, via: &'static str) -> Result<Scenario, ScenarioError> {
    if let Some((_, text)) = BUILTIN.iter().find(|(n, _)| *n == name) {
        return parse::scenario(name, text);
    }
    if name.contains('/') || name.ends_with(".json") {
        let text = std::fs::read_to_string(name).map_err(|source| ScenarioError::Io {
            path: name.to_owned(),
            source,
        })?;
        return parse::scenario(name, &text);
    }
    Err(ScenarioError::Unknown {
        name: name.to_owned(),
        via,
        known: BUILTIN
            .iter()
            .map(|(n, _)| *n)
            .collect::<Vec<_>>()
            .join(", "),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_scenario_parses() {
        assert!(BUILTIN.len() >= 20, "scenarios/ not embedded");
        for (name, text) in BUILTIN {
            if let Err(e) = parse::scenario(name, text) {
                panic!("{e}");
            }
        }
    }
}
