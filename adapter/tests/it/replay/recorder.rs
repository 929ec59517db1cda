//! `claude-mcp-adapter --record FILE` (`adapter/src/record.rs`): every MCP message in both
//! directions and every native stdout line, as `{"dir","ms","msg"|"raw"}` rows, plus the native
//! exit row the replay ends runs with (REC-1).

use std::ffi::OsString;
use std::time::Duration;

use serde_json::{Value, json};

use super::recording::{Body, Recording};
use crate::support::client::{Client, base_env, structured};
use crate::support::fake_claude_bin;

/// A recorded session holds exactly what crossed the wire: the client's messages (a line that
/// is not JSON as `raw`), every message the adapter wrote in the order written, every native
/// line (the malformed final as `raw`) and the exit.
#[test]
fn record_writes_every_mcp_message_and_native_line_in_order() {
    let dir = tempfile::tempdir().expect("temp dir");
    let record = dir.path().join("session.jsonl");
    let mut env = base_env();
    env.push(("HOME".into(), dir.path().into()));
    env.push(("FAKE_CLAUDE_SCENARIO".into(), "malformed-final".into()));
    let args: Vec<OsString> = vec!["--claude".into(), fake_claude_bin().into()];
    let mut client = Client::spawn(&args, &env, Some(&record));
    client.init();
    client.send_line(b"this is not json");
    let res = client.tool(
        "claude.run",
        json!({"prompt": "say hi", "cwd": "/tmp", "timeout_s": 30}),
        None,
        Duration::from_secs(60),
    );
    let events_total = structured(&res)["events_total"]
        .as_u64()
        .expect("events_total");
    client.close_stdin();
    assert!(
        client.wait_exit(Duration::from_secs(30)).is_some(),
        "adapter exits at EOF"
    );

    let rec = Recording::load(&record).expect("the recording parses");
    for r in &rec.rows {
        let o = r.value.as_object().expect("a row is an object");
        assert_eq!(o.len(), 3, "a row is dir, ms and one payload: {}", r.value);
    }
    let ms: Vec<u64> = rec.rows.iter().map(|r| r.ms).collect();
    assert!(
        ms.windows(2).all(|w| w[0] <= w[1]),
        "ms is monotonic: {ms:?}"
    );

    let c2s: Vec<&Body> = rec
        .rows
        .iter()
        .filter(|r| r.dir == "c2s")
        .map(|r| &r.body)
        .collect();
    let methods: Vec<Value> = c2s
        .iter()
        .map(|b| match b {
            Body::Msg(m) => m["method"].clone(),
            Body::Raw(t) => json!(format!("raw:{t}")),
            other => json!(format!("{other:?}")),
        })
        .collect();
    assert_eq!(
        methods,
        vec![
            json!("initialize"),
            json!("notifications/initialized"),
            json!("raw:this is not json"),
            json!("tools/call"),
        ]
    );

    let s2c: Vec<Value> = rec
        .rows
        .iter()
        .filter(|r| r.dir == "s2c")
        .filter_map(|r| r.msg().cloned())
        .collect();
    assert_eq!(
        s2c, client.received,
        "the s2c rows are exactly the messages written to stdout, in order"
    );

    let n2a: Vec<&Body> = rec
        .rows
        .iter()
        .filter(|r| r.dir == "n2a")
        .map(|r| &r.body)
        .collect();
    let lines = n2a
        .iter()
        .filter(|b| matches!(b, Body::Msg(_) | Body::Raw(_)))
        .count();
    assert_eq!(lines as u64, events_total, "one n2a row per native line");
    assert!(
        n2a.iter()
            .any(|b| matches!(b, Body::Raw(t) if t.starts_with("{\"duration_api_ms\""))),
        "the malformed final is kept as a raw row: {n2a:?}"
    );
    assert_eq!(
        n2a.last(),
        Some(&&Body::Exit {
            code: Some(0),
            signal: None
        }),
        "the native run ends with its exit row"
    );
}
