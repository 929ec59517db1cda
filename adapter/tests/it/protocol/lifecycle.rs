//! Lifecycle: negotiation (T2), the initialize gate and method set (T3), shutdown (T8).

use std::time::Duration;

use nix::sys::signal::Signal;
use serde_json::{Value, json};

use crate::support::{Session, TIMEOUT};

fn negotiated(proposal: Option<Value>) -> Value {
    let mut s = Session::start();
    let resp = s.initialize(proposal.clone());
    let result = resp
        .get("result")
        .unwrap_or_else(|| panic!("initialize {proposal:?} failed: {resp}"));
    result["protocolVersion"].clone()
}

#[test]
fn supported_versions_are_echoed() {
    // T2
    for v in ["2024-11-05", "2025-03-26", "2025-06-18"] {
        assert_eq!(negotiated(Some(json!(v))), json!(v), "proposal {v}");
    }
}

#[test]
fn other_proposals_get_2025_06_18_never_an_echo() {
    // T2: newer, older, malformed, missing.
    for p in [
        Some(json!("2025-11-25")),
        Some(json!("1999-01-01")),
        Some(json!(20250618)),
        Some(json!("not a date")),
        Some(json!(null)),
        None,
    ] {
        assert_eq!(negotiated(p.clone()), json!("2025-06-18"), "proposal {p:?}");
    }
}

#[test]
fn initialize_declares_tools_and_resources_and_names_the_server() {
    let mut s = Session::start();
    let r = s.init();
    let caps = &r["result"]["capabilities"];
    assert!(caps["tools"].is_object(), "{r}");
    assert!(caps["resources"].is_object(), "{r}");
    assert_eq!(r["result"]["serverInfo"]["name"], "claude-mcp-adapter");
    assert!(r["result"]["serverInfo"]["version"].is_string());
}

#[test]
fn ping_is_answered_before_initialize() {
    // T3, C-T3: ping is answered before the gate opens.
    let mut s = Session::start();
    let r = s.call("ping", None);
    assert_eq!(r["result"], json!({}), "{r}");
}

#[test]
fn other_requests_before_initialize_are_not_initialized() {
    // T3, C-T3: known methods get -32600 "not initialized", with the request's id.
    let mut s = Session::start();
    for (method, params) in [
        ("tools/list", None),
        (
            "tools/call",
            Some(json!({"name": "claude.run.list", "arguments": {}})),
        ),
        ("resources/list", None),
        (
            "resources/read",
            Some(json!({"uri": "computer-mcp://runtime/work/v1"})),
        ),
    ] {
        let r = s.call(method, params);
        assert_eq!(r["error"]["code"], -32600, "{method}: {r}");
        assert_eq!(r["error"]["message"], "not initialized", "{method}: {r}");
    }
    // The gate opens with initialize.
    s.init();
    assert!(s.call("tools/list", None).get("result").is_some());
}

#[test]
fn unknown_methods_are_method_not_found_even_before_initialize() {
    // T3, C-T3, reference/hosts/: real hosts probe server/discover first and fall back on -32601.
    let mut s = Session::start();
    let id = json!("server-discover-probe-1");
    s.request_with_id(
        &id,
        "server/discover",
        Some(json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}})),
    );
    let r = s.response(&id);
    assert_eq!(r["error"]["code"], -32601, "{r}");
    s.init();
    for m in [
        "server/discover",
        "prompts/list",
        "completion/complete",
        "x",
    ] {
        let r = s.call(m, None);
        assert_eq!(r["error"]["code"], -32601, "{m}: {r}");
    }
}

#[test]
fn resource_templates_are_an_empty_list() {
    // T3: the server declares `resources`, so hosts ask for templates; Inspector's
    // CLI failed on -32601. There are none.
    let mut s = Session::start();
    s.init();
    let r = s.call("resources/templates/list", None);
    assert_eq!(r["result"], json!({"resourceTemplates": []}), "{r}");
}

