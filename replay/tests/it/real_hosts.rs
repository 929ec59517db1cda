//! Real hosts against a served recording: the TypeScript SDK and the Python SDK, each running
//! the generic core sequence (testkit's core hosts), are recorded through the proxy against the
//! defect server; then the recording is served to the same host, which completes its sequence
//! and sees the same answers, with no difference reported (exit 0).

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

use crate::support::{bin, defect_server, show};

const CALLS: &[&str] = &[
    "--call",
    r#"echo={"text":"hello"}"#,
    "--call",
    r#"add={"a":2,"b":3}"#,
];

fn host_run(mut host: Command, server: &[String]) -> Output {
    host.args(CALLS)
        .arg("--")
        .args(server)
        .output()
        .expect("run the host")
}

fn record_then_serve(host: impl Fn() -> Command, dir: &Path) {
    let golden = dir.join("host.jsonl");
    let mut record = vec![
        bin().display().to_string(),
        "record".into(),
        "--out".into(),
        golden.display().to_string(),
        "--".into(),
    ];
    record.extend(defect_server(None));
    let live = host_run(host(), &record);
    assert!(live.status.success(), "{}", show(&live));
    let live: Value = serde_json::from_slice(&live.stdout).expect("summary");
    assert_eq!(live["call 1 echo"]["content"][0]["text"], "hello", "{live}");

    let report = dir.join("serve.json");
    let serve = vec![
        bin().display().to_string(),
        "serve".into(),
        golden.display().to_string(),
        "--idle-ms".into(),
        "10000".into(),
        "--report".into(),
        report.display().to_string(),
    ];
    let served = host_run(host(), &serve);
    assert!(served.status.success(), "{}", show(&served));
    let served: Value = serde_json::from_slice(&served.stdout).expect("summary");
    assert_eq!(served, live, "the host saw the recorded answers");
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(&report).expect("report")).expect("json");
    assert_eq!(report["status"], "same", "{report}");
}

#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn the_typescript_sdk_client_completes_its_core_sequence_against_a_served_recording() {
    let _ = testkit::require_prereq!(testkit::prereq::mcp_ts_core_client());
    let dir = tempfile::tempdir().expect("tempdir");
    record_then_serve(
        || testkit::prereq::mcp_ts_core_client().expect("installed"),
        dir.path(),
    );
}

#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn the_python_sdk_client_completes_its_core_sequence_against_a_served_recording() {
    let _ = testkit::require_prereq!(testkit::prereq::python_core_client());
    let dir = tempfile::tempdir().expect("tempdir");
    record_then_serve(
        || testkit::prereq::python_core_client().expect("installed"),
        dir.path(),
    );
}
