//! Process-level scenarios: children in the process group, children escaping it with setsid,
//! ignored SIGTERM, hangs. The fake is started as its own group leader, as the adapter's
//! supervisor starts claude (SUP-1); every process a test creates is killed before it ends.

use std::io::{BufRead as _, BufReader};
use std::os::unix::process::{CommandExt as _, ExitStatusExt as _};
use std::path::Path;
use std::process::{Child, ChildStdout, Stdio};
use std::time::Duration;

use nix::sys::signal::{Signal, kill, killpg};
use nix::unistd::Pid;
use serde_json::Value;
use testkit::procs::{self, KillOnDrop};

use crate::fake;
use testkit::argv::stream_args;

/// `pid` as `/proc` and testkit number it.
fn raw(pid: Pid) -> u32 {
    u32::try_from(pid.as_raw()).expect("a pid is positive")
}

/// Kills `pids` and the process group `group` when the test ends, passed or not.
fn reaper(pids: &[Pid], group: Option<Pid>) -> KillOnDrop {
    let mut guard = KillOnDrop::new();
    if let Some(group) = group {
        guard.group(raw(group));
    }
    for &pid in pids {
        guard.pid(raw(pid));
    }
    guard
}

fn spawn(dir: &Path, scenario: &str, envs: &[(&str, &Path)]) -> (Child, BufReader<ChildStdout>) {
    let mut cmd = fake(dir);
    cmd.args(stream_args(&format!("fake-claude:scenario={scenario}")))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0);
    for (k, v) in envs {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("spawn fake");
    let out = BufReader::new(child.stdout.take().expect("stdout"));
    (child, out)
}

/// Reads event lines until one of type `kind`.
fn read_until(out: &mut BufReader<ChildStdout>, kind: &str) -> Vec<Value> {
    let mut seen = Vec::new();
    loop {
        let mut line = String::new();
        assert!(
            out.read_line(&mut line).expect("read") > 0,
            "EOF before a {kind} line: {seen:?}"
        );
        let v: Value = serde_json::from_str(&line).expect("json line");
        let done = v["type"] == kind;
        seen.push(v);
        if done {
            return seen;
        }
    }
}

/// `(state, pgrp, session)` from /proc/PID/stat; `None` once the process is gone.
fn stat(pid: Pid) -> Option<(char, i32, i32)> {
    let s = procs::stat(raw(pid))?;
    Some((
        s.state,
        i32::try_from(s.pgrp).ok()?,
        i32::try_from(s.session).ok()?,
    ))
}

fn alive(pid: Pid) -> bool {
    procs::alive(raw(pid))
}

fn wait_gone(pid: Pid) {
    assert!(
        procs::wait_gone(raw(pid), Duration::from_secs(10)),
        "{pid} still alive"
    );
}

fn pid_from(file: &Path) -> Pid {
    let text = std::fs::read_to_string(file).expect("pid file written before the fake goes on");
    Pid::from_raw(text.trim().parse().expect("pid"))
}

#[test]
fn grandchild_stays_in_the_group_and_holds_stdout() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pidfile = dir.path().join("child.pid");
    let (mut fake, mut out) = spawn(
        dir.path(),
        "grandchild",
        &[("FAKE_CLAUDE_CHILD_PIDFILE", &pidfile)],
    );
    let leader = Pid::from_raw(i32::try_from(fake.id()).expect("pid"));
    let child = pid_from_after(&mut out, &pidfile);
    let _reaper = reaper(&[child], Some(leader));
    assert_eq!(
        fake.wait().expect("wait").code(),
        Some(0),
        "the leader finishes normally"
    );
    let (_, pgrp, _) = stat(child).expect("child alive");
    assert_eq!(
        pgrp,
        leader.as_raw(),
        "the child is in the leader's group (SUP-1)"
    );
    assert!(alive(child), "the child outlives the leader");
    killpg(leader, Signal::SIGKILL).expect("kill the group");
    let mut rest = String::new();
    let _ = std::io::Read::read_to_string(&mut out, &mut rest);
    assert!(rest.is_empty(), "stdout reaches EOF once the group is gone");
    wait_gone(child);
}

/// Reads until the final, then the pid file (the child writes it before the leader goes on).
fn pid_from_after(out: &mut BufReader<ChildStdout>, pidfile: &Path) -> Pid {
    read_until(out, "result");
    pid_from(pidfile)
}

#[test]
fn grandchild_and_leader_ignoring_sigterm_need_sigkill() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pidfile = dir.path().join("child.pid");
    let (mut fake, mut out) = spawn(
        dir.path(),
        "grandchild-ignore-sigterm",
        &[("FAKE_CLAUDE_CHILD_PIDFILE", &pidfile)],
    );
    let leader = Pid::from_raw(i32::try_from(fake.id()).expect("pid"));
    read_until(&mut out, "assistant");
    let child = pid_from(&pidfile);
    let _reaper = reaper(&[child], Some(leader));
    killpg(leader, Signal::SIGTERM).expect("SIGTERM the group");
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        fake.try_wait().expect("try_wait").is_none(),
        "the leader ignores SIGTERM"
    );
    assert!(alive(child), "the child ignores SIGTERM");
    killpg(leader, Signal::SIGKILL).expect("SIGKILL the group");
    assert_eq!(fake.wait().expect("wait").signal(), Some(9));
    wait_gone(child);
}

