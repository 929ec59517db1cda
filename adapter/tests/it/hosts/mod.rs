//! The host matrix (exact host): real MCP hosts nobody here wrote drive the adapter, wired
//! to fake-claude, through the core sequence in both name projections (TOOL-1: dotted names and
//! `--tool-names underscore`). Each host is a pinned install made on first use
//! (`testkit::prereq`); with `CI=true` a missing host fails its tests (`require_prereq!`).
//!
//! | Module | Host | Pinned |
//! |---|---|---|
//! | `ts_sdk` | `@modelcontextprotocol/sdk` client (`testkit/hosts/ts-client.mjs`) | 1.32.2 |
//! | `inspector` | MCP Inspector `--cli` | 0.15.0 |
//! | `inspector_strict` | MCP Inspector CLI `--strict` (schema lint, TOOL-7) on Node.js 22.23.5 | 2.12.0 |
//! | `python_sdk` | Python SDK `mcp` (`Client`, auto mode) | 2.3.0 |
//! | `claude_code` | the real Claude Code as host (`--mcp-config`), model = Messages API stand-in | 2.1.328 |
//!
//! The core sequence: initialize, tools/list, `claude.run` succeeding, `claude.run.start` +
//! `claude.run.result` until completed + `claude.run.events`, progress for a `progressToken`
//! (T9, C-T9 heartbeats), `claude.run.cancel` of a hanging run, invalid arguments as `isError`
//! (T7), resources/list + resources/templates/list + resources/read of the work resource.
//! What each host can express of it is in its module's header.

mod claude_code;
mod inspector;
mod inspector_strict;
mod python_sdk;
mod ts_sdk;

use std::ffi::OsString;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc::channel;
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::fake_claude_dir;

/// Bound on one host session, only against hangs (the longest, the TS client's, takes ~15 s).
pub const HOST_BOUND: Duration = Duration::from_secs(120);

/// The dotted tool names a host must list, in catalogue order (TOOL-1).
pub const DOTTED: [&str; 7] = [
    "claude.run",
    "claude.run.start",
    "claude.run.list",
    "claude.run.result",
    "claude.run.events",
    "claude.run.cancel",
    "claude.run.release",
];

/// One name projection of the adapter's tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Names {
    /// The default, `claude.run.start`.
    Dotted,
    /// `--tool-names underscore`, `claude_run_start`.
    Underscore,
}

impl Names {
    /// The adapter arguments selecting this projection.
    pub fn adapter_args(self) -> Vec<&'static str> {
        match self {
            Names::Dotted => vec![],
            Names::Underscore => vec!["--tool-names", "underscore"],
        }
    }

    /// A dotted catalogue name in this projection.
    pub fn tool(self, dotted: &str) -> String {
        match self {
            Names::Dotted => dotted.to_owned(),
            Names::Underscore => dotted.replace('.', "_"),
        }
    }

    /// The seven names in this projection.
    pub fn all(self) -> Vec<String> {
        DOTTED.iter().map(|n| self.tool(n)).collect()
    }

    /// `dotted` or `underscore`, as the host scripts take it.
    pub fn label(self) -> &'static str {
        match self {
            Names::Dotted => "dotted",
            Names::Underscore => "underscore",
        }
    }
}

/// `PATH` with fake-claude first (as `claude`), for a host whose adapter inherits its
/// environment; the folder must outlive the host.
pub fn path_with_fake_claude() -> (tempfile::TempDir, OsString) {
    let dir = fake_claude_dir();
    let mut path = OsString::from(dir.path());
    if let Some(rest) = std::env::var_os("PATH") {
        path.push(":");
        path.push(rest);
    }
    (dir, path)
}

/// What a host process did.
#[derive(Debug)]
pub struct HostRun {
    /// Its exit status.
    pub status: ExitStatus,
    /// Everything it wrote on stdout.
    pub stdout: String,
    /// Everything it wrote on stderr.
    pub stderr: String,
}

impl HostRun {
    /// stdout parsed as one JSON value, or a panic quoting both streams.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(self.stdout.trim()).unwrap_or_else(|e| {
            panic!(
                "host output is not JSON ({e}); status {}\nstdout:\n{}\nstderr:\n{}",
                self.status, self.stdout, self.stderr
            )
        })
    }
}

/// Runs a host to its end with stdin closed, in a process group of its own (so the adapter it
/// spawns and every run under it die with it). Waits on the child's exit from a thread (no
/// polling); past `bound` the whole group is SIGKILLed and the test fails quoting stderr.
pub fn run_host(mut cmd: Command, bound: Duration) -> HostRun {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start host {cmd:?}: {e}"));
    let pid = child.id();
    let read = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            String::from_utf8_lossy(&bytes).into_owned()
        })
    };
    let out = read(Box::new(child.stdout.take().expect("stdout piped")));
    let err = read(Box::new(child.stderr.take().expect("stderr piped")));
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait());
    });
    let waited = rx.recv_timeout(bound);
    // The host is gone or overdue: either way nothing of its group may outlive the test.
    testkit::procs::kill_group(pid);
    let status = match waited {
        Ok(status) => status.expect("wait for the host"),
        Err(_) => {
            let status = rx.recv().ok().and_then(Result::ok);
            let stderr = err.join().unwrap_or_default();
            panic!("host {cmd:?} outlived {bound:?} (killed, {status:?}); stderr:\n{stderr}");
        }
    };
    HostRun {
        status,
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    }
}

