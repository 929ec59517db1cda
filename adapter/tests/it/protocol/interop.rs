//! Interop: a real MCP client nobody here wrote, the Python SDK `mcp==2.3.0` (installed by
//! `testkit::prereq` into a venv outside the repository), completes its own connect flow against
//! the adapter (it probes `server/discover`, falls back to `initialize`), lists the seven tools
//! and the work resource, reads it, and calls a tool.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::tools::DOTTED;
use crate::support::adapter_bin;

/// Bound on one SDK session (the install, if any, happens before it).
const SESSION_BOUND: Duration = Duration::from_secs(60);

fn run_client(mut cmd: Command, adapter_args: &[&std::ffi::OsStr]) -> Value {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/it/protocol/interop_client.py"
    );
    let mut child = cmd
        .arg(script)
        .arg(adapter_bin())
        .args(adapter_args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the python client");
    let mut stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let deadline = Instant::now() + SESSION_BOUND;
    let status = loop {
        if let Some(st) = child.try_wait().expect("wait for the client") {
            break Some(st);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let out = out.join().unwrap_or_default();
    let err = err.join().unwrap_or_default();
    let status = status.unwrap_or_else(|| panic!("the SDK session hung; stderr:\n{err}"));
    assert!(
        status.success(),
        "the SDK client failed ({status}); stderr:\n{err}"
    );
    serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("client output {out:?}: {e}"))
}

#[test]
fn the_python_sdk_lists_the_seven_tools_and_the_work_resource() {
    let cmd = testkit::require_prereq!(testkit::prereq::python_mcp_command());
    let dir = tempfile::tempdir().expect("temp dir");
    let rec = dir.path().join("session.jsonl");
    let seen = run_client(cmd, &["--record".as_ref(), rec.as_os_str()]);
    assert_eq!(seen["protocol_version"], "2025-06-18", "{seen}");
    assert_eq!(seen["server_info"]["name"], "claude-mcp-adapter");
    let names: Vec<&str> = seen["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().expect("name"))
        .collect();
    assert_eq!(names, DOTTED);
    // The SDK kept our metadata through its own models.
    assert_eq!(
        seen["tools"][0]["_meta"]["io.github.computer-mcp/risk"],
        "full-shell"
    );
    let resources = seen["resources"].as_array().expect("resources");
    assert_eq!(resources.len(), 1);
    assert_eq!(resources[0]["uri"], "computer-mcp://runtime/work/v1");
    assert_eq!(resources[0]["mimeType"], "application/json");
    let contents = &seen["read"]["contents"][0];
    assert_eq!(contents["mimeType"], "application/json");
    let snapshot: Value =
        serde_json::from_str(contents["text"].as_str().expect("text")).expect("snapshot");
    assert_eq!(snapshot["format_version"], 1);
    let call = &seen["call"];
    assert_eq!(call["isError"], true, "{call}");
    assert_eq!(
        call["structuredContent"]["result"]["error"]["code"],
        "unknown_run"
    );

    // The recording (--record) shows the SDK's own flow: the server/discover probe answered
    // -32601 (T3), then initialize.
    let rows: Vec<Value> = std::fs::read_to_string(&rec)
        .expect("recording")
        .lines()
        .map(|l| serde_json::from_str(l).expect("row"))
        .collect();
    let c2s: Vec<&Value> = rows.iter().filter(|r| r["dir"] == "c2s").collect();
    assert_eq!(c2s[0]["msg"]["method"], "server/discover", "{rows:?}");
    assert_eq!(c2s[1]["msg"]["method"], "initialize", "{rows:?}");
    let probe_id = &c2s[0]["msg"]["id"];
    let answer = rows
        .iter()
        .find(|r| r["dir"] == "s2c" && &r["msg"]["id"] == probe_id)
        .expect("probe answered");
    assert_eq!(answer["msg"]["error"]["code"], -32601);
    assert!(rows.iter().all(|r| r["ms"].is_u64()));
}
