//! The adapter end to end against the real claude 2.1.328 and the local Messages API stand-in
//! (no account, no network beyond 127.0.0.1): the CLI is installed once into the cache outside
//! the repository (`testkit::prereq::claude`, under a lock); with `CI=true` a failed install
//! fails these tests, otherwise they print why they are skipped.
//!
//! The adapter runs with a cleared environment plus exactly what a test run of the CLI needs
//! (`testkit::claude::ClaudeCommand`: temporary `HOME`, the stand-in's base URL, a dummy key,
//! `CLAUDE_CODE_MAX_RETRIES=1` and quiet offline switches), which it passes on to the native
//! process (NAT-7), and `--claude <the installed binary>`.
//!
//! - `runs`: MCP runs (success, tool denied, API error, max turns, unknown resume, cancel
//!   mid-stream with the process group gone, no account).
//! - `cli`: the `cli run` projection (CLI-1).
//! - `tools`: the loop guard and `--json-schema` with the real CLI (LOOP, JSONOUT).

mod cli;
mod runs;
mod tools;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};
use testkit::claude::ClaudeCommand;
use testkit::standin::{Scenario, Standin};

use crate::support::client::{Client, structured};

/// The unknown session the resume runs ask for (the same id as testkit's capture; the
/// `real-unknown-resume` recording's session asks for it too).
pub const UNKNOWN_SESSION: &str = "99999999-2222-4333-8444-555555555555";

/// Bound on one real run (a few seconds normally; the machine is shared and slow).
pub const RUN_BOUND: Duration = Duration::from_secs(120);

/// The installed real CLI for `BLESS`: remaking a recording never skips, whatever `CI` says.
pub fn claude_for_bless() -> PathBuf {
    testkit::prereq::claude().unwrap_or_else(|e| {
        panic!(
            "BLESS needs the real claude {}: {e}",
            testkit::prereq::CLAUDE_VERSION
        )
    })
}

/// An adapter whose native CLI is the real claude, with its stand-in and temporary HOME.
pub struct Real {
    pub client: Client,
    /// The CLI's environment (its `HOME` lives as long as this).
    pub cmd: ClaudeCommand,
    pub standin: Option<Standin>,
}

impl Real {
    /// Against a stand-in answering `scenario` by default; `extra` adds environment.
    pub fn with_standin(claude: &Path, scenario: Scenario, extra: &[(&str, &str)]) -> Self {
        let standin = Standin::start(scenario).expect("start the Messages API stand-in");
        let mut cmd = ClaudeCommand::for_standin(claude, &standin.base_url()).expect("HOME");
        for (k, v) in extra {
            cmd = cmd.env(k, *v);
        }
        Self::spawn(claude, cmd, Some(standin))
    }

    /// With no base URL and no key (the "Not logged in" fast failure).
    pub fn not_logged_in(claude: &Path) -> Self {
        let cmd = ClaudeCommand::not_logged_in(claude).expect("HOME");
        Self::spawn(claude, cmd, None)
    }

    fn spawn(claude: &Path, cmd: ClaudeCommand, standin: Option<Standin>) -> Self {
        let args: Vec<OsString> = vec!["--claude".into(), claude.into()];
        let mut client = Client::spawn(&args, &cmd.environment(), None);
        client.init();
        Self {
            client,
            cmd,
            standin,
        }
    }

    /// `claude.run` in the CLI's work directory; returns the tool result.
    pub fn run(&mut self, prompt: &str, extra: Value) -> Value {
        let mut args = json!({
            "prompt": prompt,
            "cwd": self.cmd.workdir(),
            "timeout_s": RUN_BOUND.as_secs(),
        });
        if let (Some(a), Some(e)) = (args.as_object_mut(), extra.as_object()) {
            a.extend(e.clone());
        }
        self.client.tool(
            "claude.run",
            args,
            Some(json!({"progressToken": "p"})),
            RUN_BOUND + Duration::from_secs(30),
        )
    }

    /// Another tool call (short).
    pub fn tool(&mut self, name: &str, args: Value) -> Value {
        self.client.tool(name, args, None, Duration::from_secs(30))
    }

    /// The stand-in's main-loop requests so far.
    pub fn api_requests(&self) -> usize {
        self.standin
            .as_ref()
            .map_or(0, |s| s.messages_requests().len())
    }
}

/// Panics with the whole result unless `cond`.
#[track_caller]
pub fn check(cond: bool, what: &str, result: &Value) {
    assert!(
        cond,
        "{what}; result: {}",
        serde_json::to_string_pretty(structured(result)).unwrap_or_default()
    );
}
