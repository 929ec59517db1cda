//! Fidelity (FAKE-ACP-3): the shapes the fake emits against the real agents' transcripts
//! (`tests/fixtures/transcripts/`), the ACP schema (`tests/fixtures/schema-v1-stable.json`, a copy
//! of `shared/reference/acp/`) and the shapes the Cursor spike documented
//! (`shared/seeds/cursor-acp-spike-recordings.txt`, item 2). Key sets are compared, not values.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use crate::{Agent, answer_with_kind, crate_dir, initialize_params, updates};

type Keys = BTreeSet<String>;

fn keys(v: &Value) -> Keys {
    v.as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default()
}

fn schema() -> Value {
    let text = std::fs::read_to_string(crate_dir().join("tests/fixtures/schema-v1-stable.json"))
        .expect("schema");
    serde_json::from_str(&text).expect("schema json")
}

/// Per `sessionUpdate` variant: (allowed properties, required properties) from the schema.
fn schema_variants(schema: &Value) -> BTreeMap<String, (Keys, Keys)> {
    let defs = &schema["$defs"];
    let mut out = BTreeMap::new();
    for v in defs["SessionUpdate"]["oneOf"].as_array().expect("oneOf") {
        let name = v["properties"]["sessionUpdate"]["const"]
            .as_str()
            .expect("const")
            .to_owned();
        let target = v["allOf"][0]["$ref"]
            .as_str()
            .expect("ref")
            .trim_start_matches("#/$defs/");
        let def = &defs[target];
        let mut allowed = keys(&def["properties"]);
        allowed.insert("sessionUpdate".into());
        let required = def["required"]
            .as_array()
            .map(|r| {
                r.iter()
                    .filter_map(|k| k.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        out.insert(name, (allowed, required));
    }
    out
}

fn schema_props(schema: &Value, def: &str) -> Keys {
    keys(&schema["$defs"][def]["properties"])
}

/// What the real transcripts show: update keys per variant, request params keys per method,
/// result keys per answered client method.
#[derive(Default)]
struct Seen {
    updates: BTreeMap<String, Keys>,
    requests: BTreeMap<String, Keys>,
    results: BTreeMap<String, Keys>,
}

impl Seen {
    fn add(&mut self, msgs: &[(String, Value)]) {
        let mut asked: BTreeMap<String, String> = BTreeMap::new();
        for (dir, m) in msgs {
            if dir == "c2a" {
                if let (Some(method), Some(id)) = (m["method"].as_str(), m.get("id")) {
                    asked.insert(id.to_string(), method.to_owned());
                }
                continue;
            }
            if m["method"] == "session/update" {
                let u = &m["params"]["update"];
                let name = u["sessionUpdate"].as_str().unwrap_or_default().to_owned();
                self.updates.entry(name).or_default().extend(keys(u));
            } else if let (Some(method), Some(_)) = (m["method"].as_str(), m.get("id")) {
                self.requests
                    .entry(method.to_owned())
                    .or_default()
                    .extend(keys(&m["params"]));
            } else if let Some(method) = m.get("id").and_then(|id| asked.get(&id.to_string()))
                && m.get("result").is_some()
            {
                self.results
                    .entry(method.clone())
                    .or_default()
                    .extend(keys(&m["result"]));
            }
        }
    }
}

fn real() -> Seen {
    let mut seen = Seen::default();
    let dir = crate_dir().join("tests/fixtures/transcripts");
    for entry in std::fs::read_dir(dir).expect("dir") {
        let text = std::fs::read_to_string(entry.expect("e").path()).expect("read");
        let rows: Vec<(String, Value)> = text
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|r| r["msg"].is_object())
            .map(|r| {
                (
                    r["dir"].as_str().unwrap_or_default().to_owned(),
                    r["msg"].clone(),
                )
            })
            .collect();
        seen.add(&rows);
    }
    seen
}

/// Everything the fake says in a handshake, a mode switch and the turns of `scenarios`.
fn fake(scenarios: &[&str]) -> (Seen, Vec<Value>) {
    let mut all = Vec::new();
    let mut rows = Vec::new();
    let mut agent = Agent::start(&[]);
    let id = agent.request("initialize", initialize_params());
    rows.push(("c2a".to_owned(), json!({"id": id, "method": "initialize"})));
    let id2 = agent.request(
        "session/new",
        json!({"cwd": "/workspace", "mcpServers": []}),
    );
    rows.push((
        "c2a".to_owned(),
        json!({"id": id2, "method": "session/new"}),
    ));
    let mut msgs = agent.until_answer(&id);
    msgs.extend(agent.until_answer(&id2));
    let sid = msgs.last().expect("a")["result"]["sessionId"]
        .as_str()
        .expect("sid")
        .to_owned();
    let id3 = agent.request(
        "session/set_mode",
        json!({"sessionId": sid, "modeId": "plan"}),
    );
    rows.push((
        "c2a".to_owned(),
        json!({"id": id3, "method": "session/set_mode"}),
    ));
    msgs.extend(agent.until_answer(&id3));
    for s in scenarios {
        let turn = agent.turn(
            &sid,
            &format!("scenario: {s}"),
            answer_with_kind("reject_once"),
        );
        let prompt_id = turn.last().expect("answer")["id"].clone();
        rows.push((
            "c2a".to_owned(),
            json!({"id": prompt_id, "method": "session/prompt"}),
        ));
        msgs.extend(turn);
    }
    rows.extend(msgs.iter().map(|m| ("a2c".to_owned(), m.clone())));
    all.extend(msgs);
    let mut seen = Seen::default();
    seen.add(&rows);
    (seen, all)
}

const TURNS: &[&str] = &[
    "default",
    "tools",
    "permission-shell",
    "plan-mode",
    "fetch-permission",
    "denied-read",
    "cursor-extensions",
    "ask-question-permission",
    "toolcallid-newline",
    "unknown-update",
    "fs-terminal-requests",
    // The run-lifecycle scenarios of mcp-conformance's Cursor family (slow-chunks sends the
    // same chunks as many-chunks, only slower).
    "many-chunks",
    "oversized-text",
    "oversized-read",
    "stderr-noise",
];

/// Update variants Cursor sends outside the schema (spike item 5) and the scenario's stand-in
/// for a future variant.
const NON_STANDARD: &[&str] = &[
    "subagent_spawned",
    "subagent_state_update",
    "future_variant_from_2027",
];

#[test]
fn session_updates_have_schema_and_real_agent_key_sets() {
    let schema = schema();
    let variants = schema_variants(&schema);
    let real = real();
    let (fake, _) = fake(TURNS);
    for (variant, fake_keys) in &fake.updates {
        if NON_STANDARD.contains(&variant.as_str()) {
            continue;
        }
        let (allowed, required) = variants.get(variant).unwrap_or_else(|| {
            panic!("{variant} is neither in the schema nor a known Cursor extra")
        });
        let mut allowed = allowed.clone();
        allowed.extend(real.updates.get(variant).cloned().unwrap_or_default());
        let extra: Vec<_> = fake_keys.difference(&allowed).collect();
        assert!(
            extra.is_empty(),
            "{variant}: keys {extra:?} neither in the schema nor in a real transcript"
        );
        let missing: Vec<_> = required.difference(fake_keys).collect();
        assert!(
            missing.is_empty(),
            "{variant}: required keys {missing:?} never sent"
        );
    }
    // The variants the spike saw from Cursor are all produced.
    for v in [
        "agent_message_chunk",
        "agent_thought_chunk",
        "tool_call",
        "tool_call_update",
        "available_commands_update",
        "session_info_update",
        "current_mode_update",
    ] {
        assert!(fake.updates.contains_key(v), "{v} never emitted");
    }
    // Never seen from Cursor (spike item 7), never emitted by the fake.
    assert!(!fake.updates.contains_key("usage_update"));
}

#[test]
fn requests_and_results_have_the_real_agents_shapes() {
    let schema = schema();
    let real = real();
    let (fake, _) = fake(TURNS);
    // Agent → client requests that real agents sent: same params keys.
    for method in [
        "session/request_permission",
        "fs/read_text_file",
        "fs/write_text_file",
        "terminal/create",
    ] {
        assert_eq!(
            fake.requests.get(method),
            real.requests.get(method),
            "{method} params"
        );
    }
    // Results of client methods: within the schema (plus the legacy `models` real agents send).
    let mut new_keys = schema_props(&schema, "NewSessionResponse");
    new_keys.extend(real.results["session/new"].clone());
    assert!(real.results["session/new"].contains("models"));
    assert!(fake.results["session/new"].is_subset(&new_keys));
    assert!(fake.results["initialize"].is_subset(&schema_props(&schema, "InitializeResponse")));
    assert_eq!(
        fake.results["session/prompt"],
        real.results["session/prompt"]
    );
    assert_eq!(
        fake.results["session/set_mode"],
        real.results["session/set_mode"]
    );
}

#[test]
fn tool_results_have_the_shapes_the_cursor_spike_documented() {
    let (_, msgs) = fake(TURNS);
    let ups = updates(&msgs);
    let mut kinds: BTreeMap<String, String> = BTreeMap::new();
    for u in &ups {
        if u["sessionUpdate"] == "tool_call" {
            kinds.insert(
                u["toolCallId"].as_str().expect("id").to_owned(),
                u["kind"].as_str().expect("kind").to_owned(),
            );
        }
    }
    let mut checked = BTreeSet::new();
    for u in &ups {
        let Some(raw) = u.get("rawOutput") else {
            continue;
        };
        let kind = kinds
            .get(u["toolCallId"].as_str().expect("id"))
            .expect("a tool_call before its update");
        let want: &[&str] = match kind.as_str() {
            "execute" => &["exitCode", "stderr", "stdout"],
            "search" => &["totalMatches", "truncated"],
            "read" | "fetch" => &["content"],
            other => panic!("rawOutput on a {other} call"),
        };
        assert_eq!(
            keys(raw),
            want.iter().map(|s| (*s).to_owned()).collect::<Keys>(),
            "{kind}"
        );
        checked.insert(kind.clone());
    }
    assert!(checked.len() >= 3, "{checked:?}");
    for u in &ups {
        for c in u["content"].as_array().into_iter().flatten() {
            if c["type"] == "diff" && c["oldText"] == "-- /dev/null" {
                assert!(c["newText"].as_str().expect("text").starts_with("++ b/"));
            }
        }
        // Edit and search calls start with an empty rawInput.
        if u["sessionUpdate"] == "tool_call" && (u["kind"] == "edit" || u["kind"] == "search") {
            assert_eq!(u["rawInput"], json!({}), "{u}");
        }
        if u["sessionUpdate"] == "tool_call"
            && u["kind"] == "other"
            && u["rawInput"].get("todos").is_some()
        {
            assert_eq!(u["rawInput"]["_toolName"], "updateTodos");
        }
        // Denied/rejected tools end completed, never failed.
        assert_ne!(u["status"], "failed");
    }
    for m in &msgs {
        if m["method"]
            .as_str()
            .is_some_and(|s| s.starts_with("cursor/"))
        {
            assert!(
                m.get("id").is_some() && m["params"].get("sessionId").is_none(),
                "{m}"
            );
        }
    }
}
