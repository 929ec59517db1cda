//! Unit tests of the normalisation rules: the built-in set, user rules of each kind, numbering
//! and the fired counts.

use std::path::Path;
use std::sync::Arc;

use serde_json::json;

use super::*;

fn norm(set: RuleSet) -> Normaliser {
    Normaliser::new(Arc::new(set))
}

#[test]
fn the_reference_adapter_subset_numbers_run_ids_and_cursor_nonces() {
    let mut n = norm(RuleSet::builtin_only(REFERENCE_ADAPTER).expect("built-in"));
    let a = "run_0123456789abcdef0123456789abcdef";
    let b = "run_ffffffffffffffffffffffffffffffff";
    let s = format!("{a} {b} {a} c1.0badcafe.1f and c1.0badcafe.20 run_short");
    assert_eq!(
        n.text(&s),
        "[RUN#1] [RUN#2] [RUN#1] c1.[NONCE#1].1f and c1.[NONCE#1].20 run_short"
    );
    assert_eq!(n.fired["run-id"], 3);
    assert_eq!(n.fired["cursor-nonce"], 2);
    // Not inside a longer word.
    assert_eq!(n.text(&format!("x{a}")), format!("x{a}"));
}

#[test]
fn the_builtin_set_absorbs_uuids_timestamps_durations_and_temp_dirs() {
    let mut n = norm(RuleSet::builtin().expect("built-in"));
    let v = json!({
        "instance": "1ce30cbf-de95-44b2-aa0f-bbf9e57414b7",
        "session": "2ce30cbf-de95-44b2-aa0f-bbf9e57414b7",
        "again": "see 2ce30cbf-de95-44b2-aa0f-bbf9e57414b7",
        "at": "2026-11-30T03:46:52.454Z",
        "duration_ms": 350,
        "cwd": "/tmp/.tmpzaxzVL/home",
        "id": "toolu_mocka95446d88a49",
        "sessionId": "3f20c3c79a1920a89bf2e88ed7981bc5",
        "text": "{\"duration_ms\": 7, \"ok\": true}"
    });
    assert_eq!(
        n.value(&v),
        json!({
            "instance": "[INSTANCE]",
            "session": "[UUID#1]",
            "again": "see [UUID#1]",
            "at": "[TIMESTAMP]",
            "duration_ms": 0,
            "cwd": "[TMP#1]/home",
            "id": "[API-ID#1]",
            "sessionId": "[SESSION#1]",
            "text": {"[json text]": {"duration_ms": 0, "ok": true}}
        })
    );
    for id in [
        "instance",
        "uuid",
        "timestamp",
        "duration",
        "temp-dir",
        "stand-in-id",
        "acp-session-id",
        "json-text",
    ] {
        assert!(n.fired.contains_key(id), "{id} fired: {:?}", n.fired);
    }
}

#[test]
fn user_rules_replace_by_pointer_key_and_regex_and_remove() {
    let user = RuleSet::parse(
        Path::new("user.json"),
        r#"{"rules": [
            {"id": "version", "pointer": "/result/serverInfo/version", "replace": "[V]"},
            {"id": "debug", "pointer": "/result/_meta/debug", "remove": true},
            {"id": "elapsed", "key": ["elapsed", "took"], "replace": 0},
            {"id": "trace", "regex": "trace-(?P<v>[0-9a-f]{4})", "replace": "T{n}"}
        ]}"#,
    )
    .expect("parses");
    let mut n = norm(user);
    let msg = json!({"result": {
        "serverInfo": {"version": "1.2.3"},
        "_meta": {"debug": {"x": 1}, "keep": true},
        "stats": {"elapsed": 12, "took": 1.5},
        "log": "trace-abcd then trace-beef then trace-abcd"
    }});
    assert_eq!(
        n.message(&msg),
        json!({"result": {
            "serverInfo": {"version": "[V]"},
            "_meta": {"keep": true},
            "stats": {"elapsed": 0, "took": 0},
            "log": "trace-T1 then trace-T2 then trace-T1"
        }})
    );
    assert_eq!(n.fired["version"], 1);
    assert_eq!(n.fired["debug"], 1);
    assert_eq!(n.fired["elapsed"], 2);
    assert_eq!(n.fired["trace"], 3);
}

