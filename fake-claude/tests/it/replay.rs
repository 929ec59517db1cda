//! Replay of a recording's native side (`FAKE_CLAUDE_REPLAY`).

use std::os::unix::process::ExitStatusExt as _;

use crate::fake;
use testkit::argv::stream_args;

fn replay(rows: &str, args: &[String]) -> std::process::Output {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("rec.jsonl");
    std::fs::write(&path, rows).expect("write recording");
    fake(dir.path())
        .args(args)
        .env("FAKE_CLAUDE_REPLAY", &path)
        .output()
        .expect("run")
}

const ROWS: &str = r#"{"dir":"c2s","ms":0,"msg":{"jsonrpc":"2.0","id":1,"method":"initialize"}}
{"dir":"n2a","ms":5,"msg":{"type":"system","subtype":"init","z":1,"a":2}}
{"dir":"n2a","ms":6,"msg":{"type":"stream_event","event":{"type":"message_stop"}}}
{"dir":"n2a","ms":7,"raw":"this is not json"}
{"dir":"n2a","ms":8,"raw":"partial","newline":false}
{"dir":"s2c","ms":9,"msg":{"jsonrpc":"2.0","id":1,"result":{}}}
{"dir":"n2a","ms":10,"stderr":"on stderr\n"}
{"dir":"n2a","ms":11,"exit":{"code":3,"signal":null}}
{"dir":"n2a","ms":12,"msg":{"after":"exit"}}
{"summary":{"rows":9}}
"#;

#[test]
fn replay_emits_native_rows_exactly_and_exits_as_recorded() {
    // Without --include-partial-messages: replay still emits the recorded stream_event row.
    let args: Vec<String> = [
        "-p",
        "--output-format",
        "stream-json",
        "--verbose",
        "--",
        "x",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    let out = replay(ROWS, &args);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "{\"type\":\"system\",\"subtype\":\"init\",\"z\":1,\"a\":2}\n{\"type\":\"stream_event\",\"event\":{\"type\":\"message_stop\"}}\nthis is not json\npartial"
    );
    assert_eq!(String::from_utf8_lossy(&out.stderr), "on stderr\n");
    assert_eq!(out.status.code(), Some(3));
}

#[test]
fn replay_can_end_by_signal_or_with_zero() {
    let out = replay(
        "{\"dir\":\"n2a\",\"ms\":1,\"msg\":{\"type\":\"system\"}}\n{\"dir\":\"n2a\",\"ms\":2,\"exit\":{\"code\":null,\"signal\":\"SIGKILL\"}}\n",
        &stream_args("x"),
    );
    assert_eq!(out.status.signal(), Some(9));
    let out = replay(
        "{\"dir\":\"n2a\",\"ms\":1,\"msg\":{\"type\":\"system\"}}\n",
        &stream_args("x"),
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout, b"{\"type\":\"system\"}\n");
}

#[test]
fn replay_still_answers_argv_errors_and_version_like_the_cli() {
    let out = replay(ROWS, &["-p".to_owned(), "--bogus".to_owned()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let v = replay(ROWS, &["--version".to_owned()]);
    assert_eq!(
        String::from_utf8_lossy(&v.stdout),
        "2.1.328 (Claude Code)\n"
    );
}

#[test]
fn a_broken_recording_is_the_fakes_error() {
    let out = replay("{\"dir\":\"n2a\",\"ms\":1}\n", &stream_args("x"));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("fake-claude: replay file"));
}
