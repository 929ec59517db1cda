//! PROV-2 and C-PROV-2 over stdio: `--provider claude --provider cursor` serves both families
//! (14 tools) from one run table, one capacity (RUN-8) and one work snapshot; a run belongs to
//! one namespace and the other's tools answer `unknown_run` naming it.

use std::time::Instant;

use serde_json::{Value, json};

use super::{Cursor, args, assert_group_gone};
use crate::protocol::resources::read_snapshot;
use crate::support::family::{POLL, RUN_BOUND};

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
        assert_eq!(h.settled_in("claude", id)["state"], "cancelled");
    }
    for id in &cursor_ids {
        assert_eq!(h.settled_in("cursor", id)["state"], "cancelled");
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

// C-TOOL-6 across both families: every text the server sends names tools in the active
// projection. The unit test `catalogue::tests::no_text_names_a_tool_outside_the_projection` and
// `protocol::tools::underscore_projection_renames_and_keeps_everything_else` cover the claude
// catalogue only; these collect everything an underscore adapter serving both families writes.

const CONTINUATION: &str = "io.github.computer-mcp/continuation";
/// A well-formed run id no run has (C-RUN-1).
const NO_SUCH_RUN: &str = "run_00000000000000000000000000000000";

/// An initialized `--provider claude --provider cursor --cursor <fake> --tool-names underscore`
/// adapter (fake-claude as `claude` on PATH), and its initialize response.
fn underscore_both(log: &crate::support::FakeCursorLog) -> (crate::support::Session, Value) {
    let mut s = crate::support::Adapter::new()
        .fake_claude()
        .args(["--provider", "claude", "--provider", "cursor", "--cursor"])
        .arg(crate::support::fake_cursor_bin())
        .args(["--tool-names", "underscore"])
        .env("FAKE_CURSOR_LOG", log.path())
        .env("FAKE_CURSOR_SCENARIO", "default")
        .env("FAKE_CURSOR_MAX_LIFETIME_S", super::FAKE_LIFETIME_S)
        .spawn();
    let init = s.init();
    (s, init)
}

/// The arguments of a run of `ns` playing its fake's `scenario` (`success` / `default` for a
/// plain run).
fn scenario_args(ns: &str, scenario: &str, extra: Value) -> Value {
    if ns == "claude" {
        crate::runs::args(scenario, extra)
    } else {
        args(scenario, extra)
    }
}

/// Every message an adapter sent, as the test received it.
#[derive(Default)]
struct Sent(Vec<Value>);

impl Sent {
    /// Sends a request and keeps its response (returned too).
    fn call(&mut self, s: &mut crate::support::Session, method: &str, params: Value) -> Value {
        let r = s.call(method, Some(params));
        self.0.push(r.clone());
        r
    }

    /// `tools/call` of `tool`; returns `(structuredContent.result, isError)`.
    fn tool(&mut self, s: &mut crate::support::Session, tool: &str, args: Value) -> (Value, bool) {
        let r = self.call(s, "tools/call", json!({"name": tool, "arguments": args}));
        let result = r
            .get("result")
            .unwrap_or_else(|| panic!("{tool}: a protocol error: {r}"));
        super::split(result)
    }

    /// Polls `<ns>_run_result` until the run settled.
    fn settled(&mut self, s: &mut crate::support::Session, ns: &str, run_id: &str) -> Value {
        let deadline = Instant::now() + RUN_BOUND;
        loop {
            let (r, _) = self.tool(s, &format!("{ns}_run_result"), json!({"run_id": run_id}));
            if r["completed"] == true {
                return r;
            }
            assert!(Instant::now() < deadline, "{run_id} did not settle: {r}");
            std::thread::sleep(POLL);
        }
    }

    /// Closes the adapter's stdin and keeps the notifications seen while waiting and everything
    /// it still writes until it exits.
    fn finish(&mut self, s: &mut crate::support::Session) {
        self.0.append(&mut s.notifications);
        s.close_stdin();
        while let Some(v) = s.recv(crate::support::TIMEOUT) {
            self.0.push(v);
        }
    }
}

/// Removes the two values C-TOOL-6 keeps dotted, both identity rather than names: a `_meta`
/// continuation's `kind` (META-CONT-1) and a META-WORK-5 refusal's `data.unbound[].kind`; plus
/// the work snapshot's `work[].kind` (META-WORK-3), the same identity (the contract's "kind"
/// that `_meta` keeps), inside a resources/read text. Returns how many were removed.
fn strip_identity(msg: &mut Value) -> usize {
    fn continuation_kinds(v: &mut Value) -> usize {
        let mut n = 0;
        match v {
            Value::Object(m) => {
                if let Some(c) = m
                    .get_mut("_meta")
                    .and_then(|meta| meta.get_mut(CONTINUATION))
                    .and_then(Value::as_object_mut)
                {
                    n += usize::from(c.remove("kind").is_some());
                }
                for x in m.values_mut() {
                    n += continuation_kinds(x);
                }
            }
            Value::Array(a) => {
                for x in a {
                    n += continuation_kinds(x);
                }
            }
            _ => {}
        }
        n
    }
    fn kinds_of(entries: Option<&mut Value>) -> usize {
        entries.and_then(Value::as_array_mut).map_or(0, |a| {
            a.iter_mut()
                .filter_map(Value::as_object_mut)
                .map(|e| usize::from(e.remove("kind").is_some()))
                .sum()
        })
    }
    let mut n = continuation_kinds(msg);
    n += kinds_of(msg.pointer_mut("/error/data/unbound"));
    if let Some(contents) = msg
        .pointer_mut("/result/contents")
        .and_then(Value::as_array_mut)
    {
        for c in contents {
            let Some(text) = c.get("text").and_then(Value::as_str) else {
                continue;
            };
            let Ok(mut snapshot) = serde_json::from_str::<Value>(text) else {
                continue;
            };
            let k = kinds_of(snapshot.get_mut("work"));
            if k > 0 {
                n += k;
                c["text"] = snapshot.to_string().into();
            }
        }
    }
    n
}

/// Every `claude.run` / `cursor.run` (the regex `(claude|cursor)\.run`) in `text`, with context.
fn dotted_names(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for needle in ["claude.run", "cursor.run"] {
        for (at, _) in text.match_indices(needle) {
            let from = text.floor_char_boundary(at.saturating_sub(60));
            let to = text.ceil_char_boundary((at + needle.len() + 60).min(text.len()));
            found.push(text[from..to].to_owned());
        }
    }
    found
}

/// The leaks among `sent` once the identity values are stripped, and how many were stripped.
fn leaks(sent: &[Value]) -> (Vec<String>, usize) {
    let mut stripped = 0;
    let mut found = Vec::new();
    for msg in sent {
        let mut m = msg.clone();
        stripped += strip_identity(&mut m);
        found.extend(dotted_names(&m.to_string()));
    }
    (found, stripped)
}

#[test]
fn every_text_an_underscore_server_of_both_families_sends_uses_the_projection() {
    // C-TOOL-6, TOOL-1, PROV-2: instructions, serverInfo, tools/list, resources, snapshot and
    // refusal, tool results and errors of both families, progress (heartbeats too), events.
    let log = crate::support::FakeCursorLog::new();
    let (mut s, init) = underscore_both(&log);
    let mut sent = Sent(vec![init.clone()]);
    let instructions = init["result"]["instructions"]
        .as_str()
        .expect("instructions");
    for name in ["claude_run_result", "cursor_run_result"] {
        assert!(instructions.contains(name), "{name}: {instructions}");
    }
    let tools = sent.call(&mut s, "tools/list", json!({}));
    assert_eq!(tools["result"]["tools"].as_array().map(Vec::len), Some(14));
    sent.call(&mut s, "resources/list", json!({}));
    sent.call(&mut s, "resources/templates/list", json!({}));
    let work = json!({"uri": "computer-mcp://runtime/work/v1"});
    sent.call(&mut s, "resources/read", work.clone());

    // Bound runs of both kinds: every role's success result, and a snapshot holding both.
    let mut bound = Vec::new();
    for ns in ["claude", "cursor"] {
        let r = sent.call(
            &mut s,
            "tools/call",
            json!({"name": format!("{ns}_run_start"),
                   "arguments": scenario_args(ns, if ns == "claude" { "success" } else { "default" }, json!({})),
                   "_meta": {INVOCATION: HOST}}),
        );
        let (v, is_error) = super::split(&r["result"]);
        assert!(!is_error, "{ns}: {v}");
        let id = v["run_id"].as_str().expect("run_id").to_owned();
        sent.settled(&mut s, ns, &id);
        sent.tool(&mut s, &format!("{ns}_run_events"), json!({"run_id": id}));
        sent.tool(&mut s, &format!("{ns}_run_list"), json!({}));
        sent.tool(&mut s, &format!("{ns}_run_cancel"), json!({"run_id": id}));
        bound.push((ns, id));
    }
    let snap = sent.call(&mut s, "resources/read", work.clone());
    assert!(snap.get("result").is_some(), "{snap}");
    for (ns, id) in &bound {
        let (v, is_error) = sent.tool(&mut s, &format!("{ns}_run_release"), json!({"run_id": id}));
        assert!(!is_error, "{ns}: {v}");
    }

    // Unbound runs with a progress token: events' progress, then heartbeats of a silent run.
    let mut unbound = Vec::new();
    for ns in ["claude", "cursor"] {
        for (scenario, timeout_s) in [
            (if ns == "claude" { "success" } else { "default" }, 60),
            (
                if ns == "claude" {
                    "hang-before-final"
                } else {
                    "hang-midturn"
                },
                3,
            ),
        ] {
            let r = sent.call(
                &mut s,
                "tools/call",
                json!({"name": format!("{ns}_run"),
                       "arguments": scenario_args(ns, scenario, json!({"timeout_s": timeout_s})),
                       "_meta": {"progressToken": format!("{ns}-{scenario}")}}),
            );
            let (v, _) = super::split(&r["result"]);
            assert!(v["completed"] == true, "{ns} {scenario}: {v}");
            unbound.push((ns, v["run_id"].as_str().expect("run_id").to_owned()));
        }
    }
    let heartbeats = s
        .notifications
        .iter()
        .filter(|n| {
            n["params"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("still running"))
        })
        .count();
    assert!(
        heartbeats >= 2,
        "no heartbeats collected: {:?}",
        s.notifications
    );
    let refusal = sent.call(&mut s, "resources/read", work);
    assert_eq!(refusal["error"]["code"], -32000, "{refusal}");

    // Errors of both families: unknown run (also the other family's), bad and missing arguments.
    for (ns, other) in [("claude", "cursor"), ("cursor", "claude")] {
        let foreign = unbound
            .iter()
            .find(|(n, _)| *n == other)
            .map(|(_, id)| id.clone())
            .expect("a run of the other family");
        for run_id in [NO_SUCH_RUN.to_owned(), foreign] {
            for role in ["result", "events", "cancel", "release"] {
                let (e, is_error) = sent.tool(
                    &mut s,
                    &format!("{ns}_run_{role}"),
                    json!({"run_id": run_id}),
                );
                assert!(is_error, "{ns} {role}: {e}");
                assert_eq!(e["error"]["code"], "unknown_run", "{e}");
            }
        }
        for (tool, bad) in [
            (
                format!("{ns}_run"),
                json!({"prompt": "x", "timeout_s": "soon"}),
            ),
            (format!("{ns}_run"), json!({"timeout_s": 5})),
            (format!("{ns}_run_start"), json!({"prompt": "x", "nope": 1})),
            (format!("{ns}_run_result"), json!({})),
            (format!("{ns}_run_list"), json!({"nope": true})),
        ] {
            let (e, is_error) = sent.tool(&mut s, &tool, bad);
            assert!(is_error, "{tool}: {e}");
        }
    }
    // Every parameter of every tool with a value of the wrong type (no parameter is an array).
    for t in tools["result"]["tools"].as_array().expect("tools") {
        let name = t["name"].as_str().expect("name");
        let props = t["inputSchema"]["properties"]
            .as_object()
            .expect("properties");
        for p in props.keys() {
            let mut a = json!({"prompt": "x", "run_id": NO_SUCH_RUN});
            a.as_object_mut()
                .expect("object")
                .retain(|k, _| props.contains_key(k));
            a[p] = json!([]);
            let (e, is_error) = sent.tool(&mut s, name, a);
            assert!(is_error, "{name} {p}: {e}");
        }
    }
    sent.call(
        &mut s,
        "tools/call",
        json!({"name": "nope", "arguments": {}}),
    );
    sent.finish(&mut s);

    let (found, stripped) = leaks(&sent.0);
    eprintln!(
        "{} messages, {heartbeats} heartbeats, {stripped} identity values set aside",
        sent.0.len()
    );
    assert!(
        found.is_empty(),
        "C-TOOL-6: dotted tool names in what the server sent:\n{}",
        found.join("\n")
    );
    // The exceptions were exercised (and kept dotted): 8 continuation kinds in tools/list, 2
    // snapshot entries, 4 unbound runs in the refusal.
    assert!(stripped >= 14, "only {stripped} identity values");
}

#[test]
fn a_cursor_only_underscore_server_names_cursor_run_tools_in_its_texts() {
    // C-TOOL-6, TOOL-1: the instructions and catalogue of `--provider cursor` alone.
    let log = crate::support::FakeCursorLog::new();
    let mut s = crate::support::Adapter::new()
        .args(["--provider", "cursor", "--cursor"])
        .arg(crate::support::fake_cursor_bin())
        .args(["--tool-names", "underscore"])
        .env("FAKE_CURSOR_LOG", log.path())
        .spawn();
    let init = s.init();
    let instructions = init["result"]["instructions"]
        .as_str()
        .expect("instructions");
    assert!(instructions.contains("cursor_run_result"), "{instructions}");
    let mut sent = Sent(vec![init.clone()]);
    sent.call(&mut s, "tools/list", json!({}));
    sent.call(&mut s, "resources/list", json!({}));
    sent.finish(&mut s);
    let (found, stripped) = leaks(&sent.0);
    assert!(found.is_empty(), "C-TOOL-6:\n{}", found.join("\n"));
    assert_eq!(stripped, 4, "the four continuation kinds of cursor_run_*");
}