#[test]
fn notifications_get_no_answer_before_or_after_initialize() {
    // T3: unknown notifications are ignored; notifications are never answered.
    let mut s = Session::start();
    s.notify("notifications/initialized", None);
    s.notify("notifications/whatever", Some(json!({"x": 1})));
    s.notify("notifications/cancelled", Some(json!({"requestId": 1})));
    let id = s.request("ping", None);
    let next = s.recv_expect();
    assert_eq!(
        next["id"], id,
        "the first message after notifications: {next}"
    );
    s.init();
    s.notify("notifications/roots/list_changed", None);
    s.notify(
        "notifications/progress",
        Some(json!({"progressToken": 1, "progress": 1})),
    );
    let id = s.request("ping", None);
    let next = s.recv_expect();
    assert_eq!(next["id"], id, "{next}");
}

#[test]
fn a_second_initialize_is_refused_and_changes_nothing() {
    // C-T2: -32600 "already initialized"; the version negotiated first holds.
    let mut s = Session::start();
    s.init();
    let r = s.call(
        "initialize",
        Some(json!({"protocolVersion": "2025-03-26", "capabilities": {},
                    "clientInfo": {"name": "again", "version": "0"}})),
    );
    assert_eq!(r["error"]["code"], -32600, "{r}");
    assert_eq!(r["error"]["message"], "already initialized");
    // Still 2025-06-18: a batch stays refused (T5).
    s.send_raw(b"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]\n");
    let b = s.recv_expect();
    assert_eq!(b["error"]["code"], -32600, "{b}");
}

#[test]
fn initialize_with_params_that_are_not_an_object_is_invalid_params() {
    // C-T2
    let mut s = Session::start();
    let r = s.call("initialize", Some(json!(["2025-06-18"])));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    // Not initialized by that.
    let r = s.call("tools/list", None);
    assert_eq!(r["error"]["code"], -32600, "{r}");
}

#[test]
fn stdin_eof_exits_zero() {
    // T8
    let mut s = Session::start();
    s.init();
    s.close_stdin();
    let st = s.wait_exit(TIMEOUT).expect("exits after EOF");
    assert_eq!(st.code(), Some(0), "stderr: {}", s.stderr_text());
}

#[test]
fn stdin_eof_before_initialize_exits_zero() {
    let mut s = Session::start();
    s.close_stdin();
    let st = s.wait_exit(TIMEOUT).expect("exits after EOF");
    assert_eq!(st.code(), Some(0));
}

#[test]
fn sigterm_exits_zero_with_stdin_still_open() {
    // T8
    let mut s = Session::start();
    s.init();
    s.signal(Signal::SIGTERM);
    let st = s.wait_exit(TIMEOUT).expect("exits after SIGTERM");
    assert_eq!(st.code(), Some(0), "stderr: {}", s.stderr_text());
}

#[test]
fn sigint_shuts_down_cleanly_too() {
    let mut s = Session::start();
    s.init();
    s.signal(Signal::SIGINT);
    let st = s.wait_exit(TIMEOUT).expect("exits after SIGINT");
    assert_eq!(st.code(), Some(0), "stderr: {}", s.stderr_text());
}

