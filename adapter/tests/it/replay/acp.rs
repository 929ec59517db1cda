//! The agent side of an ACP golden recording (`recordings/acp/`): each recorded Cursor run (its
//! `c2a` / `a2c` rows and its `n2a` exit row) becomes a recording that fake-cursor-agent replays
//! (`FAKE_CURSOR_REPLAY`): it writes the recorded agent lines, awaits and matches the adapter's
//! recorded lines (by shape, rewriting ids), and ends as the run ended (an exit code at once; a
//! signal by waiting until the adapter kills the group, ACP-7). See fake-cursor-agent's README.
//!
//! The agent's stderr is not recorded (the recorder sees the ACP pipe only), so the stderr the
//! run's result reported (`stderr_tail`) is written first, as it is, like the claude replay does.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::native;
use super::recording::{Recording, Row};
use crate::support::adapter_bin;

/// fake-cursor-agent's variable naming the recording it replays.
pub const ENV_REPLAY: &str = "FAKE_CURSOR_REPLAY";

/// `meta.native.kind` of a recording made against fake-cursor-agent.
pub const KIND: &str = "fake-cursor-agent";

/// The built fake-cursor-agent binary, next to the adapter binary. Panics with instructions when
/// it has not been built.
#[must_use]
pub fn fake_cursor_agent_bin() -> PathBuf {
    let p = adapter_bin().with_file_name("fake-cursor-agent");
    assert!(
        p.is_file(),
        "fake-cursor-agent is not built at {}: run `cargo build -p fake-cursor-agent`",
        p.display()
    );
    p
}

/// Whether `rec` was made with the Cursor provider (its agent side is replayed by
/// fake-cursor-agent).
#[must_use]
pub fn is_acp(rec: &Recording) -> bool {
    rec.meta["native"]["kind"] == KIND || rec.meta["native"]["kind"] == REAL_KIND
}

/// `meta.native.kind` of a recording made against a real ACP agent behind the version shim.
pub const REAL_KIND: &str = "real-acp-agent";

/// The real ACP agents recorded as goldens (`recordings/acp/real-*`), pinned by testkit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RealAgent {
    /// `@agentclientprotocol/sdk` 0.12.0, `dist/examples/agent.js`.
    TsExample,
    /// `agent-client-protocol` 0.12.1 (PyPI), `examples/echo_agent.py`.
    PythonEcho,
    /// `@zed-industries/claude-agent-acp` 0.23.1 (Claude Code behind the Claude Agent SDK), its
    /// model turns against the local Messages API stand-in (`testkit::standin`, the `tool`
    /// scenario: one Bash call, then text).
    ClaudeAgent,
}

impl RealAgent {
    /// What the recording's meta says the agent is.
    #[must_use]
    pub fn describe(self) -> String {
        match self {
            RealAgent::TsExample => format!(
                "@agentclientprotocol/sdk {} dist/examples/agent.js (node)",
                testkit::prereq::ACP_TS_SDK_VERSION
            ),
            RealAgent::PythonEcho => format!(
                "agent-client-protocol {} (PyPI) examples/echo_agent.py",
                testkit::prereq::ACP_PYTHON_SDK_VERSION
            ),
            RealAgent::ClaudeAgent => format!(
                "@zed-industries/claude-agent-acp {} dist/index.js (node), its model turns \
                 against testkit::standin's `tool` scenario",
                testkit::prereq::ACP_CLAUDE_AGENT_VERSION
            ),
        }
    }

    /// The Messages API stand-in scenario the agent's model turns need, if it has a model.
    #[must_use]
    pub fn standin(self) -> Option<testkit::standin::Scenario> {
        match self {
            RealAgent::ClaudeAgent => Some(testkit::standin::Scenario::Tool),
            RealAgent::TsExample | RealAgent::PythonEcho => None,
        }
    }

    /// The pinned agent's command (installed on first use), with `standin` the base URL of the
    /// running stand-in for an agent that has a model and `home` its throw-away `HOME`; panics
    /// when it cannot be had, since only `BLESS` runs it.
    fn command(self, standin: Option<&str>, home: &Path) -> std::process::Command {
        let cmd = match self {
            RealAgent::TsExample => testkit::prereq::acp_ts_example_agent(),
            RealAgent::PythonEcho => testkit::prereq::acp_python_echo_agent(),
            RealAgent::ClaudeAgent => testkit::prereq::acp_claude_agent(
                standin.expect("claude-agent-acp's turns need the stand-in"),
                home,
            ),
        };
        cmd.unwrap_or_else(|e| panic!("remaking a real-agent recording needs the agent: {e}"))
    }
}

/// The pinned `cursor-agent --version` line the Cursor provider asserts (NAT-2, ACP-9).
const SHIM_VERSION: &str = "2026.10.01-e373342";

