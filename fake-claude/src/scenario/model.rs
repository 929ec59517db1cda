//! The scenario model: a scenario is a list of steps, each one action (emit an event, write raw
//! bytes, sleep, exit, fork, ...). The file format and its parser are in `parse.rs`; README.md
//! documents every step kind with an example.

use nix::sys::signal::Signal;
use serde_json::{Map, Value};

use crate::validate::OutputFormat;

/// A loaded scenario.
#[derive(Clone, Debug)]
pub struct Scenario {
    pub name: String,
    pub steps: Vec<Step>,
}

/// Which output formats a stdout step appears in; `None` keeps the step kind's default.
pub type Modes = Option<Vec<OutputFormat>>;

#[derive(Clone, Debug)]
pub enum Step {
    /// One event, compact JSON, key order kept; `text` is what `--output-format text` prints for it.
    ///
    /// `requires_partial` shows it only with `--include-partial-messages` (the real CLI writes
    /// `system/status` lines only then); `stream_event` lines are always gated that way.
    Emit {
        event: Value,
        modes: Modes,
        text: Option<String>,
        requires_partial: bool,
    },
    /// Bytes as they are (malformed lines), `\n` appended unless `newline: false`.
    Raw {
        bytes: RawBytes,
        newline: bool,
        modes: Modes,
    },
    /// A valid JSON line of exactly `bytes` bytes (newline excluded) with `type` as its last key.
    Line {
        bytes: usize,
        kind: String,
        fields: Map<String, Value>,
        pad: String,
        modes: Modes,
    },
    /// Valid lines as fast as possible: `$env` MiB (default `default_mib`), one precomputed line.
    Flood {
        event: Value,
        default_mib: f64,
        env: String,
        modes: Modes,
    },
    Stderr {
        text: String,
        newline: bool,
    },
    SleepMs(u64),
    Exit(i32),
    Signal(Signal),
    Hang,
    IgnoreSignals(Vec<Signal>),
    Fork(ForkSpec),
    CloseStdout,
    Dump(String),
    Repeat {
        count: usize,
        steps: Vec<Step>,
    },
}

#[derive(Clone, Debug)]
pub enum RawBytes {
    /// Text with placeholders.
    Text(String),
    /// Exact bytes (for invalid UTF-8).
    Bytes(Vec<u8>),
}

/// A child process the scenario starts.
#[derive(Clone, Debug, Default)]
pub struct ForkSpec {
    /// Leave the process group and session (`setsid`), escaping group cleanup (SUP-4).
    pub setsid: bool,
    pub ignore_sigterm: bool,
    /// Point the child's stdin/stdout/stderr at /dev/null instead of sharing the parent's pipes.
    pub close_stdio: bool,
    /// How long the child lives; `None` hangs (bounded by the safety lifetime).
    pub lifetime_ms: Option<u64>,
    /// Env variable naming a file the child appends its pid to.
    pub pidfile_env: Option<String>,
}

/// Why a scenario could not be used; the fake reports it on stderr and exits 2.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ScenarioError {
    #[error("scenario {name}: not valid JSON: {source}")]
    Json {
        name: String,
        source: serde_json::Error,
    },
    #[error("scenario {name}: {at}: {message}")]
    Shape {
        name: String,
        at: String,
        message: String,
    },
    #[error("unknown scenario {name:?} (selected by {via}); built-in scenarios: {known}")]
    Unknown {
        name: String,
        via: &'static str,
        known: String,
    },
    #[error("scenario file {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
}
