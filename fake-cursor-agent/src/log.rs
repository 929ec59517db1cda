//! `FAKE_CURSOR_LOG=<file>`: an append-only JSON Lines log of what the client did, so tests can
//! assert what went out on the wire (e.g. that `authenticate` or an `allow_always` answer never
//! did). One line per event, each written with a single `write` on an `O_APPEND` file:
//!
//! - `{"event":"start","ms":0,"pid":N,"pgid":N,"argv":[..],"cwd":"..","env":{..}}` first; `env`
//!   holds `CURSOR_API_KEY` as `"set"`/`"unset"` (never its value), the values of `BROWSER`,
//!   `NO_OPEN_BROWSER` and every `FAKE_CURSOR_*` variable, and `names`: every variable's name;
//! - `{"event":"c2a","ms":N,"raw":"<the line as sent>"}` for every line the client wrote (lossy
//!   UTF-8, without its newline), malformed ones included;
//! - `{"event":"a2c","ms":N,"raw":"<what the agent wrote>"}` for every write to stdout (lossy
//!   UTF-8, trailing newline removed), logged just before the bytes go out;
//! - `{"event":"c2a_oversized","ms":N,"bytes":N}` for a line over the input bound (not kept);
//! - `{"event":"eof","ms":N}` when the client closed stdin.
//!
//! Every event also carries the writing process's `"pid"` (several processes may share a log).

use std::io::Write as _;
use std::time::Instant;

use serde_json::{Value, json};

/// Env variable naming the log file.
pub const ENV_LOG: &str = "FAKE_CURSOR_LOG";

/// The log, or a no-op when `FAKE_CURSOR_LOG` is unset.
#[derive(Clone)]
pub struct Log {
    path: Option<String>,
    start: Instant,
}

impl Log {
    /// Opens the log named by the environment.
    pub fn from_env() -> Self {
        Self {
            path: std::env::var(ENV_LOG).ok().filter(|p| !p.is_empty()),
            start: Instant::now(),
        }
    }

    /// Whether events are logged at all.
    pub fn enabled(&self) -> bool {
        self.path.is_some()
    }

    fn ms(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// Writes the `start` line.
    pub fn start(&self, argv: &[String]) {
        let mut env = serde_json::Map::new();
        let key_set = std::env::var("CURSOR_API_KEY").is_ok_and(|v| !v.is_empty());
        env.insert(
            "CURSOR_API_KEY".into(),
            json!(if key_set { "set" } else { "unset" }),
        );
        let mut names: Vec<String> = Vec::new();
        for (k, v) in std::env::vars_os() {
            let k = k.to_string_lossy().into_owned();
            if k == "BROWSER" || k == "NO_OPEN_BROWSER" || k.starts_with("FAKE_CURSOR_") {
                env.insert(k.clone(), json!(v.to_string_lossy()));
            }
            names.push(k);
        }
        names.sort();
        env.insert("names".into(), json!(names));
        let cwd = std::env::current_dir()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        self.write(&json!({
            "event": "start",
            "ms": self.ms(),
            "pid": std::process::id(),
            "pgid": nix::unistd::getpgrp().as_raw(),
            "argv": argv,
            "cwd": cwd,
            "env": env,
        }));
    }

    /// A line the client sent.
    pub fn client_line(&self, raw: &[u8]) {
        self.write(&json!({"event": "c2a", "ms": self.ms(), "raw": String::from_utf8_lossy(raw)}));
    }

    /// A write of the agent to stdout (a line, or raw bytes), without its trailing newline.
    pub fn agent_line(&self, raw: &[u8]) {
        let raw = raw.strip_suffix(b"\n").unwrap_or(raw);
        self.write(&json!({"event": "a2c", "ms": self.ms(), "raw": String::from_utf8_lossy(raw)}));
    }

    /// A client line over the bound.
    pub fn oversized(&self, bytes: u64) {
        self.write(&json!({"event": "c2a_oversized", "ms": self.ms(), "bytes": bytes}));
    }

    /// The client closed stdin.
    pub fn eof(&self) {
        self.write(&json!({"event": "eof", "ms": self.ms()}));
    }

    fn write(&self, v: &Value) {
        let Some(path) = &self.path else { return };
        let mut v = v.clone();
        if let Some(obj) = v.as_object_mut() {
            // Several processes may share one log (`--version` then `acp`): every event says
            // whose it is.
            obj.entry("pid")
                .or_insert_with(|| json!(std::process::id()));
        }
        let mut line = v.to_string();
        line.push('\n');
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path);
        match file {
            Ok(mut f) => {
                let _ = f.write_all(line.as_bytes());
            }
            Err(e) => eprintln!("fake-cursor-agent: cannot append to {ENV_LOG} {path}: {e}"),
        }
    }
}