/// The work resource every host reads (META-WORK).
pub const WORK_URI: &str = "computer-mcp://runtime/work/v1";

/// `structuredContent.result` of a tool result.
pub fn result_of(call: &Value) -> &Value {
    &call["structuredContent"]["result"]
}

/// The checks of the core sequence shared by the SDK hosts, on a summary whose steps hold the
/// SDK's `CallToolResult` (or list/read result) as JSON: `tools`, `run`, `start`, `start_result`,
/// `start_events`, `cancel`, `cancel_result`, `invalid`, `resources`, `resource_templates`,
/// `read`. `host` names the host in failure messages.
pub fn check_core_sequence(host: &str, names: Names, seen: &Value) {
    let ctx = |what: &str| format!("{host} ({}): {what}; summary:\n{seen:#}", names.label());
    let listed: Vec<&str> = seen["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{}", ctx("no tools")))
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(listed, names.all(), "{}", ctx("tools/list names (TOOL-1)"));

    // claude.run succeeds (RUN-1, OUT-1).
    let run = &seen["run"];
    assert_eq!(
        run["isError"],
        false,
        "{}",
        ctx("claude.run is not isError")
    );
    assert_eq!(
        result_of(run)["state"],
        "succeeded",
        "{}",
        ctx("claude.run state")
    );
    assert_eq!(
        result_of(run)["final"]["result"],
        "Hi there!",
        "{}",
        ctx("final text")
    );

    // claude.run.start, then .result until completed, then .events (RUN-2, RUN-4, RUN-5).
    let run_id = result_of(&seen["start"])["run_id"]
        .as_str()
        .unwrap_or_else(|| panic!("{}", ctx("claude.run.start gave no run_id")));
    assert!(
        run_id.starts_with("run_"),
        "{}",
        ctx("run id shape (C-RUN-1)")
    );
    let settled = result_of(&seen["start_result"]);
    assert_eq!(
        settled["run_id"],
        run_id,
        "{}",
        ctx("result of the started run")
    );
    assert_eq!(settled["completed"], true, "{}", ctx("completed"));
    assert_eq!(
        settled["state"],
        "succeeded",
        "{}",
        ctx("started run succeeded")
    );
    let events = result_of(&seen["start_events"])["events"]
        .as_array()
        .unwrap_or_else(|| panic!("{}", ctx("claude.run.events page")));
    assert_eq!(
        events.first().map(|e| &e["type"]),
        Some(&json!("system")),
        "{}",
        ctx("first event")
    );
    assert_eq!(
        events.last().map(|e| &e["type"]),
        Some(&json!("result")),
        "{}",
        ctx("last event")
    );

    // claude.run.cancel of a hanging run (RUN-6): answered, then the run settles cancelled.
    assert_eq!(
        seen["cancel"]["isError"],
        false,
        "{}",
        ctx("cancel is not isError")
    );
    let cancelled = result_of(&seen["cancel_result"]);
    assert_eq!(
        cancelled["completed"],
        true,
        "{}",
        ctx("cancelled run settles")
    );
    assert_eq!(
        cancelled["state"],
        "cancelled",
        "{}",
        ctx("cancelled state")
    );

    // Invalid arguments are a tool error, not a protocol error (T7).
    let invalid = &seen["invalid"];
    assert_eq!(
        invalid["isError"],
        true,
        "{}",
        ctx("invalid arguments are isError")
    );
    assert_eq!(
        result_of(invalid)["error"]["code"],
        "invalid_arguments",
        "{}",
        ctx("invalid arguments code")
    );

    // Resources (META-WORK): one work resource, no templates (an empty list, not -32601), a read.
    let resources = seen["resources"]
        .as_array()
        .unwrap_or_else(|| panic!("{}", ctx("resources/list")));
    assert_eq!(resources.len(), 1, "{}", ctx("one resource"));
    assert_eq!(
        resources[0]["uri"],
        WORK_URI,
        "{}",
        ctx("work resource uri")
    );
    assert_eq!(
        seen["resource_templates"]["resourceTemplates"],
        json!([]),
        "{}",
        ctx("resources/templates/list answers an empty list")
    );
    let contents = &seen["read"]["contents"][0];
    assert_eq!(
        contents["mimeType"],
        "application/json",
        "{}",
        ctx("read mime type")
    );
    let snapshot: Value = serde_json::from_str(contents["text"].as_str().unwrap_or_default())
        .unwrap_or_else(|e| panic!("{}", ctx(&format!("snapshot is not JSON: {e}"))));
    assert_eq!(snapshot["format_version"], 1, "{}", ctx("snapshot format"));
}
