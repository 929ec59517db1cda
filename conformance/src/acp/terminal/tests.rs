//! Unit tests of the runner's terminals: bounded output cut at a character boundary, exit codes
//! and signals, kill and release of the whole group, the audit of ids, confinement.

use std::time::{Duration, Instant};

use nix::sys::signal::killpg;
use nix::unistd::Pid;
use serde_json::{Value, json};

use super::{Output, Pending, Terminals, complete_prefix, wait};

fn terminals(dir: &std::path::Path) -> Terminals {
    Terminals::new(dir.to_path_buf(), Instant::now() + Duration::from_secs(20))
}

fn now(p: Pending) -> Value {
    match p {
        Pending::Now(Ok(v)) => v,
        other => panic!("expected an answer now, got {other:?}"),
    }
}

fn refused(p: Pending) -> String {
    match p {
        Pending::Now(Err(e)) => e.message,
        other => panic!("expected an error, got {other:?}"),
    }
}

async fn exit_of(t: &mut Terminals, id: &str) -> Value {
    match t.serve("terminal/wait_for_exit", &json!({"terminalId": id})) {
        Pending::Wait(rx, until) => wait(rx, until).await.expect("exits"),
        other => panic!("expected a wait, got {other:?}"),
    }
}

fn create(t: &mut Terminals, params: Value) -> String {
    now(t.serve("terminal/create", &params))["terminalId"]
        .as_str()
        .expect("an id")
        .to_owned()
}

fn group_alive(pgid: i32) -> bool {
    killpg(Pid::from_raw(pgid), None).is_ok()
}

async fn until_gone(pgid: i32) -> bool {
    let until = Instant::now() + Duration::from_secs(10);
    while group_alive(pgid) && Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    !group_alive(pgid)
}

#[test]
fn output_past_the_limit_drops_the_oldest_bytes_at_a_character_boundary() {
    let mut o = Output {
        limit: 4,
        ..Output::default()
    };
    o.push("ab".as_bytes());
    assert!(!o.truncated);
    // "é" is two bytes: "abcé" keeps its last 4 bytes; later a cut that lands inside an "é"
    // moves past it.
    o.push("cé".as_bytes());
    assert_eq!(o.text(), "bcé");
    o.push("é".as_bytes());
    assert_eq!(o.text(), "éé");
    o.push("x".as_bytes());
    assert_eq!(o.text(), "éx", "the cut skips the continuation byte");
    assert!(o.bytes.len() <= 4 && o.truncated);
}

