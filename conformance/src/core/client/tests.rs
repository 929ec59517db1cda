//! The raw client against small shell peers: how a deadline and a closed connection read, and
//! what the transcript keeps.

use super::*;

#[tokio::test]
async fn a_deadline_quotes_what_did_arrive_instead_of_nothing() {
    // Answers the request inside a batch (no answer to it as JSON-RPC reads it), after a
    // notification and a line that is no JSON; then stays silent.
    let script = r#"read l; echo '{"jsonrpc":"2.0","method":"notifications/message"}'; echo 'hello'; echo '[{"jsonrpc":"2.0","id":1,"result":{}}]'; sleep 30"#;
    let spec = ServerSpec {
        program: "sh".into(),
        args: vec!["-c".into(), script.into()],
        env: Vec::new(),
        endpoint: None,
    };
    let deadline = Deadline::at(Instant::now() + Duration::from_secs(20));
    let mut client = Client::spawn(&spec, Transcript::new(), deadline, None).expect("spawn");
    let pgid = client.handle().pgid;
    let id = client.send_request("ping", None).await.expect("send");
    assert_eq!(id, json!(1));
    let err = client
        .response_within(&id, "ping", Duration::from_millis(1500))
        .await
        .expect_err("no answer comes");
    process::signal_group(pgid, nix::sys::signal::Signal::SIGKILL);
    process::unregister(pgid);
    let crate::core::model::Check::Fail { actual, .. } = crate::core::model::Check::from(err)
    else {
        panic!("a failure");
    };
    assert!(actual.starts_with("no answer within "), "{actual}");
    for what in [
        "notifications/message",
        "a line that is no JSON: hello",
        r#"[{"jsonrpc":"2.0","id":1,"result":{}}]"#,
    ] {
        assert!(actual.contains(what), "{what} in {actual}");
    }
    assert!(
        actual.contains("(meanwhile, nothing answering it: at "),
        "{actual}"
    );
}

#[tokio::test]
async fn an_agent_peer_is_named_in_acp_words_and_what_it_sent_is_kept_as_sent() {
    // Reads one line, says something on stdout and stderr (in MCP's words: its own text is
    // never reworded), then exits 3 without answering.
    let script = r#"read l; echo '{"jsonrpc":"2.0","method":"x/the server closed the connection"}'; echo 'server exited: 1' >&2; exit 3"#;
    let spec = ServerSpec {
        program: "sh".into(),
        args: vec!["-c".into(), script.into()],
        env: Vec::new(),
        endpoint: None,
    };
    let transcript = Transcript::with_peer(Peer::Agent);
    let deadline = Deadline::at(Instant::now() + Duration::from_secs(20));
    let mut client = Client::spawn(&spec, transcript.clone(), deadline, None).expect("spawn");
    let pgid = client.handle().pgid;
    let id = client.send_request("ping", None).await.expect("send");
    let err = client
        .response_to(&id, "ping")
        .await
        .expect_err("no answer comes");
    assert_eq!(
        err.to_string(),
        "the agent closed the connection while waiting for ping (the agent exited with status 3)"
    );
    let check = crate::core::model::Check::from(err);
    let text = format!("{check:?}");
    assert!(text.contains("the agent to stay up (ping)"), "{text}");
    assert!(!text.contains("server"), "{text}");
    process::signal_group(pgid, nix::sys::signal::Signal::SIGKILL);
    process::unregister(pgid);

    let rows: Vec<(String, String)> = transcript
        .entries()
        .into_iter()
        .map(|e| (e.dir, e.line))
        .collect();
    let has = |dir: &str, line: &str| rows.iter().any(|(d, l)| d == dir && l.as_str() == line);
    let started = format!("started agent, pid {pgid}");
    assert!(has("note", &started), "{rows:?}");
    assert!(rows.iter().any(|(d, _)| d == "c2a"), "{rows:?}");
    assert!(
        has(
            "a2c",
            r#"{"jsonrpc":"2.0","method":"x/the server closed the connection"}"#
        ),
        "{rows:?}"
    );
    assert!(has("a2c-stderr", "server exited: 1"), "{rows:?}");
    assert!(has("note", "agent closed stdout"), "{rows:?}");
    assert!(
        rows.iter()
            .all(|(d, _)| !matches!(d.as_str(), "c2s" | "s2c" | "stderr")),
        "{rows:?}"
    );
}

