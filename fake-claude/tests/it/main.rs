//! Integration tests of the fake-claude binary, run as a real process the way the adapter runs it.

mod argv;
mod invocation_log;
mod process;
mod replay;
mod scenarios;
mod selection;
mod steps;

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;
use testkit::argv::stream_args;

/// The fake under test.
pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_fake-claude"))
}

/// The crate directory (scenarios/, tests/fixtures/).
pub fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A command for the fake with a clean slate: no FAKE_CLAUDE_* or IS_SANDBOX from the caller,
/// stdin /dev/null (as the adapter gives it, NAT-7), running in `cwd`.
pub fn fake(cwd: &Path) -> std::process::Command {
    let mut cmd = std::process::Command::new(bin());
    for (k, _) in std::env::vars_os() {
        let k = k.to_string_lossy().into_owned();
        if k.starts_with("FAKE_CLAUDE_") || k == "IS_SANDBOX" || k == "CLAUDECODE" {
            cmd.env_remove(k);
        }
    }
    cmd.current_dir(cwd).stdin(std::process::Stdio::null());
    cmd
}

/// Runs `cmd` with `stdin` written to a pipe (then closed), capturing stdout and stderr.
pub fn output_with_stdin(cmd: &mut std::process::Command, stdin: &[u8]) -> Output {
    use std::io::Write as _;
    use std::process::Stdio;
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn fake");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin)
        .expect("write stdin");
    child.wait_with_output().expect("wait")
}

/// Runs the built-in `scenario` with the MCP-run argv; returns the output.
pub fn run_scenario(scenario: &str) -> Output {
    let dir = tempfile::tempdir().expect("tempdir");
    fake(dir.path())
        .args(stream_args(&format!(
            "fake-claude:scenario={scenario}\nsay hi"
        )))
        .output()
        .expect("run fake")
}

/// stdout parsed as JSON lines (panics on a line that is not JSON).
pub fn json_lines(out: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l:.200}")))
        .collect()
}

/// `type` (and `subtype` when present) of each event, e.g. `system/init`.
pub fn kinds(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .map(|e| {
            let t = e["type"].as_str().unwrap_or("?");
            match e.get("subtype").and_then(Value::as_str) {
                Some(s) => format!("{t}/{s}"),
                None => t.to_owned(),
            }
        })
        .collect()
}

/// Writes a scenario file into `dir` and returns its path.
pub fn scenario_file(dir: &Path, name: &str, json: &Value) -> PathBuf {
    let path = dir.join(format!("{name}.json"));
    std::fs::write(&path, serde_json::to_vec_pretty(json).expect("json")).expect("write scenario");
    path
}
