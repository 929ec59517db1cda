//! The stand-in on its own, over raw HTTP/1.1: routing, answers, the request log, markers, and
//! shutdown on drop. No CLI needed.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use serde_json::{Value, json};
use testkit::standin::{RequestKind, Scenario, Standin, StreamOutcome};

/// Sends one request with `Connection: close` and returns (status, headers+body text).
fn send(standin: &Standin, method: &str, target: &str, body: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(("127.0.0.1", standin.port())).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    let request = format!(
        "{method} {target} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n\
         anthropic-version: 2023-06-01\r\nx-api-key: k\r\nx-secret: s\r\nconnection: close\r\n\
         content-length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).expect("write");
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("read");
    let status = response
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("status line");
    (status, response)
}

fn body_of(response: &str) -> Value {
    let body = response.split("\r\n\r\n").nth(1).expect("body");
    serde_json::from_str(body).expect("JSON body")
}

/// `(event name, data)` pairs of an SSE response (chunked encoding lines are skipped).
fn sse_events(response: &str) -> Vec<(String, Value)> {
    let lines: Vec<&str> = response.lines().collect();
    lines
        .windows(2)
        .filter_map(|w| {
            let name = w[0].strip_prefix("event: ")?;
            let data = w[1].strip_prefix("data: ")?;
            Some((name.to_owned(), serde_json::from_str(data).ok()?))
        })
        .collect()
}

#[test]
fn count_tokens_preconnect_and_unknown_paths_get_their_answers() {
    let standin = Standin::start(Scenario::Text).expect("stand-in");
    let (status, response) = send(
        &standin,
        "POST",
        "/v1/messages/count_tokens?beta=true",
        "{}",
    );
    assert_eq!(
        (status, body_of(&response)),
        (200, json!({"input_tokens": 42}))
    );
    let (status, _) = send(&standin, "HEAD", "/api/hello", "");
    assert_eq!(status, 200);
    let (status, response) = send(&standin, "GET", "/v1/models", "");
    assert_eq!(status, 404);
    let error = body_of(&response);
    assert_eq!(
        (error["type"].as_str(), error["error"]["type"].as_str()),
        (Some("error"), Some("not_found_error"))
    );
    let kinds: Vec<_> = standin.requests().iter().map(|r| r.kind).collect();
    assert_eq!(
        kinds,
        [
            RequestKind::CountTokens,
            RequestKind::Preconnect,
            RequestKind::Other
        ]
    );
}

#[test]
fn messages_request_is_recorded_with_selected_headers_and_body() {
    let standin = Standin::start(Scenario::Text).expect("stand-in");
    let body =
        json!({"model": "m", "stream": true, "messages": [{"role": "user", "content": "hi"}]});
    let (status, response) = send(
        &standin,
        "POST",
        "/v1/messages?beta=true",
        &body.to_string(),
    );
    assert_eq!(status, 200);
    assert!(
        response
            .to_ascii_lowercase()
            .contains("content-type: text/event-stream")
    );
    let names: Vec<_> = sse_events(&response).into_iter().map(|(n, _)| n).collect();
    assert_eq!(
        names,
        [
            "message_start",
            "ping",
            "content_block_start",
            "content_block_delta",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop"
        ]
    );
    assert!(standin.wait_for(Duration::from_secs(10), |log| matches!(
        log[0].outcome,
        StreamOutcome::Completed { .. }
    )));
    let request = &standin.requests()[0];
    assert_eq!(
        (request.method.as_str(), request.path.as_str()),
        ("POST", "/v1/messages")
    );
    assert_eq!(request.query.as_deref(), Some("beta=true"));
    assert_eq!(request.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(request.header("x-api-key"), Some("k"));
    assert_eq!(
        request.header("x-secret"),
        None,
        "only selected headers are kept"
    );
    assert_eq!(request.body.as_ref(), Some(&body));
    assert_eq!(request.scenario.as_deref(), Some("text"));
}

#[test]
fn tool_scenario_streams_the_bash_input_in_pieces_and_non_streaming_gets_json() {
    let standin = Standin::start(Scenario::Tool).expect("stand-in");
    let body = json!({"model": "m", "stream": true, "tools": [{"name": "Bash"}],
                      "messages": [{"role": "user", "content": "create a file"}]});
    let (_, response) = send(&standin, "POST", "/v1/messages", &body.to_string());
    let events = sse_events(&response);
    let pieces: Vec<_> = events
        .iter()
        .filter_map(|(_, d)| d["delta"]["partial_json"].as_str())
        .collect();
    assert!(pieces.len() >= 2, "input JSON in pieces: {pieces:?}");
    let input: Value = serde_json::from_str(&pieces.concat()).expect("pieces join to JSON");
    assert_eq!(input["command"], "touch created-by-tool.txt");
    let stop = events
        .iter()
        .find(|(n, _)| n == "message_delta")
        .expect("message_delta");
    assert_eq!(stop.1["delta"]["stop_reason"], "tool_use");

    let plain = json!({"model": "m", "messages": [{"role": "user", "content": "title?"}]});
    let (status, response) = send(&standin, "POST", "/v1/messages", &plain.to_string());
    let message = body_of(&response);
    assert_eq!((status, message["type"].as_str()), (200, Some("message")));
    assert_eq!(
        message["content"][0]["text"], "Hi there!",
        "no Bash tool offered: a text answer"
    );
}

#[test]
fn error_scenarios_use_the_real_error_body_and_markers_override_the_default() {
    let standin = Standin::start(Scenario::Text).expect("stand-in");
    let body = json!({"model": "m", "stream": true,
                      "messages": [{"role": "user", "content": "standin:scenario=error-529 hi"}]});
    let (status, response) = send(&standin, "POST", "/v1/messages", &body.to_string());
    assert_eq!(status, 529);
    let error = body_of(&response);
    assert_eq!(
        error["error"],
        json!({"type": "overloaded_error", "message": "mock overloaded_error"})
    );
    assert!(
        error["request_id"]
            .as_str()
            .is_some_and(|id| id.starts_with("req_"))
    );
    assert!(response.to_ascii_lowercase().contains("request-id: req_"));
    let (status, _) = send(&standin, "POST", "/v1/messages", "not json");
    assert_eq!(status, 400);
}

#[test]
fn dropping_the_standin_closes_its_port_even_with_a_stream_open() {
    let standin = Standin::builder()
        .scenario(Scenario::Slow)
        .slow(Duration::from_secs(5), 10)
        .start()
        .expect("stand-in");
    let port = standin.port();
    let mut open = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    let body = json!({"stream": true, "messages": [{"role": "user", "content": "hi"}]}).to_string();
    let request = format!(
        "POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    open.write_all(request.as_bytes()).expect("write");
    assert!(standin.wait_for(Duration::from_secs(10), |log| !log.is_empty()));
    assert!(listening_here(port), "the stand-in listens on {port}");
    drop(standin);
    // Asked of this process's own sockets: a connect() to the port could reach another test's
    // listener that the kernel gave the freed port to.
    assert!(
        !listening_here(port),
        "port {port} still listening after drop"
    );
    open.set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    let mut rest = Vec::new();
    // The open stream was cut: the read ends (EOF or reset) instead of waiting ~50 s.
    if let Err(e) = open.read_to_end(&mut rest) {
        assert!(
            !matches!(
                e.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
            ),
            "the open stream was not cut: {e}"
        );
    }
}

/// Whether this process holds a listening TCP socket on 127.0.0.1:`port` (`/proc/self/net/tcp`
/// rows whose inode is one of this process's descriptors).
fn listening_here(port: u16) -> bool {
    let mine: std::collections::HashSet<String> = std::fs::read_dir("/proc/self/fd")
        .expect("/proc/self/fd")
        .filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
        .filter_map(|link| {
            let link = link.to_string_lossy().into_owned();
            Some(link.strip_prefix("socket:[")?.strip_suffix(']')?.to_owned())
        })
        .collect();
    let table = std::fs::read_to_string("/proc/self/net/tcp").expect("/proc/self/net/tcp");
    let local = format!("0100007F:{port:04X}");
    table.lines().skip(1).any(|row| {
        let f: Vec<&str> = row.split_whitespace().collect();
        // sl, local_address, rem_address, st (0A = LISTEN), …, inode at index 9.
        f.len() > 9 && f[1] == local && f[3] == "0A" && mine.contains(f[9])
    })
}
