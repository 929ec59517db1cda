//! The `cursor.run…` tools end to end (PROV-2, ACP-1..12, C-PROV-*, C-ACP-*): the built adapter
//! over stdio with `--provider cursor`, running fake-cursor-agent (found as `cursor-agent` on
//! PATH, or named with `--cursor`) and reading the fake's log (`FAKE_CURSOR_LOG`) to prove what
//! the client sent and what never went out.
//!
//! - `handshake`: ACP-2 bounds, slow handshakes, auth-required; ACP-12 a strict `initialize`.
//! - `permissions`: ACP-4 in every permission mode, the ask_question skip; ACP-11 `plan` only
//!   where the agent offers it; ACP-12 the skip only as `reject_once`, ids echoed byte-exact.
//! - `extensions`: ACP-5, every agent request answered.
//! - `updates`: ACP-1/ACP-3, unknown variants, odd tool call ids; ACP-10 the turn's own text.
//! - `bounds`: ACP-1, BND-1..3, garbage and oversized lines, message text over the final bound.
//! - `outcome`: ACP-6 / C-ACP-2, every stop reason, errors and crashes.
//! - `cancel`: ACP-7 / C-ACP-3, cancel mid-turn and the kill after every turn.
//! - `sessions`: ACP-8, resume with and without `loadSession`, options not offered.
//! - `argv`: ACP-9, argv, the version check, a missing binary, the agent's environment; ACP-12
//!   no flag as a `model`.
//! - `families`: PROV-2 / C-PROV-2, both providers in one adapter.
//! - `real_agent`: real ACP agents (claude-agent-acp against the Messages API stand-in; codex-acp
//!   and Gemini CLI without an account) behind a version shim.
//!
//! Every [`Cursor`] checks the fake's log when it drops (unless the test already failed): no
//! `authenticate` and no `allow-always` option was ever sent (ACP-2, ACP-4).

mod argv;
mod bounds;
mod cancel;
mod extensions;
mod families;
mod handshake;
mod outcome;
mod permissions;
mod real_agent;
mod sessions;
mod updates;

use std::ops::{Deref, DerefMut};
use std::time::Duration;

use serde_json::Value;
use testkit::procs;

use crate::support::family::{RUN_BOUND, RunFamily, with_prompt};
pub use crate::support::family::{code, split};
use crate::support::{Adapter, FakeCursorLog};

/// Longest a fake agent may hang (`FAKE_CURSOR_MAX_LIFETIME_S`): a safety net only, far beyond
/// any bound a test checks, so a leak the adapter caused still shows as a live group.
const FAKE_LIFETIME_S: &str = "300";

/// The `cursor.run…` family against an adapter with fake-cursor-agent as `cursor-agent` on
/// PATH, and the fake's log.
pub struct Cursor {
    family: RunFamily,
    pub log: FakeCursorLog,
}

impl Deref for Cursor {
    type Target = RunFamily;

    fn deref(&self) -> &RunFamily {
        &self.family
    }
}

impl DerefMut for Cursor {
    fn deref_mut(&mut self) -> &mut RunFamily {
        &mut self.family
    }
}

impl Cursor {
    /// An adapter whose agents run the process scenario `scenario` (`FAKE_CURSOR_SCENARIO`);
    /// `f` may add arguments and environment.
    pub fn with(scenario: &str, f: impl FnOnce(Adapter) -> Adapter) -> Self {
        Self::serving(&["cursor"], scenario, f)
    }

    /// [`Cursor::with`] serving the provider families `providers` (`--provider` each, in
    /// order), with fake-claude on PATH as `claude` too when `claude` is one of them.
    pub fn serving(providers: &[&str], scenario: &str, f: impl FnOnce(Adapter) -> Adapter) -> Self {
        let log = FakeCursorLog::new();
        let mut a = Adapter::new()
            .fake_cursor()
            .env("FAKE_CURSOR_LOG", log.path())
            .env("FAKE_CURSOR_SCENARIO", scenario)
            .env("FAKE_CURSOR_MAX_LIFETIME_S", FAKE_LIFETIME_S);
        for p in providers {
            a = a.args(["--provider", p]);
        }
        if providers.contains(&"claude") {
            a = a.fake_claude();
        }
        let mut s = f(a).spawn();
        s.init();
        Self {
            family: RunFamily::new(s, "cursor"),
            log,
        }
    }