#[test]
fn escaped_grandchild_leaves_the_group_and_session() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pidfile = dir.path().join("escapee.pid");
    let (mut fake, mut out) = spawn(
        dir.path(),
        "escaped-grandchild",
        &[("FAKE_CLAUDE_ESCAPEE_PIDFILE", &pidfile)],
    );
    let leader = Pid::from_raw(i32::try_from(fake.id()).expect("pid"));
    let escapee = pid_from_after(&mut out, &pidfile);
    let guard = reaper(&[escapee], None);
    assert_eq!(fake.wait().expect("wait").code(), Some(0));
    let (_, pgrp, session) = stat(escapee).expect("escapee alive");
    assert_ne!(pgrp, leader.as_raw(), "left the process group");
    assert_eq!(session, escapee.as_raw(), "leads its own session (setsid)");
    // Group cleanup cannot reach it (SUP-4): killing the leader's group leaves it running.
    let _ = killpg(leader, Signal::SIGKILL);
    std::thread::sleep(Duration::from_millis(200));
    assert!(alive(escapee));
    drop(guard);
    wait_gone(escapee);
}

#[test]
fn ignore_sigterm_scenario_survives_sigterm_until_sigkill() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut fake, mut out) = spawn(dir.path(), "ignore-sigterm", &[]);
    let pid = Pid::from_raw(i32::try_from(fake.id()).expect("pid"));
    let _reaper = reaper(&[pid], None);
    read_until(&mut out, "system");
    kill(pid, Signal::SIGTERM).expect("SIGTERM");
    std::thread::sleep(Duration::from_millis(500));
    assert!(fake.try_wait().expect("try_wait").is_none());
    kill(pid, Signal::SIGKILL).expect("SIGKILL");
    assert_eq!(fake.wait().expect("wait").signal(), Some(9));
}

#[test]
fn hang_scenarios_hang_after_or_before_the_final() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut fake, mut out) = spawn(dir.path(), "hang-after-final", &[]);
    let pid = Pid::from_raw(i32::try_from(fake.id()).expect("pid"));
    let _reaper = reaper(&[pid], None);
    let events = read_until(&mut out, "result");
    assert_eq!(
        events.last().map(|e| e["is_error"].clone()),
        Some(Value::Bool(false))
    );
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        fake.try_wait().expect("try_wait").is_none(),
        "alive after its final"
    );
    kill(pid, Signal::SIGTERM).expect("SIGTERM");
    assert_eq!(
        fake.wait().expect("wait").signal(),
        Some(15),
        "SIGTERM is not ignored here"
    );

    let (mut fake, mut out) = spawn(dir.path(), "hang-before-final", &[]);
    let pid = Pid::from_raw(i32::try_from(fake.id()).expect("pid"));
    let _reaper2 = reaper(&[pid], None);
    read_until(&mut out, "assistant");
    std::thread::sleep(Duration::from_millis(300));
    assert!(fake.try_wait().expect("try_wait").is_none());
    kill(pid, Signal::SIGTERM).expect("SIGTERM");
    assert_eq!(fake.wait().expect("wait").signal(), Some(15));
}

#[test]
fn stdout_closed_early_scenario_gives_eof_then_exits_later() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut fake, mut out) = spawn(dir.path(), "stdout-closed-early", &[]);
    let mut all = String::new();
    std::io::Read::read_to_string(&mut out, &mut all).expect("read to EOF");
    assert_eq!(all.lines().count(), 1, "only system/init before the close");
    assert!(
        fake.try_wait().expect("try_wait").is_none(),
        "EOF while the process keeps running"
    );
    assert_eq!(fake.wait().expect("wait").code(), Some(0));
}

#[test]
fn grandchild_hang_keeps_leader_and_child_until_the_group_is_killed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pidfile = dir.path().join("child.pid");
    let (mut fake, mut out) = spawn(
        dir.path(),
        "grandchild-hang",
        &[("FAKE_CLAUDE_CHILD_PIDFILE", &pidfile)],
    );
    let leader = Pid::from_raw(i32::try_from(fake.id()).expect("pid"));
    read_until(&mut out, "assistant");
    let child = pid_from(&pidfile);
    let _reaper = reaper(&[child], Some(leader));
    assert_eq!(stat(child).map(|s| s.1), Some(leader.as_raw()));
    assert!(fake.try_wait().expect("try_wait").is_none());
    killpg(leader, Signal::SIGTERM).expect("SIGTERM the group");
    assert_eq!(fake.wait().expect("wait").signal(), Some(15));
    wait_gone(child);
}

#[test]
fn detached_escapee_lets_stdout_reach_eof_when_the_leader_exits() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pidfile = dir.path().join("escapee.pid");
    let (mut fake, mut out) = spawn(
        dir.path(),
        "escaped-grandchild-detached",
        &[("FAKE_CLAUDE_ESCAPEE_PIDFILE", &pidfile)],
    );
    let escapee = pid_from_after(&mut out, &pidfile);
    let _reaper = reaper(&[escapee], None);
    assert_eq!(fake.wait().expect("wait").code(), Some(0));
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut out, &mut rest).expect("EOF although the escapee lives");
    assert!(alive(escapee));
}