#[test]
fn server_requests_get_an_answer_and_ping_the_empty_result() {
    let ping = json!({"jsonrpc": "2.0", "id": "s1", "method": "ping"});
    let reply = reply_to_server_request(&ping).unwrap();
    assert_eq!(reply["id"], "s1");
    assert_eq!(reply["result"], json!({}));
    let sampling = json!({"jsonrpc": "2.0", "id": 7, "method": "sampling/createMessage"});
    let reply = reply_to_server_request(&sampling).unwrap();
    assert_eq!(reply["id"], 7);
    assert_eq!(error_code(&reply), Some(-32601));
    let note = json!({"jsonrpc": "2.0", "method": "notifications/message"});
    assert_eq!(reply_to_server_request(&note), None);
    let answer = json!({"jsonrpc": "2.0", "id": 3, "result": {}});
    assert_eq!(reply_to_server_request(&answer), None);
}

#[test]
fn only_json_rpc_messages_are_valid_stdout_lines() {
    for ok in [
        json!({"jsonrpc": "2.0", "id": 1, "result": {}}),
        json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "x"}}),
        json!({"jsonrpc": "2.0", "id": "a", "method": "ping"}),
        json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {}}),
        json!([{"jsonrpc": "2.0", "id": 1, "result": {}}]),
    ] {
        assert_eq!(message_problem(&ok), None, "{ok}");
    }
    for bad in [
        json!({"level": "info", "msg": "ready"}),
        json!("a string"),
        json!({"id": 1, "result": {}}),
        json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601}}),
        json!({"jsonrpc": "2.0", "id": 1, "error": {"code": "x", "message": "m"}}),
        json!({"jsonrpc": "2.0", "id": 1, "result": {}, "error": {"code": 1, "message": "m"}}),
        json!({"jsonrpc": "2.0", "id": 1}),
        json!({"jsonrpc": "2.0", "id": null, "result": {}}),
        json!({"jsonrpc": "2.0", "id": 1, "result": null}),
        json!({"jsonrpc": "2.0", "id": null, "method": "ping"}),
        json!({"jsonrpc": "2.0", "method": 5}),
        json!([]),
    ] {
        assert!(message_problem(&bad).is_some(), "{bad} passed");
    }
}

/// A scripted Streamable HTTP server on loopback: `initialize` is answered as JSON with a
/// session id; inside the session `ping` as an SSE stream (a notification, then the response),
/// notifications with 202; anything without the session 400 with an id-less error (as the
/// TypeScript SDK does). The headers of each ping come back on the channel.
async fn http_peer() -> (
    crate::core::http::target::HttpTarget,
    mpsc::UnboundedReceiver<Vec<(String, String)>>,
) {
    use http_body_util::{BodyExt as _, Full};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let (seen_tx, seen_rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let seen_tx = seen_tx.clone();
            let svc = hyper::service::service_fn(
                move |req: hyper::Request<hyper::body::Incoming>| {
                    let seen_tx = seen_tx.clone();
                    async move {
                        let mut headers: Vec<(String, String)> = req
                            .headers()
                            .iter()
                            .map(|(n, v)| (n.to_string(), v.to_str().unwrap_or("").to_owned()))
                            .collect();
                        if req.method() == hyper::Method::DELETE {
                            headers.push(("method".into(), "DELETE".into()));
                            let _ = seen_tx.send(headers.clone());
                        }
                        let session = headers
                            .iter()
                            .any(|(n, v)| n == "mcp-session-id" && v == "s-1");
                        // A POST naming the stateless era in its headers, outside any session.
                        let modern = !session
                            && headers
                                .iter()
                                .any(|(n, v)| n == "mcp-protocol-version" && v == "2026-07-28");
                        let body = req.into_body().collect().await.expect("body").to_bytes();
                        let msg: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                        let id = msg.get("id").cloned();
                        let (status, ct, text, sid) = match msg.get("method").and_then(Value::as_str) {
                        // A batch in the session: one SSE event per request's response.
                        None if session && msg.is_array() => (200, "text/event-stream", msg
                            .as_array()
                            .into_iter()
                            .flatten()
                            .filter_map(|m| m.get("id"))
                            .map(|id| format!("data: {}\n\n", json!({"jsonrpc": "2.0", "id": id, "result": {}})))
                            .collect(), false),
                        // Its era: every request answered (server/discover is a method it
                        // does not define: 404 with -32601), and what it was sent recorded.
                        method if modern => {
                            let _ = seen_tx.send(headers.clone());
                            let answer = if method == Some("server/discover") {
                                json!({"jsonrpc": "2.0", "id": id,
                                       "error": {"code": -32601, "message": "Method not found"}})
                            } else {
                                json!({"jsonrpc": "2.0", "id": id, "result": {}})
                            };
                            let status = if answer.get("error").is_some() { 404 } else { 200 };
                            (status, "application/json", answer.to_string(), false)
                        }
                        Some("initialize") => (200, "application/json", json!({"jsonrpc": "2.0", "id": id,
                            "result": {"protocolVersion": "2025-06-18", "capabilities": {},
                                       "serverInfo": {"name": "peer", "version": "1"}}}).to_string(), true),
                        _ if !session => (400, "application/json",
                            r#"{"jsonrpc":"2.0","error":{"code":-32000,"message":"no session"},"id":null}"#.to_owned(), false),
                        Some("ping") => {
                            let _ = seen_tx.send(headers);
                            (200, "text/event-stream", format!(
                                "data: {}\n\ndata: {}\n\n",
                                json!({"jsonrpc": "2.0", "method": "notifications/message",
                                       "params": {"level": "info", "data": "hi"}}),
                                json!({"jsonrpc": "2.0", "id": id, "result": {}})), false)
                        }
                        _ => (202, "", String::new(), false),
                    };
                        let mut resp = hyper::Response::builder().status(status);
                        if !ct.is_empty() {
                            resp = resp.header("content-type", ct);
                        }
                        if sid {
                            resp = resp.header("mcp-session-id", "s-1");
                        }
                        Ok::<_, std::convert::Infallible>(
                            resp.body(Full::new(bytes::Bytes::from(text)))
                                .expect("response"),
                        )
                    }
                },
            );
            tokio::spawn(async move {
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), svc)
                    .await;
            });
        }
    });
    let target =
        crate::core::http::target::HttpTarget::parse(&format!("http://127.0.0.1:{port}/mcp"))
            .expect("url");
    (target, seen_rx)
}

