//! The invocation log (`FAKE_CLAUDE_LOG`, FAKE-CLAUDE-2) and the `--version` answer with its
//! override (FAKE-CLAUDE-1).

use std::os::unix::process::CommandExt as _;

use serde_json::Value;

use crate::fake;
use testkit::argv::stream_args;

/// The test harness itself inherits descriptors (cargo's jobserver pipes); close them in the
/// child so the fake's listing can be compared with exactly 0, 1, 2.
fn only_stdio(cmd: &mut std::process::Command) {
    // SAFETY: close(2) is async-signal-safe; this runs between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            for fd in 3..1024 {
                libc::close(fd);
            }
            Ok(())
        });
    }
}

fn log_lines(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .expect("log")
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect()
}

#[test]
fn every_invocation_appends_one_line_version_checks_included() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("log.jsonl");
    let v = fake(dir.path())
        .arg("--version")
        .env("FAKE_CLAUDE_LOG", &log)
        .output()
        .expect("version");
    assert_eq!(
        String::from_utf8_lossy(&v.stdout),
        "2.1.328 (Claude Code)\n"
    );
    let mut cmd = fake(dir.path());
    cmd.args(stream_args("-starts with a dash"))
        .env("FAKE_CLAUDE_LOG", &log)
        .env("CLAUDECODE", "1")
        .process_group(0);
    only_stdio(&mut cmd);
    let run = cmd.output().expect("run");
    assert_eq!(run.status.code(), Some(0));
    let bad = fake(dir.path())
        .arg("--bogus")
        .env("FAKE_CLAUDE_LOG", &log)
        .output()
        .expect("bad");
    assert_eq!(bad.status.code(), Some(1));

    let lines = log_lines(&log);
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["argv"], serde_json::json!(["--version"]));
    let rec = &lines[1];
    assert_eq!(
        rec["argv"],
        serde_json::json!(stream_args("-starts with a dash"))
    );
    assert_eq!(
        rec["env"]["CLAUDECODE"], "1",
        "the environment is recorded as received (NAT-8 checks)"
    );
    assert_eq!(rec["stdin_is_devnull"], true);
    assert_eq!(rec["pgid"], rec["pid"], "started as a group leader (SUP-1)");
    assert!(rec["ppid"].as_i64().is_some_and(|p| p > 0));
    let fds: Vec<i64> = rec["fds"]
        .as_array()
        .expect("fds")
        .iter()
        .map(|f| f["fd"].as_i64().expect("fd"))
        .collect();
    assert_eq!(
        fds,
        [0, 1, 2],
        "only stdio, and not the descriptor that listed /proc/self/fd"
    );
    assert!(
        lines[2]["fds"]
            .as_array()
            .expect("fds")
            .iter()
            .all(|f| !f["target"].as_str().unwrap_or_default().ends_with("/fd"))
    );
    assert_eq!(rec["fds"][0]["target"], "/dev/null");
}

#[test]
fn log_shows_inherited_descriptors_and_piped_stdin() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("log.jsonl");
    let extra = std::fs::File::open(dir.path()).expect("open dir");
    let fd = std::os::fd::AsRawFd::as_raw_fd(&extra);
    let mut cmd = fake(dir.path());
    cmd.args(stream_args("x"))
        .env("FAKE_CLAUDE_LOG", &log)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null());
    // SAFETY: dup2 and fcntl are async-signal-safe; this runs between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            // When the directory already is fd 9 (tests run side by side, so numbers vary),
            // dup2 changes nothing and its close-on-exec flag would stay: clear it either way.
            if libc::dup2(fd, 9) < 0 || libc::fcntl(9, libc::F_SETFD, 0) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = cmd.spawn().expect("spawn");
    drop(child.stdin.take());
    let out = child.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(0));
    let rec = &log_lines(&log)[0];
    assert_eq!(rec["stdin_is_devnull"], false);
    let leaked = rec["fds"]
        .as_array()
        .expect("fds")
        .iter()
        .find(|f| f["fd"] == 9)
        .expect("fd 9 recorded");
    assert_eq!(leaked["target"], dir.path().display().to_string());
}

#[test]
fn parallel_fakes_append_whole_lines() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("log.jsonl");
    let children: Vec<_> = (0..8)
        .map(|i| {
            fake(dir.path())
                .args(stream_args(&format!("p{i}")))
                .env("FAKE_CLAUDE_LOG", &log)
                .stdout(std::process::Stdio::null())
                .spawn()
                .expect("spawn")
        })
        .collect();
    for mut c in children {
        assert!(c.wait().expect("wait").success());
    }
    assert_eq!(log_lines(&log).len(), 8);
}

#[test]
fn version_override_changes_or_fails_the_version_check() {
    let dir = tempfile::tempdir().expect("tempdir");
    let with = |v: &str| {
        fake(dir.path())
            .arg("--version")
            .env("FAKE_CLAUDE_VERSION", v)
            .output()
            .expect("run")
    };
    let other = with("2.1.999 (Claude Code)");
    assert_eq!(
        String::from_utf8_lossy(&other.stdout),
        "2.1.999 (Claude Code)\n"
    );
    assert_eq!(other.status.code(), Some(0));
    let fail = with("__exit1");
    assert!(fail.stdout.is_empty());
    assert_eq!(fail.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&fail.stderr).starts_with("fake-claude: "));
    assert_eq!(with("__exit7").status.code(), Some(7));
    let empty = with("__empty");
    assert!(empty.stdout.is_empty());
    assert_eq!(empty.status.code(), Some(0));
    let hang = fake(dir.path())
        .arg("--version")
        .env("FAKE_CLAUDE_VERSION", "__hang")
        .env("FAKE_CLAUDE_MAX_LIFETIME_S", "1")
        .output()
        .expect("run");
    assert!(hang.stdout.is_empty());
    assert_eq!(
        hang.status.code(),
        Some(99),
        "a version check that never answers, bounded by the safety lifetime"
    );
    let short = fake(dir.path()).arg("-v").output().expect("run");
    assert_eq!(
        String::from_utf8_lossy(&short.stdout),
        "2.1.328 (Claude Code)\n"
    );
}

#[test]
fn version_line_is_the_pinned_cli_tree_line() {
    let tree: Value =
        serde_json::from_str(include_str!("../../../cli-tree.json")).expect("cli-tree.json");
    let dir = tempfile::tempdir().expect("tempdir");
    let out = fake(dir.path()).arg("--version").output().expect("run");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim_end(),
        tree["version"]["line"].as_str().expect("line")
    );
}