#[test]
fn a_bad_rules_file_is_a_typed_error_naming_the_rule() {
    for (text, needle) in [
        (r#"{"rules": [{"id": "x"}]}"#, "exactly one of"),
        (r#"{"rules": [{"id": "x", "regex": "("}]}"#, "rule \"x\""),
        (
            r#"{"rules": [{"id": "x", "pointer": "a/b"}]}"#,
            "starts with /",
        ),
        (
            r#"{"rules": [{"id": "x", "builtin": "nope"}]}"#,
            "unknown builtin",
        ),
        (r#"{"rulez": []}"#, "unknown field"),
    ] {
        let e = RuleSet::parse(Path::new("r.json"), text).expect_err(text);
        assert!(matches!(e, Error::BadRules { .. }));
        assert!(e.to_string().contains(needle), "{e}");
    }
}

#[test]
fn numbering_is_per_side_so_the_same_shape_compares_equal() {
    let set = Arc::new(RuleSet::builtin().expect("built-in"));
    let mut a = Normaliser::new(set.clone());
    let mut b = Normaliser::new(set);
    let one = json!([
        "11111111-1111-4111-8111-111111111111",
        "22222222-2222-4222-8222-222222222222",
        "11111111-1111-4111-8111-111111111111"
    ]);
    let two = json!([
        "33333333-3333-4333-8333-333333333333",
        "44444444-4444-4444-8444-444444444444",
        "33333333-3333-4333-8333-333333333333"
    ]);
    assert_eq!(a.value(&one), b.value(&two));
    let swapped = json!(["44444444-4444-4444-8444-444444444444"]);
    assert_eq!(b.value(&swapped), json!(["[UUID#2]"]));
}

#[test]
fn a_text_with_final_reduced_to_its_scalars_shows_a_marker() {
    // TOOL-4's text form of a run's result: `final` with its scalar members only.
    let mut n = norm(RuleSet::builtin_only(REFERENCE_ADAPTER).expect("built-in"));
    let request = json!({"method": "tools/call", "params": {"name": "claude.run"}});
    let run = json!({"result": {"run_id": "x", "final": {"result": "Hi", "usage": {"n": 1}}}});
    let reduced = json!({"result": {"run_id": "x", "final": {"result": "Hi"}}});
    let response = json!({"result": {
        "content": [{"type": "text", "text": reduced.to_string()}],
        "structuredContent": run
    }});
    let got = n.response(&request, &response);
    assert_eq!(
        got["result"]["content"][0]["text"],
        "[= structuredContent, final's scalars only]"
    );
    // A text that drops a scalar of final too is shown parsed.
    let dropped = json!({"result": {"run_id": "x", "final": {}}});
    let response = json!({"result": {
        "content": [{"type": "text", "text": dropped.to_string()}],
        "structuredContent": run
    }});
    let got = n.response(&request, &response);
    assert_eq!(got["result"]["content"][0]["text"], dropped);
}

#[test]
fn structured_content_copies_and_start_states_are_builtins() {
    let mut n = norm(RuleSet::builtin_only(REFERENCE_ADAPTER).expect("built-in"));
    let request = json!({"method": "tools/call", "params": {"name": "claude.run.start"}});
    let sc = json!({"result": {"state": "starting", "run_id": "x"}});
    let response = json!({"result": {
        "content": [{"type": "text", "text": sc.to_string()}],
        "structuredContent": sc
    }});
    let got = n.response(&request, &response);
    assert_eq!(got["result"]["content"][0]["text"], "[= structuredContent]");
    assert_eq!(
        got["result"]["structuredContent"]["result"]["state"],
        "[active]"
    );
    // Not for another tool.
    let other = json!({"method": "tools/call", "params": {"name": "claude.run"}});
    let got = n.response(&other, &response);
    assert_eq!(
        got["result"]["structuredContent"]["result"]["state"],
        "starting"
    );
}