    /// An adapter whose agents run the process scenario `scenario`.
    pub fn new(scenario: &str) -> Self {
        Self::with(scenario, |a| a)
    }

    /// `cursor.run` with `args`; returns `(result, isError)`.
    pub fn run(&mut self, args: Value) -> (Value, bool) {
        self.run_within(args, RUN_BOUND)
    }

    /// [`Cursor::run`] with an explicit bound on the answer.
    pub fn run_within(&mut self, args: Value, bound: Duration) -> (Value, bool) {
        split(&self.call_run(args, bound))
    }

    /// The client's own records (`{"acp_client": …}`) among the run's events (C-ACP-1).
    pub fn client_records(&mut self, run_id: &str) -> Vec<Value> {
        self.events(run_id)
            .0
            .into_iter()
            .filter(|e| e.get("acp_client").is_some())
            .collect()
    }

    /// The one ACP agent process the fake logged (panics unless exactly one started).
    pub fn the_agent(&self) -> Value {
        let starts = self.log.agent_starts();
        assert_eq!(starts.len(), 1, "one agent process: {starts:?}");
        starts[0].clone()
    }

    /// The process group of the one agent (from its log).
    pub fn agent_pgid(&self) -> u32 {
        let pgid = self.the_agent()["pgid"].as_u64().expect("pgid");
        u32::try_from(pgid).expect("pgid fits u32")
    }
}

impl Drop for Cursor {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            self.log.assert_never_authenticated_nor_always();
        }
    }
}

/// A prompt whose first line makes fake-cursor-agent play `scenario` for this turn.
pub fn prompt(scenario: &str) -> String {
    format!("scenario: {scenario}\nhello")
}

/// `{"prompt": …}` for a turn scenario, plus extra arguments.
pub fn args(scenario: &str, extra: Value) -> Value {
    with_prompt(prompt(scenario), extra)
}

/// SUP-3 / ACP-7: once a run settled with confirmed cleanup its agent's group is gone, at once
/// (zombies do not count).
pub fn assert_group_gone(pgid: u32) {
    let left = procs::group_members(pgid);
    assert!(
        left.is_empty(),
        "the agent's process group {pgid} still has live members {left:?}"
    );
}

/// The `session/update` notifications among events.
pub fn updates(events: &[Value]) -> Vec<&Value> {
    events
        .iter()
        .filter(|e| e["method"] == "session/update")
        .collect()
}

/// The client's answers to agent requests (lines it sent without a `method`), from the log.
pub fn answers(log: &FakeCursorLog) -> Vec<Value> {
    log.sent()
        .into_iter()
        .filter(|m| m.get("method").is_none() && m.get("id").is_some())
        .collect()
}

/// Writes a scenario file for fake-cursor-agent next to the log; returns its path, for a
/// prompt's first line (`scenario: PATH`) or `FAKE_CURSOR_SCENARIO`.
pub fn scenario_file(log: &FakeCursorLog, name: &str, scenario: &Value) -> String {
    let path = log.dir().join(format!("{name}.json"));
    std::fs::write(&path, scenario.to_string()).expect("write scenario");
    path.to_str().expect("UTF-8 temp path").to_owned()
}

/// Writes an executable `sh` agent into the log's directory: `--version` prints the pinned
/// version (so NAT-2 passes), anything else runs `body`. For wire shapes the fake cannot make
/// (an agent that dies at start, another protocol version, a request after a cancel). Pass the
/// path with `--cursor`.
pub fn script_agent(log: &FakeCursorLog, name: &str, body: &str) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = log.dir().join(name);
    let text = format!(
        "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 2026.10.01-e373342; exit 0; fi\n{body}\n"
    );
    std::fs::write(&path, text).expect("write the script agent");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    path
}
