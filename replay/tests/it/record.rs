//! The recording proxy: bytes pass unchanged, the rows are the recordings/ format, the file is
//! created 0600 and never over an existing file or through a link, an oversized line passes
//! through whole but is recorded cut.

use std::os::unix::fs::PermissionsExt as _;
use std::process::Command;

use mcp_replay::recording::{Body, Recording};
use serde_json::json;

use crate::support::{
    LineClient, defect_server, record_cmd, record_defect_session, standard_session,
};

#[test]
fn the_proxy_records_every_message_both_ways_in_a_0600_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("session.jsonl");
    let mut c = LineClient::spawn(&mut record_cmd(&out, &defect_server(None)));
    standard_session(&mut c);
    let answers = c.received.clone();
    assert!(c.close().success());
    let mode = std::fs::metadata(&out)
        .expect("recording")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600, "a recording holds prompts: 0600");
    let rec = Recording::load(&out).expect("parses");
    assert_eq!(rec.meta["made_by"], "mcp-replay record");
    let c2s: Vec<_> = rec.dir("c2s").filter_map(|r| r.msg().cloned()).collect();
    let s2c: Vec<_> = rec.dir("s2c").filter_map(|r| r.msg().cloned()).collect();
    assert_eq!(c2s.len(), 6, "every client message: {c2s:?}");
    assert_eq!(c2s[3]["params"]["arguments"]["text"], "hello");
    // What the host received is exactly what was recorded (passed through unchanged).
    assert_eq!(s2c, answers);
}

#[test]
fn an_existing_file_is_refused_unless_overwrite_and_left_untouched() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("taken.jsonl");
    std::fs::write(&out, "precious\n").expect("write");
    let o = record_cmd(&out, &defect_server(None))
        .output()
        .expect("run");
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--overwrite"));
    assert_eq!(std::fs::read_to_string(&out).expect("read"), "precious\n");

    let mut cmd = Command::new(crate::support::bin());
    cmd.args(["record", "--overwrite", "--out"])
        .arg(&out)
        .arg("--")
        .args(defect_server(None));
    let mut c = LineClient::spawn(&mut cmd);
    c.request("ping", json!({}));
    assert!(c.close().success());
    let text = std::fs::read_to_string(&out).expect("read");
    assert!(
        !text.contains("precious") && text.contains("\"ping\""),
        "{text}"
    );
}

#[test]
fn a_symlink_is_never_written_through_even_with_overwrite() {
    let dir = tempfile::tempdir().expect("tempdir");
    let target = dir.path().join("victim.txt");
    std::fs::write(&target, "keep me\n").expect("write");
    let link = dir.path().join("link.jsonl");
    std::os::unix::fs::symlink(&target, &link).expect("symlink");
    for overwrite in [false, true] {
        let mut cmd = Command::new(crate::support::bin());
        cmd.arg("record");
        if overwrite {
            cmd.arg("--overwrite");
        }
        let o = cmd
            .arg("--out")
            .arg(&link)
            .arg("--")
            .args(defect_server(None))
            .output()
            .expect("run");
        assert_eq!(o.status.code(), Some(2), "overwrite={overwrite}");
        assert!(String::from_utf8_lossy(&o.stderr).contains("symbolic link"));
        assert_eq!(std::fs::read_to_string(&target).expect("read"), "keep me\n");
    }
}

#[test]
fn an_oversized_line_passes_through_whole_and_is_recorded_cut() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("big.jsonl");
    let mut cmd = Command::new(crate::support::bin());
    cmd.args(["record", "--max-line-bytes", "1024", "--out"])
        .arg(&out)
        .arg("--")
        .args(defect_server(None));
    let mut c = LineClient::spawn(&mut cmd);
    let big = "x".repeat(10_000);
    let r = c.request(
        "tools/call",
        json!({"name": "echo", "arguments": {"text": big}}),
    );
    assert_eq!(
        r["result"]["content"][0]["text"], big,
        "passed through whole"
    );
    assert!(c.close().success());
    let rec = Recording::load(&out).expect("parses");
    let cut: Vec<_> = rec
        .rows
        .iter()
        .filter(|r| matches!(r.body, Body::Oversized { .. }))
        .collect();
    assert_eq!(cut.len(), 2, "the call and its answer: {:?}", rec.rows);
    for row in cut {
        let o = &row.value["oversized"];
        assert!(o["len"].as_u64().expect("len") > 10_000);
        assert_eq!(o["head"].as_str().expect("head").len(), 256);
    }
}

