//! `FAKE_CURSOR_LOG` (FAKE-ACP-6): the start line and one raw line per client message, so a test can prove
//! what a client never sent (`authenticate`, an `allow_always` answer).

use serde_json::Value;

use crate::{Agent, answer_with_kind, initialize_params};

fn read_log(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .expect("log")
        .lines()
        .map(|l| serde_json::from_str(l).expect("log line is JSON"))
        .collect()
}

/// The client messages of a log (parsed `raw` of `c2a` lines that are JSON).
fn client_messages(log: &[Value]) -> Vec<Value> {
    log.iter()
        .filter(|l| l["event"] == "c2a")
        .filter_map(|l| serde_json::from_str(l["raw"].as_str()?).ok())
        .collect()
}

#[test]
fn log_records_start_and_every_client_line_raw() {
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("log.jsonl");
    let path_s = path.to_string_lossy().into_owned();
    let mut agent = Agent::start_args(
        &["--model", "m", "acp"],
        &[
            ("FAKE_CURSOR_LOG", &path_s),
            ("CURSOR_API_KEY", "secret-value"),
            ("BROWSER", "/bin/true"),
        ],
    );
    agent.send_raw(b"not json\n");
    let sid = agent.handshake();
    let msgs = agent.turn(
        &sid,
        "scenario: permission-shell",
        answer_with_kind("reject_once"),
    );
    assert_eq!(crate::last(&msgs)["result"]["stopReason"], "end_turn");
    agent.close_stdin();
    drop(agent);

    let log = read_log(&path);
    let start = &log[0];
    assert_eq!(start["event"], "start");
    assert_eq!(start["argv"], serde_json::json!(["--model", "m", "acp"]));
    assert_eq!(
        start["pid"], start["pgid"],
        "started as its own group leader"
    );
    assert_eq!(start["env"]["CURSOR_API_KEY"], "set");
    assert_eq!(start["env"]["BROWSER"], "/bin/true");
    assert!(
        !std::fs::read_to_string(&path)
            .expect("log")
            .contains("secret-value")
    );
    assert_eq!(log[1]["raw"], "not json");
    let sent = client_messages(&log);
    let methods: Vec<_> = sent.iter().filter_map(|m| m["method"].as_str()).collect();
    assert_eq!(methods, ["initialize", "session/new", "session/prompt"]);
    assert!(!methods.contains(&"authenticate"));
    let answers: Vec<_> = sent
        .iter()
        .filter_map(|m| m.pointer("/result/outcome/optionId")?.as_str())
        .collect();
    assert_eq!(answers, ["reject-once"]);
}

#[test]
fn log_shows_authenticate_and_allow_always_when_a_client_sends_them() {
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("log.jsonl");
    let mut agent = Agent::start(&[("FAKE_CURSOR_LOG", &path.to_string_lossy())]);
    let id = agent.request("initialize", initialize_params());
    agent.until_answer(&id);
    let id = agent.request(
        "authenticate",
        serde_json::json!({"methodId": "cursor_login"}),
    );
    agent.until_answer(&id);
    let id = agent.request(
        "session/new",
        serde_json::json!({"cwd": "/w", "mcpServers": []}),
    );
    let sid = agent.until_answer(&id).pop().expect("a")["result"]["sessionId"]
        .as_str()
        .expect("sid")
        .to_owned();
    agent.turn(
        &sid,
        "scenario: permission-shell",
        answer_with_kind("allow_always"),
    );
    drop(agent);
    let sent = client_messages(&read_log(&path));
    assert!(sent.iter().any(|m| m["method"] == "authenticate"));
    assert!(
        sent.iter()
            .any(|m| m.pointer("/result/outcome/optionId") == Some(&"allow-always".into()))
    );
}

/// A client that writes its last line and SIGTERMs us before we read it still finds the line in
/// the log, and we still die by SIGTERM. The fake is stopped (SIGSTOP) across the write and the
/// SIGTERM so it cannot have read the line first.
#[test]
fn a_line_written_just_before_sigterm_is_logged_and_the_fake_dies_by_sigterm() {
    use std::io::{BufRead as _, Write as _};
    use std::os::unix::process::ExitStatusExt as _;

    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;

    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("log.jsonl");
    let mut child = crate::command(&["acp"])
        .env("FAKE_CURSOR_LOG", &path)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    let pid = Pid::from_raw(i32::try_from(child.id()).expect("pid"));
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = std::io::BufReader::new(child.stdout.take().expect("stdout"));
    let init = serde_json::json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                                  "params": initialize_params()});
    writeln!(stdin, "{init}").expect("write");
    // Its answer comes after its line is logged: the fake is past the start.
    let mut answer = String::new();
    stdout.read_line(&mut answer).expect("answer");
    assert!(answer.contains("\"id\":0"), "{answer}");
    kill(pid, Signal::SIGSTOP).expect("stop");
    stdin
        .write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"session/cancel\",\"params\":{\"sessionId\":\"s\"}}\n")
        .expect("write");
    kill(pid, Signal::SIGTERM).expect("term");
    kill(pid, Signal::SIGCONT).expect("cont");
    let status = child.wait().expect("wait");
    assert_eq!(status.signal(), Some(Signal::SIGTERM as i32), "{status:?}");
    let sent = client_messages(&read_log(&path));
    let methods: Vec<_> = sent.iter().filter_map(|m| m["method"].as_str()).collect();
    assert_eq!(methods, ["initialize", "session/cancel"]);
}
