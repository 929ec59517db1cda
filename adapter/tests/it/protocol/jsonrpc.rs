//! JSON-RPC handling: exact id echo (T3a), error semantics (T4), framing details (T1).

use serde_json::{Value, json};

use crate::support::Session;

/// Sends a raw line and returns the next message as raw text and as JSON.
fn exchange(s: &mut Session, line: &str) -> (String, Value) {
    s.send_raw(format!("{line}\n").as_bytes());
    let raw = s
        .recv_line(crate::support::TIMEOUT)
        .unwrap_or_else(|| panic!("no answer to {line}; stderr:\n{}", s.stderr_text()));
    let text = String::from_utf8(raw).expect("utf-8 answer");
    let v = serde_json::from_str(text.trim_end()).expect("json answer");
    (text, v)
}

#[test]
fn ids_of_every_legal_shape_are_echoed_exactly() {
    // T3a: strings (also empty), 0, negative, i64::MIN, i64::MAX, u64::MAX.
    let mut s = Session::start();
    s.init();
    for id in [
        "\"\"".to_owned(),
        "\"x\"".to_owned(),
        "\"ünïcode \\\"quoted\\\"\"".to_owned(),
        "0".to_owned(),
        "-1".to_owned(),
        i64::MIN.to_string(),
        i64::MAX.to_string(),
        u64::MAX.to_string(),
    ] {
        for method in ["ping", "tools/list", "no/such/method"] {
            let (text, v) = exchange(
                &mut s,
                &format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}"}}"#),
            );
            assert!(
                text.contains(&format!("\"id\":{id}")),
                "id {id} not echoed byte for byte: {text}"
            );
            let expect: Value = serde_json::from_str(&id).expect("id json");
            assert_eq!(v["id"], expect);
        }
    }
}

