//! ACP-8 over stdio: `resume_session_id` is honoured only by an agent that advertises
//! `loadSession` (then `session/load`), otherwise `invalid_arguments` at `/resume_session_id`
//! with the reason (C-ACP-2); `continue_previous` and `no_session_persistence` are not offered.

use serde_json::{Value, json};

use super::{Cursor, code};

#[test]
fn resume_on_an_agent_without_load_session_is_invalid_arguments_saying_why() {
    // ACP-8, C-ACP-2: nothing is sent after initialize.
    let mut h = Cursor::new("default");
    let (r, is_error) = h.run(json!({"prompt": "hello", "resume_session_id": "abc-123"}));
    assert!(is_error, "{r}");
    assert_eq!(r["state"], "failed", "{r}");
    assert_eq!(code(&r), "invalid_arguments", "{r}");
    assert_eq!(r["error"]["field"], "/resume_session_id", "{r}");
    let msg = r["error"]["message"].as_str().expect("message");
    assert!(msg.contains("loadSession"), "says why: {msg}");
    let methods: Vec<Value> = h.log.sent().iter().map(|m| m["method"].clone()).collect();
    assert_eq!(methods, [json!("initialize")], "nothing after initialize");
    assert_eq!(r["cleanup_confirmed"], true);
    super::assert_group_gone(h.agent_pgid());
}

#[test]
fn resume_on_an_agent_with_load_session_sends_session_load_and_succeeds() {
    // ACP-8.
    let mut h = Cursor::new("load-session");
    let cwd = tempfile::tempdir().expect("cwd");
    let cwd_s = cwd.path().to_str().expect("utf-8").to_owned();
    let (r, is_error) = h.run(json!({
        "prompt": "hello", "resume_session_id": "sess-42", "cwd": cwd_s
    }));
    assert!(!is_error, "{r}");
    assert_eq!(r["state"], "succeeded", "{r}");
    let loads = h.log.sent_method("session/load");
    assert_eq!(loads.len(), 1);
    assert_eq!(
        loads[0]["params"],
        json!({"sessionId": "sess-42", "cwd": cwd_s, "mcpServers": []})
    );
    assert!(
        h.log.sent_method("session/new").is_empty(),
        "no new session"
    );
    assert_eq!(
        h.log.sent_method("session/prompt")[0]["params"]["sessionId"],
        "sess-42"
    );
    assert_eq!(r["final"]["sessionId"], "sess-42");
    assert_eq!(r["native_session_id"], "sess-42");
}

#[test]
fn continue_previous_and_no_session_persistence_are_not_offered() {
    // ACP-8: absent from the schema and refused as unknown arguments, before any agent starts.
    let mut h = Cursor::new("default");
    let tools = h.s.call("tools/list", None);
    let run = tools["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .find(|t| t["name"] == "cursor.run")
        .expect("cursor.run")
        .clone();
    let props = run["inputSchema"]["properties"]
        .as_object()
        .expect("properties");
    for offered in ["model", "permission_mode", "resume_session_id"] {
        assert!(props.contains_key(offered), "{offered}: {run}");
    }
    for absent in ["continue_previous", "no_session_persistence"] {
        assert!(!props.contains_key(absent), "{absent} offered: {run}");
        let resp =
            h.s.call_tool_response("cursor.run", json!({"prompt": "hello", absent: true}), None);
        let refused = match (resp.get("error"), resp.get("result")) {
            (Some(e), _) => e["code"] == -32602,
            (None, Some(r)) => {
                let (v, is_error) = super::split(r);
                is_error && v["error"]["code"] == "invalid_arguments"
            }
            _ => false,
        };
        assert!(refused, "{absent} must be refused: {resp}");
    }
    assert!(h.log.agent_starts().is_empty(), "no agent was started");
}