#[test]
fn a_character_still_being_written_is_left_out_of_the_text() {
    let e = "é".as_bytes();
    assert_eq!(complete_prefix(&[b'a', e[0]]), 1);
    assert_eq!(complete_prefix(&[b'a', e[0], e[1]]), 3);
    let euro = "€".as_bytes();
    assert_eq!(complete_prefix(&[euro[0], euro[1]]), 0);
    assert_eq!(complete_prefix(b""), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_runs_in_the_scratch_directory_and_reports_its_exit_code_and_output() {
    let dir = tempfile::tempdir().expect("dir");
    let mut t = terminals(dir.path());
    let id = create(
        &mut t,
        json!({"sessionId": "s", "command": "sh",
               "args": ["-c", "pwd; printf 'h\\303\\251llo' >&2; exit 3"],
               "env": [{"name": "X", "value": "1"}]}),
    );
    assert_eq!(
        exit_of(&mut t, &id).await,
        json!({"exitCode": 3, "signal": null})
    );
    let out = now(t.serve("terminal/output", &json!({"terminalId": id})));
    let text = out["output"].as_str().expect("text");
    assert!(
        text.contains(&dir.path().to_string_lossy().to_string()),
        "{text}"
    );
    assert!(text.ends_with("héllo"), "{text}");
    assert_eq!(out["truncated"], false);
    assert_eq!(out["exitStatus"]["exitCode"], 3);
    now(t.serve("terminal/release", &json!({"terminalId": id})));
    assert_eq!(t.audit().released, vec![id]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn output_byte_limit_is_honoured_and_reported_as_truncated() {
    let dir = tempfile::tempdir().expect("dir");
    let mut t = terminals(dir.path());
    let id = create(
        &mut t,
        json!({"sessionId": "s", "command": "sh", "args": ["-c", "printf 0123456789"],
               "outputByteLimit": 4}),
    );
    exit_of(&mut t, &id).await;
    let out = now(t.serve("terminal/output", &json!({"terminalId": id})));
    assert_eq!(out["output"], "6789");
    assert_eq!(out["truncated"], true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_ends_the_whole_group_and_reports_the_signal() {
    let dir = tempfile::tempdir().expect("dir");
    let mut t = terminals(dir.path());
    let id = create(
        &mut t,
        json!({"sessionId": "s", "command": "sh", "args": ["-c", "sleep 30 & sleep 30"]}),
    );
    let pgid = t.live[&id].pgid;
    let out = now(t.serve("terminal/output", &json!({"terminalId": id})));
    assert!(out.get("exitStatus").is_none(), "still running: {out}");
    now(t.serve("terminal/kill", &json!({"terminalId": id})));
    assert_eq!(
        exit_of(&mut t, &id).await,
        json!({"exitCode": null, "signal": "SIGKILL"})
    );
    assert!(
        until_gone(pgid).await,
        "the background sleep survived the kill"
    );
    // Killed, not released: the id still works.
    now(t.serve("terminal/output", &json!({"terminalId": id})));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn release_and_the_cases_end_kill_what_still_runs() {
    let dir = tempfile::tempdir().expect("dir");
    let mut t = terminals(dir.path());
    let a = create(
        &mut t,
        json!({"sessionId": "s", "command": "sleep", "args": ["30"]}),
    );
    let b = create(
        &mut t,
        json!({"sessionId": "s", "command": "sleep", "args": ["30"]}),
    );
    let (pa, pb) = (t.live[&a].pgid, t.live[&b].pgid);
    now(t.serve("terminal/release", &json!({"terminalId": a})));
    assert!(until_gone(pa).await, "release left the command running");
    drop(t);
    assert!(
        until_gone(pb).await,
        "the case's end left the command running"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ids_never_issued_or_released_already_are_refused_and_audited() {
    let dir = tempfile::tempdir().expect("dir");
    let mut t = terminals(dir.path());
    let id = create(&mut t, json!({"sessionId": "s", "command": "true"}));
    now(t.serve("terminal/release", &json!({"terminalId": id})));
    refused(t.serve("terminal/output", &json!({"terminalId": id})));
    refused(t.serve("terminal/kill", &json!({"terminalId": "made-up"})));
    let audit = t.audit();
    assert_eq!(audit.issued, vec![id.clone()]);
    assert_eq!(audit.misuse.len(), 2, "{audit:?}");
    assert!(audit.misuse[0].contains("released already"));
    assert!(audit.misuse[1].contains("never issued"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cwd_outside_the_scratch_directory_or_a_missing_command_is_refused() {
    let dir = tempfile::tempdir().expect("dir");
    let mut t = terminals(dir.path());
    let msg = refused(t.serve(
        "terminal/create",
        &json!({"sessionId": "s", "command": "true", "cwd": "/"}),
    ));
    assert!(msg.contains("inside the session's cwd"), "{msg}");
    refused(t.serve("terminal/create", &json!({"sessionId": "s"})));
    let msg = refused(t.serve(
        "terminal/create",
        &json!({"sessionId": "s", "command": "/nonexistent/program"}),
    ));
    assert!(msg.contains("cannot run"), "{msg}");
    assert!(t.audit().issued.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wait_ends_at_the_cases_deadline_and_the_end_kills_the_command() {
    let dir = tempfile::tempdir().expect("dir");
    let mut t = terminals(dir.path());
    t.set_wait_until(Instant::now() + Duration::from_millis(200));
    let id = create(
        &mut t,
        json!({"sessionId": "s", "command": "sleep", "args": ["30"]}),
    );
    let pgid = t.live[&id].pgid;
    let Pending::Wait(rx, until) = t.serve("terminal/wait_for_exit", &json!({"terminalId": id}))
    else {
        panic!("expected a wait");
    };
    let err = wait(rx, until)
        .await
        .expect_err("the deadline passes first");
    assert!(err.message.contains("deadline"), "{}", err.message);
    t.end();
    assert!(
        until_gone(pgid).await,
        "the case's end left the command running"
    );
}
