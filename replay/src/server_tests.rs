//! Unit tests of serving without processes: id rewriting, triggers, order, refusals.

use std::path::Path;

use serde_json::json;

use super::*;

fn recording() -> Recording {
    let rows = [
        json!({"dir":"c2s","ms":0,"msg":{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}}),
        json!({"dir":"s2c","ms":0,"msg":{"jsonrpc":"2.0","id":1,"result":{"serverInfo":{"name":"s"}}}}),
        json!({"dir":"c2s","ms":0,"msg":{"jsonrpc":"2.0","method":"notifications/initialized"}}),
        json!({"dir":"c2s","ms":0,"msg":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"a"}}}),
        json!({"dir":"s2c","ms":0,"msg":{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"x"}}}),
        json!({"dir":"s2c","ms":0,"msg":{"jsonrpc":"2.0","id":2,"result":{"ok":true}}}),
    ];
    let text: String = rows.iter().map(|r| format!("{r}\n")).collect();
    Recording::parse(Path::new("t.jsonl"), &text).expect("parses")
}

fn serve_lines(host: &[serde_json::Value]) -> (Vec<serde_json::Value>, ServeOutcome) {
    let input: String = host.iter().map(|m| format!("{m}\n")).collect();
    let mut output = Vec::new();
    let opts = ServeOptions {
        rules: Arc::new(RuleSet::builtin().expect("rules")),
        idle: Duration::from_secs(5),
        side: Side::WIRE,
        max_line_bytes: 1 << 20,
    };
    let outcome = serve(
        &recording(),
        &opts,
        std::io::Cursor::new(input.into_bytes()),
        &mut output,
        &mut |_| {},
    )
    .expect("serve");
    let sent = String::from_utf8(output)
        .expect("utf-8")
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    (sent, outcome)
}

#[test]
fn responses_carry_the_hosts_ids_and_notifications_follow_their_trigger() {
    let (sent, outcome) = serve_lines(&[
        json!({"jsonrpc":"2.0","id":"h1","method":"initialize","params":{}}),
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
        json!({"jsonrpc":"2.0","id":{"odd":"but legal?"},"method":"tools/call","params":{"name":"a"}}),
    ]);
    assert!(outcome.differences.is_empty(), "{:?}", outcome.differences);
    assert_eq!(sent.len(), 3);
    assert_eq!(sent[0]["id"], "h1");
    assert_eq!(sent[1]["method"], "notifications/message");
    assert_eq!(sent[2]["id"], json!({"odd":"but legal?"}));
    assert_eq!(sent[2]["result"]["ok"], true);
}

#[test]
fn a_request_out_of_order_or_unknown_is_refused_and_reported() {
    let (sent, outcome) = serve_lines(&[
        json!({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"a"}}),
        json!({"jsonrpc":"2.0","id":8,"method":"resources/list"}),
        json!({"jsonrpc":"2.0","id":9,"method":"ping"}),
    ]);
    assert_eq!(sent[0]["id"], 7);
    assert_eq!(sent[0]["error"]["code"], NOT_IN_RECORDING);
    assert!(
        sent[0]["error"]["message"]
            .as_str()
            .expect("m")
            .contains("out of order")
    );
    assert_eq!(sent[1]["id"], 8);
    assert!(
        sent[1]["error"]["message"]
            .as_str()
            .expect("m")
            .contains("not in the recording")
    );
    assert_eq!(
        sent[2],
        json!({"jsonrpc":"2.0","id":9,"result":{}}),
        "ping is always answered"
    );
    let positions: Vec<&str> = outcome
        .differences
        .iter()
        .map(|d| d.position.as_str())
        .collect();
    assert_eq!(
        positions,
        [
            "host message #1: request tools/call id=7",
            "host message #2: request resources/list id=8",
            "c2s #1 request id=1 initialize",
            "c2s #2 notification notifications/initialized",
            "c2s #3 request id=2 tools/call",
        ],
        "the refusals, then what the host never sent"
    );
}

#[test]
fn different_params_are_a_difference_but_still_answered() {
    let (sent, outcome) = serve_lines(&[
        json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}),
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
        json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"b"}}),
    ]);
    assert_eq!(sent.last().expect("answer")["result"]["ok"], true);
    assert_eq!(outcome.differences.len(), 1);
    assert_eq!(
        outcome.differences[0].position,
        "c2s #3 request id=2 tools/call"
    );
    assert!(
        outcome.differences[0].diff.contains("+  \"name\": \"b\""),
        "{}",
        outcome.differences[0].diff
    );
}