#[test]
fn a_request_cut_by_eof_is_still_answered_before_exit() {
    // T1, C-T1: a last line cut by EOF is still handled, then the server shuts down (T8).
    let mut s = Session::start();
    s.send_raw(br#"{"jsonrpc":"2.0","id":"tail","method":"ping"}"#);
    s.close_stdin();
    let r = s.response(&json!("tail"));
    assert_eq!(r["result"], json!({}), "{r}");
    assert_eq!(s.wait_exit(TIMEOUT).and_then(|st| st.code()), Some(0));
}

#[test]
fn half_a_message_at_eof_is_a_parse_error_then_exit_zero() {
    let mut s = Session::start();
    s.init();
    s.send_raw(br#"{"jsonrpc":"2.0","id":5,"meth"#);
    s.close_stdin();
    let r = s.recv_expect();
    assert_eq!(r["error"]["code"], -32700, "{r}");
    assert_eq!(r["id"], Value::Null);
    assert_eq!(s.wait_exit(TIMEOUT).and_then(|st| st.code()), Some(0));
}

#[test]
fn stdout_carries_only_protocol_messages() {
    // T1: every stdout line of a whole session parses as one JSON-RPC message.
    let mut s = Session::start();
    s.init();
    s.call("tools/list", None);
    s.send_raw(b"garbage\n");
    s.close_stdin();
    while let Some(line) = s.recv_line(Duration::from_secs(10)) {
        let v: Value = serde_json::from_slice(&line).expect("stdout line is JSON");
        assert_eq!(v["jsonrpc"], "2.0", "{v}");
        assert_eq!(line.last(), Some(&b'\n'));
    }
}

#[test]
fn sigterm_during_a_run_call_answers_it_cancelled_then_exits_zero() {
    // T8: every active run is cancelled and its cleanup awaited, then exit 0. The waiting call
    // is answered with the cancelled run (the host may still read stdout).
    let mut s = crate::support::Adapter::new().fake_claude().spawn();
    s.init();
    let id = s.request(
        "tools/call",
        Some(json!({"name": "claude.run",
                    "arguments": {"prompt": super::calls::scenario("hang-before-final"),
                                  "timeout_s": 60}})),
    );
    let run_id = super::calls::the_active_run(&mut s);
    super::calls::wait_running(&mut s, &run_id);
    s.signal(Signal::SIGTERM);
    let resp = s.response(&id);
    assert_eq!(resp["result"]["isError"], true, "{resp}");
    let run = super::tools::structured(&resp["result"]);
    assert_eq!(run["state"], "cancelled", "{resp}");
    assert_eq!(run["cleanup_confirmed"], true, "{resp}");
    let st = s.wait_exit(TIMEOUT).expect("exits after SIGTERM");
    assert_eq!(st.code(), Some(0), "stderr: {}", s.stderr_text());
}

#[test]
fn stdin_eof_exits_zero_when_the_host_closed_stderr() {
    // T8 whatever happened to stderr: a host that stopped reading it (its read end closed) must
    // still see a clean exit 0 after EOF, not a panic on the diagnostics write.
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};
    let mut child = Command::new(crate::support::adapter_bin())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn the adapter");
    drop(child.stderr.take());
    let mut stdin = child.stdin.take().expect("stdin");
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#;
    writeln!(stdin, "{init}").expect("write");
    // A stray response makes the server write a diagnostic before the EOF does.
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":5,"result":{{}}}}"#).expect("write");
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":1,"method":"ping"}}"#).expect("write");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let mut answered = 0;
    while answered < 2 {
        match lines.next() {
            Some(Ok(_)) => answered += 1,
            _ => break,
        }
    }
    drop(stdin);
    let deadline = std::time::Instant::now() + TIMEOUT;
    let status = loop {
        if let Ok(Some(st)) = child.try_wait() {
            break Some(st);
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert_eq!(answered, 2, "initialize and ping were answered");
    let status = status.expect("exits after EOF");
    assert_eq!(status.code(), Some(0), "{status:?}");
}

#[test]
fn a_host_that_closes_stdout_while_nothing_is_written_stops_the_server() {
    // C-T8: the host closing its end of stdout is learnt from the kernel (POLLERR on the pipe)
    // while the adapter is idle, not only at its next write: it shuts down and exits 0 although
    // stdin stays open and nothing more is sent.
    use std::io::{BufRead, BufReader, Read, Write};
    use std::process::{Command, Stdio};
    let mut child = Command::new(crate::support::adapter_bin())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn the adapter");
    let pid = child.id();
    let mut stdin = child.stdin.take().expect("stdin");
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#;
    writeln!(stdin, "{init}").expect("write");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut answer = String::new();
    stdout.read_line(&mut answer).expect("initialize answer");
    assert!(answer.contains("\"result\""), "{answer}");
    drop(stdout);
    let mut stderr = child.stderr.take().expect("stderr");
    // Wait on the child's exit (an event), bounded; kill it if it never comes.
    let (tx, rx) = std::sync::mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let _ = tx.send(child.wait());
    });
    let status = rx.recv_timeout(TIMEOUT);
    if status.is_err() {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(pid as i32),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
    let _ = waiter.join();
    let mut diag = String::new();
    let _ = stderr.read_to_string(&mut diag);
    drop(stdin);
    let status = status.expect("the adapter exits after the host closed stdout");
    let status = status.expect("wait");
    assert_eq!(status.code(), Some(0), "stderr: {diag}");
    assert!(diag.contains("OutputClosed"), "stderr: {diag}");
}

/// Runs the adapter with `stdin` and no arguments until it exits (bounded); returns its stderr.
fn stderr_with_stdin(stdin: std::process::Stdio, eof: impl FnOnce()) -> String {
    let mut child = std::process::Command::new(crate::support::adapter_bin())
        .stdin(stdin)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn the adapter");
    eof();
    let (tx, rx) = std::sync::mpsc::channel();
    let mut err = child.stderr.take().expect("stderr");
    std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut err, &mut s);
        let _ = tx.send(s);
    });
    let text = rx.recv_timeout(TIMEOUT).unwrap_or_else(|_| {
        let _ = child.kill();
        panic!("the adapter did not exit at EOF")
    });
    let _ = child.wait();
    text
}