/// Writes into `dir` a shim that answers `--version` with the pinned line and otherwise runs
/// `agent` (ignoring the provider's `acp` word): everything after the version check is the real
/// agent on the wire. The real `cursor-agent` is on no registry; the shim only lets a real ACP
/// agent stand behind the Cursor provider.
/// `standin` and `home` as [`RealAgent::command`] takes them.
#[must_use]
pub fn real_agent_shim(
    dir: &Path,
    agent: RealAgent,
    standin: Option<&str>,
    home: &Path,
) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let cmd = agent.command(standin, home);
    let quote = |s: &std::ffi::OsStr| format!("'{}'", s.to_string_lossy().replace('\'', r"'\''"));
    let mut body = String::new();
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => body.push_str(&format!("export {}={}\n", k.to_string_lossy(), quote(v))),
            None => body.push_str(&format!("unset {}\n", k.to_string_lossy())),
        }
    }
    body.push_str("exec ");
    body.push_str(&quote(cmd.get_program()));
    for a in cmd.get_args() {
        body.push(' ');
        body.push_str(&quote(a));
    }
    let text = format!(
        "#!/bin/sh\nif [ \"$1\" = --version ]; then echo {SHIM_VERSION}; exit 0; fi\n{body}\n"
    );
    let path = dir.join("real-acp-agent-shim");
    std::fs::write(&path, text).expect("write the shim");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    path
}

/// The adapter arguments that make `agent` the Cursor provider.
#[must_use]
pub fn adapter_args(agent: &Path) -> Vec<std::ffi::OsString> {
    vec![
        "--provider".into(),
        "cursor".into(),
        "--cursor".into(),
        agent.as_os_str().to_owned(),
    ]
}

/// Each agent run of `rec` as the rows fake-cursor-agent replays, in the order the runs started
/// (runs never overlap in a recording).
#[must_use]
pub fn agent_runs(rec: &Recording) -> Vec<Vec<Value>> {
    let tails: Vec<Option<String>> = native::native_runs(rec)
        .into_iter()
        .map(|r| r.stderr_tail)
        .collect();
    let mut runs = Vec::new();
    let mut cur: Vec<Value> = Vec::new();
    for r in &rec.rows {
        if r.is_agent_wire() || r.is_exit() {
            cur.push(replay_row(r));
        }
        if r.is_exit() {
            runs.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        runs.push(cur);
    }
    for (k, run) in runs.iter_mut().enumerate() {
        if let Some(t) = tails.get(k).cloned().flatten().filter(|t| !t.is_empty()) {
            run.insert(0, json!({"dir": "a2c-stderr", "msg": t, "newline": false}));
        }
    }
    runs
}

/// The row as fake-cursor-agent reads it (`ms` dropped: the replay paces on causal order).
fn replay_row(r: &Row) -> Value {
    let mut v = r.value.clone();
    if let Some(o) = v.as_object_mut() {
        o.remove("ms");
    }
    v
}

/// Publishes `rows` at `path` for the next agent process (written aside, then renamed, so an
/// agent never reads half a file).
pub fn publish(path: &Path, rows: &[Value]) {
    let text: String = rows.iter().map(|r| format!("{r}\n")).collect();
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text).expect("write the agent replay");
    std::fs::rename(&tmp, path).expect("publish the agent replay");
}

#[cfg(test)]
mod tests {
    use super::super::{golden_path, verify};

    /// Writes `altered` as a copy of the golden `name` and replays it.
    fn replay_copy(altered: &str) -> Result<(), String> {
        let dir = tempfile::tempdir().expect("temp dir");
        let copy = dir.path().join("copy.jsonl");
        std::fs::write(&copy, altered).expect("write the copy");
        verify(&copy)
    }

    /// The agent side is really replayed: a copy of an ACP golden whose agent said something
    /// else no longer matches its recorded answers.
    #[test]
    fn an_acp_golden_whose_agent_line_changed_fails_with_a_diff() {
        let golden = std::fs::read_to_string(golden_path("acp/default")).expect("read golden");
        let needle = "\"text\":\" Done.\"";
        let altered: String = golden
            .lines()
            .map(|l| {
                if l.starts_with("{\"dir\":\"a2c\"") {
                    l.replace(needle, "\"text\":\" Altered.\"")
                } else {
                    l.to_owned()
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        assert_ne!(
            altered, golden,
            "acp/default no longer has the chunk this test alters"
        );
        let err = replay_copy(&altered).expect_err("the alteration must show");
        assert!(
            err.lines()
                .any(|l| l.starts_with('-') && l.contains("Cursor agent. Done."))
                && err
                    .lines()
                    .any(|l| l.starts_with('+') && l.contains("Cursor agent. Altered.")),
            "{err}"
        );
    }

    /// What the adapter sends its agent is checked too: when the recording says the adapter
    /// answered a `cursor/*` request differently, the replayed agent reports a mismatch and the
    /// run's outcome differs.
    #[test]
    fn an_acp_golden_whose_adapter_line_changed_fails_with_a_diff() {
        let golden = std::fs::read_to_string(golden_path("acp/default")).expect("read golden");
        let answer =
            "{\"dir\":\"c2a\",\"ms\":0,\"msg\":{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{}}}";
        assert!(
            golden.contains(answer),
            "acp/default no longer has the answer this test alters"
        );
        let altered = golden.replace(
            answer,
            "{\"dir\":\"c2a\",\"ms\":0,\"msg\":{\"jsonrpc\":\"2.0\",\"id\":0,\"error\":{\"code\":-32601,\"message\":\"Method not found\"}}}",
        );
        let err = replay_copy(&altered).expect_err("the alteration must show");
        assert!(err.contains("replay mismatch"), "{err}");
        assert!(
            err.lines()
                .any(|l| l.starts_with('+') && l.contains("\"state\": \"failed\"")),
            "{err}"
        );
    }
}
