//! Real servers nobody here wrote, recorded through the proxy by a scripted host: the pinned
//! `@modelcontextprotocol/server-everything` and a Python `mcp` SDK server. Each recording
//! replays clean against the same server (exit 0), and against a one-defect variant of it (one
//! answer changed on the wire by the `mutate` example) shows exactly that message (exit 1).

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::support::{LineClient, example, record_cmd, run, show};

fn strings(argv: &[std::ffi::OsString]) -> Vec<String> {
    argv.iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect()
}

/// `mutate FROM TO -- SERVER…`.
fn mutated(from: &str, to: &str, server: &[String]) -> Vec<String> {
    let mut argv = vec![
        example("mutate").display().to_string(),
        from.to_owned(),
        to.to_owned(),
        "--".to_owned(),
    ];
    argv.extend(server.iter().cloned());
    argv
}

fn init(c: &mut LineClient) {
    let r = c.request(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "replay-tests", "version": "0"}}),
    );
    assert!(r.get("result").is_some(), "initialize: {r}");
    c.notify("notifications/initialized");
}

fn differences(recording: &Path, server: &[String]) -> (i32, Vec<String>, String) {
    let o = run(
        recording,
        &["--wait-ms", "5000", "--format", "json"],
        server,
    );
    let report: Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("json report ({e}): {}", show(&o)));
    let positions = report["differences"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|d| d["position"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    (o.status.code().unwrap_or(-1), positions, show(&o))
}

#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn server_everything_replays_clean_and_a_changed_echo_is_named() {
    let cmd = testkit::require_prereq!(testkit::prereq::everything_server());
    let server = strings(&testkit::prereq::argv(&cmd));
    let dir = tempfile::tempdir().expect("tempdir");
    let golden = dir.path().join("everything.jsonl");
    let mut c = LineClient::spawn(&mut record_cmd(&golden, &server));
    init(&mut c);
    c.request("tools/list", json!({}));
    let r = c.request(
        "tools/call",
        json!({"name": "echo", "arguments": {"message": "hello"}}),
    );
    assert_eq!(r["result"]["content"][0]["text"], "Echo: hello", "{r}");
    c.request("prompts/list", json!({}));
    assert!(c.close().success());

    let (code, positions, out) = differences(&golden, &server);
    assert_eq!((code, positions.len()), (0, 0), "{out}");
    let (code, positions, out) =
        differences(&golden, &mutated("Echo: hello", "Echo: HELLO", &server));
    assert_eq!(code, 1, "{out}");
    assert_eq!(positions, ["c2s #4 request id=3 tools/call"], "{out}");
    assert!(out.contains("Echo: HELLO"), "{out}");
}

fn python_server() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance/tests/it/python_server.py")
}

#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn a_python_sdk_server_replays_clean_and_a_changed_sum_is_named() {
    let python = testkit::require_prereq!(testkit::prereq::python_mcp());
    let server = vec![
        python.display().to_string(),
        python_server().display().to_string(),
    ];
    let dir = tempfile::tempdir().expect("tempdir");
    let golden = dir.path().join("python.jsonl");
    let mut c = LineClient::spawn(&mut record_cmd(&golden, &server));
    init(&mut c);
    c.request("tools/list", json!({}));
    let r = c.request(
        "tools/call",
        json!({"name": "add", "arguments": {"a": 2, "b": 3}}),
    );
    assert_eq!(r["result"]["content"][0]["text"], "5", "{r}");
    c.request("resources/read", json!({"uri": "probe://greeting"}));
    assert!(c.close().success());

    let (code, positions, out) = differences(&golden, &server);
    assert_eq!((code, positions.len()), (0, 0), "{out}");
    let (code, positions, out) = differences(
        &golden,
        &mutated("\"text\":\"5\"", "\"text\":\"6\"", &server),
    );
    assert_eq!(code, 1, "{out}");
    assert_eq!(positions, ["c2s #4 request id=3 tools/call"], "{out}");
}