#[test]
fn a_terminal_on_stdin_gets_a_one_line_notice_and_a_pipe_does_not() {
    let pty = nix::pty::openpty(None, None).expect("a pseudo-terminal");
    let master = pty.master;
    let text = stderr_with_stdin(std::process::Stdio::from(pty.slave), || {
        // ^D at the start of a line: the terminal's EOF, so the server shuts down (T8).
        nix::unistd::write(&master, b"\x04").expect("write ^D");
    });
    assert!(
        text.starts_with("claude-mcp-adapter: waiting for an MCP client on stdin; see --help\n"),
        "{text}"
    );
    let text = stderr_with_stdin(std::process::Stdio::null(), || {});
    assert!(!text.contains("waiting for an MCP client"), "{text}");
}

#[test]
fn help_covers_both_providers() {
    let out = std::process::Command::new(crate::support::adapter_bin())
        .arg("--help")
        .output()
        .expect("run --help");
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    for needle in [
        "Claude Code's print mode",
        "Cursor's agent over ACP (`--provider cursor`",
        "--env-deny",
        "--record-overwrite",
    ] {
        assert!(help.contains(needle), "{needle}: {help}");
    }
}

#[test]
fn the_servers_usage_errors_exit_2_naming_the_flag() {
    // Every flag the registration table derives (--provider, --NAME, --NAME-cli-tree) and the
    // server's own: a bad value is refused before anything is served.
    for (args, says) in [
        (&["--provider", "nobody"][..], "--provider"),
        (&["--max-frame-bytes", "10"], "--max-frame-bytes"),
        (&["--max-timeout-s", "0"], "--max-timeout-s"),
        (&["--tool-names", "camel"], "--tool-names"),
        (&["--acp-step-timeout-s", "601"], "--acp-step-timeout-s"),
        (&["--record-overwrite"], "--record"),
        (
            &["--cli-tree", "/nonexistent/tree.json"],
            "/nonexistent/tree.json",
        ),
        (
            &[
                "--provider",
                "cursor",
                "--cursor-cli-tree",
                "/nonexistent/c.json",
            ],
            "/nonexistent/c.json",
        ),
    ] {
        crate::support::adapter_cli()
            .args(args)
            .assert()
            .code(2)
            .stdout(predicates::str::is_empty())
            .stderr(predicates::str::contains(says));
    }
    crate::support::adapter_cli()
        .arg("--version")
        .assert()
        .success()
        .stdout(predicates::str::starts_with("claude-mcp-adapter "));
}