#[test]
fn ids_are_echoed_in_tool_errors_and_invalid_requests() {
    let mut s = Session::start();
    s.init();
    let (text, v) = exchange(
        &mut s,
        &format!(
            r#"{{"jsonrpc":"2.0","id":{},"method":"tools/call","params":{{"name":"nope"}}}}"#,
            u64::MAX
        ),
    );
    assert_eq!(v["error"]["code"], -32602, "{v}");
    assert!(text.contains(&format!("\"id\":{}", u64::MAX)), "{text}");
    // T4: an invalid request with a readable id is answered with that id.
    let (_, v) = exchange(&mut s, r#"{"jsonrpc":"1.0","id":"", "method":"ping"}"#);
    assert_eq!(v["error"]["code"], -32600, "{v}");
    assert_eq!(v["id"], json!(""));
}

#[test]
fn unparseable_lines_are_parse_errors_with_a_null_id() {
    // T4
    let mut s = Session::start();
    s.init();
    for line in [
        "garbage",
        "{",
        r#"{"jsonrpc":"2.0","id":1,"method":"ping""#,
        r#"{"jsonrpc":"2.0","id":1,"method":"ping"} trailing"#,
        "'single quotes'",
        "NaN",
    ] {
        let (_, v) = exchange(&mut s, line);
        assert_eq!(v["error"]["code"], -32700, "{line}: {v}");
        assert_eq!(v["id"], Value::Null, "{line}: {v}");
    }
    assert!(s.call("ping", None).get("result").is_some());
}

#[test]
fn invalid_utf8_is_a_parse_error_and_the_session_goes_on() {
    // T1 (UTF-8), C-T1 (invalid UTF-8 is -32700), T4
    let mut s = Session::start();
    s.init();
    s.send_raw(b"\xff\xfe\xfd\n");
    let v = s.recv_expect();
    assert_eq!(v["error"]["code"], -32700, "{v}");
    assert_eq!(v["id"], Value::Null);
    s.send_raw(
        b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\",\"params\":{\"x\":\"\xc3\x28\"}}\n",
    );
    let v = s.recv_expect();
    assert_eq!(v["error"]["code"], -32700, "{v}");
    assert!(s.call("ping", None).get("result").is_some());
}

#[test]
fn well_formed_values_that_are_not_requests_are_invalid_requests() {
    // T4: -32600, with the id when one can be read.
    let mut s = Session::start();
    s.init();
    let cases: &[(&str, Value)] = &[
        ("42", Value::Null),
        ("\"ping\"", Value::Null),
        ("null", Value::Null),
        ("{}", Value::Null),
        (r#"{"id":3,"method":"ping"}"#, json!(3)),
        (r#"{"jsonrpc":"1.0","id":4,"method":"ping"}"#, json!(4)),
        (r#"{"jsonrpc":"2.0","id":5,"method":7}"#, json!(5)),
        (
            r#"{"jsonrpc":"2.0","id":"six","method":"ping","params":3}"#,
            json!("six"),
        ),
        (
            r#"{"jsonrpc":"2.0","id":"seven","method":"ping","result":{}}"#,
            json!("seven"),
        ),
        (r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#, Value::Null),
        (
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            Value::Null,
        ),
        (r#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#, Value::Null),
        (r#"{"jsonrpc":"2.0","id":8}"#, json!(8)),
    ];
    for (line, id) in cases {
        let (_, v) = exchange(&mut s, line);
        assert_eq!(v["error"]["code"], -32600, "{line}: {v}");
        assert_eq!(&v["id"], id, "{line}: {v}");
    }
    assert!(s.call("ping", None).get("result").is_some());
}

#[test]
fn responses_from_the_client_are_not_answered() {
    // The server sends no requests: a stray response or error response gets nothing back.
    let mut s = Session::start();
    s.init();
    s.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":99,\"result\":{}}\n");
    s.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-1,\"message\":\"x\"}}\n");
    let id = s.request("ping", None);
    let next = s.recv_expect();
    assert_eq!(next["id"], id, "{next}");
}

#[test]
fn bad_params_are_invalid_params() {
    // T4: -32602. C-TOOL-1: `tools/call` params not an object or without a string `name`; C-PAGE:
    // no cursor is ever issued, so any `cursor` is refused.
    let mut s = Session::start();
    s.init();
    for (method, params) in [
        ("tools/list", json!([])),
        ("tools/list", json!({"cursor": "nope"})),
        ("resources/list", json!({"cursor": "x"})),
        ("resources/read", json!({})),
        ("resources/read", json!({"uri": 5})),
        ("tools/call", json!({})),
        ("tools/call", json!({"name": 5})),
        ("tools/call", json!([])),
    ] {
        let r = s.call(method, Some(params.clone()));
        assert_eq!(r["error"]["code"], -32602, "{method} {params}: {r}");
    }
}

#[test]
fn crlf_line_endings_and_blank_lines_are_accepted() {
    // T1, C-T1: one trailing \r is stripped; lines of only whitespace are not frames. C-T3: the
    // gate opens with the `initialize` answer; no `notifications/initialized` is sent here.
    let mut s = Session::start();
    s.send_raw(b"\n\r\n   \n\t\r\n");
    s.send_raw(
        b"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\"}}\r\n",
    );
    let v = s.recv_expect();
    assert_eq!(v["id"], 0, "blank lines were answered: {v}");
    assert_eq!(v["result"]["protocolVersion"], "2025-06-18");
    s.send_raw(b"\r\n\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\r\n\n");
    let v = s.recv_expect();
    assert_eq!(v["id"], 1, "{v}");
    assert_eq!(v["result"]["tools"].as_array().map(Vec::len), Some(7));
}

#[test]
fn garbage_between_valid_requests_loses_nothing() {
    // T4: after any bad input the server keeps serving; nothing already accepted is lost.
    let mut s = Session::start();
    s.init();
    let garbage: &[(&str, i64)] = &[
        ("}{", -32700),
        ("\u{1}\u{2}", -32700),
        ("[1,2", -32700),
        ("17", -32600),
        (r#"{"jsonrpc":"2.0"}"#, -32600),
        // A batch under 2025-06-18 (T5).
        (r#"[{"jsonrpc":"2.0","id":"b","method":"ping"}]"#, -32600),
    ];
    let mut bytes = Vec::new();
    let mut expected = Vec::new();
    let rounds = 40;
    for i in 0..rounds {
        let (method, id) = if i % 3 == 0 {
            ("tools/list", json!(format!("list-{i}")))
        } else {
            ("ping", json!(i))
        };
        bytes.extend_from_slice(
            json!({"jsonrpc": "2.0", "id": id, "method": method})
                .to_string()
                .as_bytes(),
        );
        bytes.push(b'\n');
        expected.push(id);
        let (g, _) = garbage[i % garbage.len()];
        bytes.extend_from_slice(g.as_bytes());
        bytes.push(b'\n');
        // An invalid request whose id can be read is answered with it.
        let bad_id = json!(format!("bad-{i}"));
        bytes.extend_from_slice(
            format!(r#"{{"jsonrpc":"2.0","id":"bad-{i}","method":["x"]}}"#).as_bytes(),
        );
        bytes.push(b'\n');
        expected.push(bad_id);
    }
    s.send_raw(&bytes);
    let mut null_errors: Vec<i64> = Vec::new();
    let mut answered: Vec<Value> = Vec::new();
    while answered.len() < expected.len() || null_errors.len() < rounds {
        let v = s.recv_expect();
        if v["id"].is_null() {
            null_errors.push(v["error"]["code"].as_i64().expect("error code"));
            continue;
        }
        let id = v["id"].as_str().map(str::to_owned);
        if id.as_deref().is_some_and(|i| i.starts_with("bad-")) {
            assert_eq!(v["error"]["code"], -32600, "{v}");
        } else {
            assert!(v.get("result").is_some(), "valid request failed: {v}");
        }
        answered.push(v["id"].clone());
    }
    assert_eq!(answered, expected, "every request answered, in order");
    let want: Vec<i64> = (0..rounds).map(|i| garbage[i % garbage.len()].1).collect();
    assert_eq!(null_errors, want, "every garbage line answered as T4 says");
    assert!(s.call("ping", None).get("result").is_some());
}

#[test]
fn endless_stray_responses_do_not_fill_an_unread_stderr() {
    // T1 (diagnostics go to stderr) with bounds: a host may pipe stderr and never read it. What a
    // client sends must not make the server write without bound there, or a full pipe stops it.
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};
    let mut child = Command::new(crate::support::adapter_bin())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn the adapter");
    let _unread_stderr = child.stderr.take();
    let mut stdin = child.stdin.take().expect("stdin");
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().expect("stdout");
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#;
    writeln!(stdin, "{init}").expect("write");
    assert!(
        rx.recv_timeout(crate::support::TIMEOUT).is_ok(),
        "initialize"
    );
    // A pipe holds 64 KiB; each stray response used to cost a 55-byte line of stderr.
    let mut strays = String::new();
    for i in 0..20_000 {
        strays.push_str(&format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{i},\"result\":{{}}}}\n"
        ));
    }
    strays.push_str("{\"jsonrpc\":\"2.0\",\"id\":\"after\",\"method\":\"ping\"}\n");
    // From a thread: a server stuck on its stderr stops reading, and this write would block.
    std::thread::spawn(move || {
        let _ = stdin.write_all(strays.as_bytes());
        let _ = stdin.flush();
        std::thread::sleep(crate::support::TIMEOUT);
    });
    let answer = rx.recv_timeout(crate::support::TIMEOUT);
    let _ = child.kill();
    let _ = child.wait();
    let answer = answer.expect("the ping after the stray responses was never answered");
    let v: Value = serde_json::from_str(&answer).expect("json");
    assert_eq!(v["id"], "after", "{v}");
}
