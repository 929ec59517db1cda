//! PROV-2 and C-PROV-2 over stdio: `--provider claude --provider cursor` serves both families
//! (14 tools) from one run table, one capacity (RUN-8) and one work snapshot; a run belongs to
//! one namespace and the other's tools answer `unknown_run` naming it.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::{Cursor, args, assert_group_gone};
use crate::protocol::resources::read_snapshot;

const INVOCATION: &str = "io.github.computer-mcp/work-invocation";
const HOST: &str = "0b5f2f3e-8a4d-4c0e-9b1a-2f6d7c8e9a01";

/// An adapter serving `--provider claude --provider cursor`.
fn both() -> Cursor {
    Cursor::serving(&["claude", "cursor"], "default", |a| a)
}

/// `<ns>.run.start` with a work-invocation binding; returns the run id.
fn start_bound(h: &mut Cursor, tool: &str, args: Value) -> String {
    let r = h.s.call_tool(tool, args, Some(json!({ INVOCATION: HOST })));
    let (v, is_error) = super::split(&r);
    assert!(!is_error, "{tool}: {v}");
    v["run_id"].as_str().expect("run_id").to_owned()
}

/// Polls `<ns>.run.result` until the run settled.
fn settled_in(h: &mut Cursor, ns: &str, run_id: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (r, is_error) = h.tool(&format!("{ns}.run.result"), json!({"run_id": run_id}));
        assert!(!is_error, "{r}");
        if r["completed"] == true {
            return r;
        }
        assert!(Instant::now() < deadline, "{run_id} did not settle: {r}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn both_families_serve_fourteen_tools() {
    // PROV-2.
    let mut h = both();
    let r = h.s.call("tools/list", None);
    let mut names: Vec<String> = r["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().expect("name").to_owned())
        .collect();
    names.sort();
    let mut expected = Vec::new();
    for ns in ["claude", "cursor"] {
        for suffix in [
            "", ".start", ".result", ".events", ".cancel", ".list", ".release",
        ] {
            expected.push(format!("{ns}.run{suffix}"));
        }
    }
    expected.sort();
    assert_eq!(names, expected);
}

#[test]
fn a_run_of_one_namespace_is_unknown_to_the_others_tools() {
    // C-PROV-2.
    let mut h = both();
    let (r, _) = h.run(json!({"prompt": "hello"}));
    assert_eq!(r["state"], "succeeded", "{r}");
    let run_id = r["run_id"].as_str().expect("run_id").to_owned();
    for tool in [
        "claude.run.result",
        "claude.run.events",
        "claude.run.cancel",
        "claude.run.release",
    ] {
        let (e, is_error) = h.tool(tool, json!({"run_id": run_id}));
        assert!(is_error, "{tool}: {e}");
        assert_eq!(e["error"]["code"], "unknown_run", "{tool}: {e}");
        let msg = e["error"]["message"].as_str().expect("message");
        assert!(msg.contains("cursor.run"), "names the namespace: {msg}");
    }
    let (claude_list, _) = h.tool("claude.run.list", json!({}));
    assert_eq!(claude_list["runs"], json!([]), "{claude_list}");
    let (cursor_list, _) = h.tool("cursor.run.list", json!({}));
    assert_eq!(cursor_list["runs"].as_array().map(Vec::len), Some(1));
    // And the other way round.
    let id = h.s.request(
        "tools/call",
        Some(json!({"name": "claude.run", "arguments": crate::runs::args("success", json!({}))})),
    );
    let resp = h.s.response(&id);
    let (c, _) = super::split(&resp["result"]);
    assert_eq!(c["state"], "succeeded", "{c}");
    let claude_id = c["run_id"].as_str().expect("run_id");
    let (e, is_error) = h.tool("cursor.run.result", json!({"run_id": claude_id}));
    assert!(is_error);
    assert_eq!(e["error"]["code"], "unknown_run");
    assert!(
        e["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("claude.run")),
        "{e}"
    );
}

#[test]
fn one_capacity_and_one_work_snapshot_hold_both_kinds() {
    // PROV-2, RUN-8, META-WORK-4.
    let mut h = both();
    let mut claude_ids = Vec::new();
    let mut cursor_ids = Vec::new();
    for _ in 0..2 {
        claude_ids.push(start_bound(
            &mut h,
            "claude.run.start",
            crate::runs::args("hang-before-final", json!({})),
        ));
        cursor_ids.push(start_bound(
            &mut h,
            "cursor.run.start",
            args("hang-midturn", json!({})),
        ));
    }
    for tool in ["claude.run.start", "cursor.run.start"] {
        let (e, is_error) = h.tool(tool, json!({"prompt": "hello"}));
        assert!(is_error, "{tool}: {e}");
        assert_eq!(e["error"]["code"], "capacity_exhausted", "{tool}: {e}");
    }
    let snap = read_snapshot(&mut h.s);
    let work = snap["work"].as_array().expect("work");
    let kind_of = |id: &str| {
        work.iter()
            .find(|e| e["run_id"] == id)
            .map(|e| (e["kind"].clone(), e["acquired_by"].clone()))
            .unwrap_or_else(|| panic!("{id} not in {snap}"))
    };
    for id in &claude_ids {
        assert_eq!(kind_of(id), (json!("claude.run"), json!(HOST)));
    }
    for id in &cursor_ids {
        assert_eq!(kind_of(id), (json!("cursor.run"), json!(HOST)));
    }
    assert_eq!(work.len(), 4);
    for id in &claude_ids {
        h.tool("claude.run.cancel", json!({"run_id": id}));
    }
    for id in &cursor_ids {
        h.tool("cursor.run.cancel", json!({"run_id": id}));
    }
    for id in &claude_ids {
        assert_eq!(settled_in(&mut h, "claude", id)["state"], "cancelled");
    }
    for id in &cursor_ids {
        assert_eq!(settled_in(&mut h, "cursor", id)["state"], "cancelled");
    }
    for s in h.log.agent_starts() {
        assert_group_gone(u32::try_from(s["pgid"].as_u64().expect("pgid")).expect("u32"));
    }
    // A slot is free again, for either family.
    let (r, is_error) = h.run(json!({"prompt": "hello"}));
    assert!(!is_error, "{r}");
}

#[test]
fn underscore_tool_names_serve_cursor_run_too() {
    // TOOL-1, PROV-2: `cursor_run…` with --tool-names underscore.
    let mut h = Cursor::with("default", |a| a.args(["--tool-names", "underscore"]));
    let r = h.s.call("tools/list", None);
    let names: Vec<&str> = r["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(
        names.contains(&"cursor_run") && names.contains(&"cursor_run_events"),
        "{names:?}"
    );
    assert!(names.iter().all(|n| !n.contains('.')), "{names:?}");
    let r =
        h.s.call_tool("cursor_run", json!({"prompt": "hello"}), None);
    let (v, is_error) = super::split(&r);
    assert!(!is_error, "{v}");
    assert_eq!(v["state"], "succeeded", "{v}");
}