// HTTP-1: one client over a session: the issued session id and revision on every later POST,
// an SSE answer's messages as frames in order, a notification's 202 awaited.
#[tokio::test]
async fn an_http_connection_is_a_session_whose_answers_are_frames() {
    let (target, mut seen) = http_peer().await;
    let spec = ServerSpec::endpoint(target);
    let transcript = Transcript::new();
    let deadline = Deadline::at(Instant::now() + Duration::from_secs(20));
    let mut client = Client::spawn(&spec, transcript.clone(), deadline, None).expect("connect");
    assert!(client.is_http());
    assert_eq!(client.pid(), 0, "no process of the runner's");
    let init = client
        .request("initialize", Some(json!({"protocolVersion": "2025-06-18"})))
        .await
        .expect("initialize answered");
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18");
    client
        .notify("notifications/initialized", None)
        .await
        .expect("202");
    let pong = client.request("ping", None).await.expect("ping answered");
    assert_eq!(pong["result"], json!({}));
    let earlier = client.take_seen();
    assert!(
        matches!(earlier.as_slice(), [Frame::Json(m)] if m["method"] == "notifications/message"),
        "{earlier:?}"
    );
    let headers = seen.recv().await.expect("the ping's headers");
    for (name, value) in [
        ("mcp-session-id", "s-1"),
        ("mcp-protocol-version", "2025-06-18"),
        ("accept", "application/json, text/event-stream"),
    ] {
        assert!(
            headers.iter().any(|(n, v)| n == name && v == value),
            "{name}: {value} in {headers:?}"
        );
    }
    // A batch's responses, one SSE event each, are its answer: one array (MCP 2025-03-26
    // transports: "These responses MAY be batched").
    let batch = json!([{"jsonrpc": "2.0", "id": "a", "method": "ping"},
                       {"jsonrpc": "2.0", "id": "b", "method": "ping"}]);
    client.send(&batch).await.expect("posted");
    let frames = client.collect(Duration::from_secs(2)).await.expect("read");
    assert!(
        matches!(frames.as_slice(), [Frame::Json(Value::Array(a))]
            if a.len() == 2 && a[0]["id"] == "a" && a[1]["id"] == "b"),
        "{frames:?}"
    );
    // Stdio's own means are not applicable: a skip, never a finding.
    let err = client.write(b"x").await.expect_err("no stdin");
    assert!(matches!(
        crate::core::model::Check::from(err),
        crate::core::model::Check::Skip(_)
    ));
    assert!(
        transcript
            .entries()
            .iter()
            .any(|e| e.line.contains("HTTP 202"))
    );
    // HTTP-5: a connection dropped ends its session.
    drop(client);
    let ended = seen.recv().await.expect("the DELETE's headers");
    assert!(
        ended.iter().any(|(n, v)| n == "method" && v == "DELETE")
            && ended
                .iter()
                .any(|(n, v)| n == "mcp-session-id" && v == "s-1"),
        "{ended:?}"
    );
}

