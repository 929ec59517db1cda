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