#[test]
fn the_proxy_exits_with_the_servers_code_when_the_host_closes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("s.jsonl");
    record_defect_session(&out);
    let o = record_cmd(&dir.path().join("t.jsonl"), &["false".to_owned()])
        .output()
        .expect("run");
    assert_eq!(o.status.code(), Some(1), "false exits 1");
}

#[test]
fn the_servers_whole_group_dies_when_the_proxy_is_terminated() {
    let status = signal_the_proxy(nix::sys::signal::Signal::SIGTERM);
    assert_eq!(status.code(), Some(143));
}

#[test]
fn the_servers_whole_group_dies_when_the_proxy_is_killed() {
    // SIGKILL leaves the proxy no chance: its lifeline watchdog kills the group (C-SUP-5), the
    // backgrounded grandchild included (PR_SET_PDEATHSIG reaches only the leader).
    use std::os::unix::process::ExitStatusExt as _;
    let status = signal_the_proxy(nix::sys::signal::Signal::SIGKILL);
    assert_eq!(status.signal(), Some(9));
}

#[test]
fn a_proxy_killed_right_after_it_started_the_server_leaves_no_group() {
    // C-SUP-5: the server registers its group with the proxy's lifeline before it execs, so a
    // proxy killed at once (the server's first act) leaves nothing, however the scheduler
    // ordered the kill and the proxy's own registration.
    let dir = tempfile::tempdir().expect("tempdir");
    let mut round = 0;
    testkit::parent_kill::assert_parent_sigkill_leaves_no_group("mcp-replay's server", |probe| {
        // A recording is never overwritten: one file per round.
        round += 1;
        record_cmd(&dir.path().join(format!("{round}.jsonl")), &probe.argv())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("the proxy starts")
    });
}

/// Records a server with a grandchild in its group, sends `signal` to the proxy and asserts
/// that the whole group ends within the bound; returns the proxy's status.
fn signal_the_proxy(signal: nix::sys::signal::Signal) -> std::process::ExitStatus {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("s.jsonl");
    // A server with a grandchild in its group.
    let server = format!(
        "sleep 300 & exec {}",
        crate::support::example("defect_server").display()
    );
    let mut cmd = record_cmd(&out, &["sh".to_owned(), "-c".to_owned(), server]);
    let mut c = LineClient::spawn(&mut cmd);
    c.request("ping", json!({}));
    let proxy = c.pid();
    // The proxy's other child is its lifeline watchdog (a fork of the proxy, in a session of
    // its own): the server is the child that runs another program.
    let proxy_exe = testkit::procs::exe(proxy);
    let pgid = testkit::procs::scan()
        .into_iter()
        .find(|p| p.ppid == proxy && testkit::procs::exe(p.pid) != proxy_exe)
        .map(|p| p.pgrp)
        .expect("the server runs under the proxy");
    assert_ne!(pgid, proxy, "the server leads its own group");
    let members = testkit::procs::wait_group_size(pgid, 2, crate::support::BOUND);
    assert!(members.len() >= 2, "server and grandchild: {members:?}");
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(i32::try_from(proxy).expect("pid")),
        signal,
    )
    .expect("signal the proxy");
    let left = testkit::procs::wait_group_gone(pgid, crate::support::BOUND);
    assert!(left.is_empty(), "left behind after {signal}: {left:?}");
    c.close_after_exit()
}
