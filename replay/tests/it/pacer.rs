//! The player's extension point as the library offers it (`mcp_replay::pacer`): a caller's
//! pacer is asked to wait before each client message with the recording's rows before it, is
//! told just before each message goes, and adds its side rows to both transcripts; the options
//! start the server with exactly the environment given.

use std::ffi::OsString;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use mcp_replay::pacer::Pacer;
use mcp_replay::player::{self, Numbering, RunOptions, Side, Timing};
use mcp_replay::recording::{Recording, Row};
use mcp_replay::rules::RuleSet;

/// Answers each line with a result naming its ordinal and what `GREETING` and `HOME` are.
const SERVER: &str = r#"n=0; while IFS= read -r l; do n=$((n+1)); printf '{"jsonrpc":"2.0","id":%s,"result":{"greeting":"%s","home":"%s"}}\n' "$n" "$GREETING" "$HOME"; done"#;

const RECORDING: &str = r#"{"dir":"meta","ms":0}
{"dir":"c2s","ms":1,"msg":{"jsonrpc":"2.0","id":1,"method":"ping"}}
{"dir":"s2c","ms":2,"msg":{"jsonrpc":"2.0","id":1,"result":{"greeting":"hi","home":""}}}
{"dir":"n2a","ms":3,"msg":{"type":"system"}}
{"dir":"c2s","ms":4,"msg":{"jsonrpc":"2.0","id":2,"method":"ping"}}
{"dir":"s2c","ms":5,"msg":{"jsonrpc":"2.0","id":2,"result":{"greeting":"hi","home":""}}}
"#;

/// Remembers what the player asked.
#[derive(Default)]
struct Probe {
    /// For each wait: how many rows came before, and how many of them were `n2a`.
    waits: Vec<(usize, usize)>,
    /// The ids of the client messages it was told about.
    sends: Vec<serde_json::Value>,
}

impl Pacer for Probe {
    fn wait(&mut self, before: &[Row], _bound: Duration) -> Vec<String> {
        let native = before.iter().filter(|r| r.dir == "n2a").count();
        self.waits.push((before.len(), native));
        if native > 0 {
            vec!["a native row the probe never saw".into()]
        } else {
            Vec::new()
        }
    }

    fn before_send(&mut self, row: &Row) {
        self.sends
            .push(row.msg().map(|m| m["id"].clone()).unwrap_or_default());
    }

    fn side_rows(&mut self, recorded: &[Row]) -> (Vec<Row>, Vec<Row>) {
        let native: Vec<Row> = recorded
            .iter()
            .filter(|r| r.dir == "n2a")
            .cloned()
            .collect();
        (native, Vec::new())
    }
}

#[test]
fn a_pacer_waits_prepares_and_adds_side_rows_and_the_environment_is_exactly_the_given() {
    let rec = Recording::parse(Path::new("pacer.jsonl"), RECORDING).expect("parse");
    let opts = RunOptions {
        command: vec!["/bin/sh".into(), "-c".into(), SERVER.into()],
        rules: Arc::new(RuleSet::builtin().expect("rules")),
        wait: Duration::from_secs(20),
        timing: Timing::Causal,
        side: Side::WIRE,
        max_line_bytes: 1 << 20,
        env: Some(vec![(OsString::from("GREETING"), OsString::from("hi"))]),
        exit_grace: Duration::from_secs(5),
        numbering: Numbering::WholeSide,
    };
    let mut probe = Probe::default();
    let out = player::run_with(&rec, &opts, &mut probe).expect("run");

    // Before message 1 nothing; before message 2 its answer and the native row; at the end all.
    assert_eq!(probe.waits, [(0, 0), (3, 1), (5, 1)]);
    assert_eq!(probe.sends, [serde_json::json!(1), serde_json::json!(2)]);
    assert!(
        out.notes
            .iter()
            .any(|n| n == "a native row the probe never saw"),
        "the pacer's notes are reported: {:?}",
        out.notes
    );
    // The server saw GREETING and no HOME: exactly the environment given.
    let positions: Vec<&str> = out
        .differences
        .iter()
        .map(|d| d.position.as_str())
        .collect();
    assert_eq!(
        positions,
        ["n2a (native rows the adapter read)"],
        "only the side rows differ: {:?}",
        out.differences
    );
    let expected = out.expected.to_string();
    assert!(
        expected.contains("== n2a (native rows the adapter read)\nmsg {\"type\":\"system\"}\n"),
        "{expected}"
    );
    assert!(
        out.observed
            .to_string()
            .ends_with("== n2a (native rows the adapter read)\n"),
        "the observed side shows the pacer's (empty) rows"
    );
}
