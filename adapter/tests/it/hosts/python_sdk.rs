//! Host: the Python MCP SDK `mcp==2.3.0` (a venv outside the repository), its high-level `Client`
//! in `auto` mode running `python_client.py`: the core sequence in both projections, plus what
//! the SDK keeps of our metadata and its own connect flow (a `server/discover` probe answered
//! -32601, T3, then `initialize`), seen in the adapter's `--record`ing.
//!
//! Not covered by this host: reset-on-progress (the SDK has no such option; the progress callback
//! is still exercised and must see the run's progress).

use std::process::Command;

use serde_json::Value;

use super::{HOST_BOUND, Names, check_core_sequence, path_with_fake_claude, result_of, run_host};
use crate::support::adapter_bin;

const SCRIPT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/it/hosts/python_client.py"
);

fn session(mut cmd: Command, names: Names, extra: &[&std::ffi::OsStr]) -> Value {
    let (_fake, path) = path_with_fake_claude();
    cmd.env("PATH", path)
        .arg(SCRIPT)
        .arg("--names")
        .arg(names.label())
        .arg("--")
        .arg(adapter_bin())
        .args(names.adapter_args())
        .args(extra);
    let run = run_host(cmd, HOST_BOUND);
    assert!(
        run.status.success(),
        "the Python SDK client failed ({}); stderr:\n{}",
        run.status,
        run.stderr
    );
    run.json()
}

fn completes_the_core_sequence(names: Names) {
    let cmd = testkit::require_prereq!(testkit::prereq::python_mcp_command());
    let dir = tempfile::tempdir().expect("temp dir");
    let rec = dir.path().join("session.jsonl");
    let seen = session(cmd, names, &["--record".as_ref(), rec.as_os_str()]);
    check_core_sequence("python sdk 2.3.0", names, &seen);

    assert_eq!(seen["protocol_version"], "2025-06-18", "{seen}");
    assert_eq!(seen["server_info"]["name"], "claude-mcp-adapter");
    // The SDK kept our metadata through its own models.
    assert_eq!(
        seen["tools"][0]["_meta"]["io.github.computer-mcp/risk"],
        "full-shell"
    );
    // The progress callback saw the run's progress (T9): the SDK sent a progressToken.
    let progress = seen["run_progress"].as_array().expect("progress list");
    assert!(!progress.is_empty(), "no progress reached the SDK: {seen}");
    assert_eq!(seen["call"]["isError"], true, "{seen}");
    assert_eq!(result_of(&seen["call"])["error"]["code"], "unknown_run");

    // META-WORK-5: once unbound runs are retained the work read is refused (-32000), which the
    // SDK raises.
    assert!(
        seen["read_after_runs"]["raised"]
            .as_str()
            .is_some_and(|r| r.contains("work snapshot refused")),
        "{seen}"
    );

    // The recording (--record) shows the SDK's own flow: the server/discover probe answered
    // -32601 (T3), then initialize; and the server received the projected names.
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
    assert!(
        c2s.iter().any(|r| r["msg"]["method"] == "tools/call"
            && r["msg"]["params"]["name"] == names.tool("claude.run.start")),
        "the server received {} from the SDK",
        names.tool("claude.run.start")
    );
}

#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn the_python_sdk_completes_the_core_sequence_with_dotted_names() {
    completes_the_core_sequence(Names::Dotted);
}

#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn the_python_sdk_completes_the_core_sequence_with_underscore_names() {
    completes_the_core_sequence(Names::Underscore);
}