// HTTP-1 (MCP 2026-07-28 streamable-http, Request Metadata): a request in the 2026-07-28
// envelope carries "an `MCP-Protocol-Version` header" matching its `_meta`, `Mcp-Method` and
// `Mcp-Name`; once one is answered with a result the link is of that era and a request without
// the envelope carries them too; a refused one makes no era (the client falls back).
#[tokio::test]
async fn a_request_in_the_2026_07_28_envelope_carries_its_metadata_headers() {
    let (target, mut seen) = http_peer().await;
    let spec = ServerSpec::endpoint(target);
    let deadline = Deadline::at(Instant::now() + Duration::from_secs(20));
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"});
    let mut refused =
        Client::spawn(&spec, Transcript::new(), deadline.clone(), None).expect("connect");
    let answer = refused
        .request("server/discover", Some(json!({"_meta": meta})))
        .await
        .expect("answered");
    assert_eq!(answer["error"]["code"], -32601, "{answer}");
    seen.recv().await.expect("the discover's headers");
    let err = refused
        .request("ping", None)
        .await
        .expect_err("no era: refused without a session");
    let check = format!("{:?}", crate::core::model::Check::from(err));
    assert!(
        check.contains("HTTP 400"),
        "a refused envelope made no era: {check}"
    );
    let mut client = Client::spawn(&spec, Transcript::new(), deadline, None).expect("connect");
    let called = client
        .request(
            "tools/call",
            Some(json!({"name": "add", "arguments": {}, "_meta": meta})),
        )
        .await
        .expect("answered");
    assert_eq!(called["result"], json!({}), "{called}");
    let headers = seen.recv().await.expect("the call's headers");
    for (name, value) in [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "add"),
    ] {
        assert!(
            headers.iter().any(|(n, v)| n == name && v == value),
            "{name}: {value} in {headers:?}"
        );
    }
    assert!(
        headers.iter().all(|(n, _)| n != "mcp-session-id"),
        "{headers:?}"
    );
    let bare = client.request("tools/list", None).await.expect("answered");
    assert_eq!(bare["result"], json!({}), "{bare}");
    let headers = seen.recv().await.expect("the list's headers");
    assert!(
        headers
            .iter()
            .any(|(n, v)| n == "mcp-protocol-version" && v == "2026-07-28")
            && headers
                .iter()
                .any(|(n, v)| n == "mcp-method" && v == "tools/list"),
        "{headers:?}"
    );
}

// HTTP-4: a request before the session refused with 400 ends the wait at once, as a skip (what
// a server does before initialize is not observable there); the id-less error in that body is
// the refusal, not the request's answer.
#[tokio::test]
async fn a_request_before_the_session_refused_with_400_is_not_applicable() {
    let (target, _seen) = http_peer().await;
    let spec = ServerSpec::endpoint(target);
    let deadline = Deadline::at(Instant::now() + Duration::from_secs(20));
    let mut client = Client::spawn(&spec, Transcript::new(), deadline, None).expect("connect");
    let started = Instant::now();
    let err = client
        .request("tools/list", None)
        .await
        .expect_err("refused");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "no wait for the deadline"
    );
    let check = crate::core::model::Check::from(err);
    let crate::core::model::Check::Skip(reason) = &check else {
        panic!("a skip: {check:?}");
    };
    assert!(reason.starts_with(NOT_OVER_HTTP), "{reason}");
    assert!(reason.contains("HTTP 400"), "{reason}");
}

// HTTP-4: a request before the session refused with another 4xx (rmcp 3.1.0: 422 "Unexpected
// message, expect initialize request") is the same refusal as a 400, not observable before
// initialize either; its status is transport/http/session/required's finding, not a second one.
// A 5xx, or a 4xx to a request inside a session, stays the request's own failure.
#[test]
fn a_request_before_the_session_refused_with_another_4xx_is_not_applicable_either() {
    let refused = |status: u16, sessionless: bool| ClientError::Refused {
        waiting_for: "ping".into(),
        refusal: Box::new(Refusal {
            id: serde_json::json!(1),
            status,
            said: format!("HTTP {status} (no Content-Type): a refusal"),
            sessionless,
        }),
    };
    let check = crate::core::model::Check::from(refused(422, true));
    let crate::core::model::Check::Skip(reason) = &check else {
        panic!("a skip: {check:?}");
    };
    assert!(reason.starts_with(NOT_OVER_HTTP), "{reason}");
    assert!(
        reason.contains("HTTP 422") && reason.contains("transport/http/session/required"),
        "{reason}"
    );
    for (status, sessionless) in [(422, false), (500, true)] {
        let check = crate::core::model::Check::from(refused(status, sessionless));
        assert!(check.is_fail(), "{status} {sessionless}: {check:?}");
    }
}
