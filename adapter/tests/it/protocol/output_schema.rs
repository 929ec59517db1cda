//! TOOL-6: every tool of both families, in both name projections, declares an
//! `outputSchema` generated from the typed results, and the results conform to it. Every other
//! test's `tools/call` results are validated too, by the shared session ([`crate::support::outputs`]).

use std::sync::atomic::Ordering;

use cmk_engine::provider::Role;
use cmk_mcp_server::output_schema;
use serde_json::{Value, json};

use super::calls::scenario;
use super::tools::list_tools;
use crate::support::{Adapter, outputs};

fn listed(args: &[&str]) -> Vec<Value> {
    let mut s = Adapter::new().args(args).spawn();
    s.init();
    list_tools(&mut s)
}

#[test]
fn every_tool_of_both_families_in_both_projections_declares_the_generated_output_schema() {
    for names in ["dotted", "underscore"] {
        let tools = listed(&[
            "--provider",
            "claude",
            "--provider",
            "cursor",
            "--tool-names",
            names,
        ]);
        assert_eq!(tools.len(), 14, "{names}");
        for t in &tools {
            let name = t["name"].as_str().expect("name");
            let role = outputs::role_of(name).unwrap_or_else(|| panic!("{name} has no role"));
            assert_eq!(
                t["outputSchema"],
                output_schema::for_role(role),
                "{names}: {name}"
            );
            // MCP: an outputSchema is an object schema; listed right after inputSchema.
            assert_eq!(t["outputSchema"]["type"], "object", "{name}");
            let keys: Vec<&String> = t.as_object().expect("tool").keys().collect();
            let at = keys
                .iter()
                .position(|k| *k == "inputSchema")
                .expect("inputSchema");
            assert_eq!(keys[at + 1], "outputSchema", "{name}: {keys:?}");
        }
    }
}

#[test]
fn the_suite_wide_check_rejects_a_result_its_schema_does_not_allow() {
    // No false pass: the check the whole suite relies on does reject.
    let ok = json!({"structuredContent": {"result": {"run_id": "run_1", "released": true}}});
    assert!(outputs::check("claude.run.release", &ok).is_ok());
    let wrong_type =
        json!({"structuredContent": {"result": {"run_id": "run_1", "released": "yes"}}});
    assert!(outputs::check("claude_run_release", &wrong_type).is_err());
    let missing = json!({"structuredContent": {"result": {"run_id": "run_1"}}});
    assert!(outputs::check("cursor.run.release", &missing).is_err());
    let bad_state = json!({"structuredContent": {"result": {"run_id": "r", "state": "done"}}});
    assert!(outputs::check("claude.run.start", &bad_state).is_err());
    // TOOL-6: the code is a string (its set, TOOL-5's, is listed in docs/results.md).
    let bad_code = json!({"structuredContent": {"result": {"error": {"code": 1, "message": "m"}}}});
    assert!(outputs::check("claude.run.result", &bad_code).is_err());
    assert!(outputs::check("claude.run.list", &json!({"content": []})).is_err());
    // Names that are none of the seven are not tool results of ours.
    assert!(outputs::check("claude.nope", &json!({})).is_ok());
    assert_eq!(outputs::role_of("cursor_run"), Some(Role::Run));
    assert_eq!(outputs::role_of("claude.run.events"), Some(Role::Events));
}

#[test]
fn results_and_failures_of_every_tool_conform_to_their_output_schema() {
    // Every role answers at least once with a result and once with a failed operation; the
    // session validates each answer (and panics on a mismatch).
    let before = outputs::VALIDATED.load(Ordering::Relaxed);
    let mut s = Adapter::new().fake_claude().spawn();
    s.init();
    let run = s.call_tool("claude.run", json!({"prompt": scenario("success")}), None);
    assert_eq!(run["isError"], false, "{run}");
    let failed = s.call_tool(
        "claude.run",
        json!({"prompt": scenario("nonzero-exit")}),
        None,
    );
    assert_eq!(failed["isError"], true, "{failed}");
    let started = s.call_tool(
        "claude.run.start",
        json!({"prompt": scenario("hang-before-final")}),
        None,
    );
    let id = started["structuredContent"]["result"]["run_id"].clone();
    s.call_tool("claude.run.list", json!({}), None);
    s.call_tool("claude.run.result", json!({"run_id": id}), None);
    s.call_tool("claude.run.events", json!({"run_id": id}), None);
    s.call_tool("claude.run.cancel", json!({"run_id": id}), None);
    let done = run["structuredContent"]["result"]["run_id"].clone();
    s.call_tool("claude.run.release", json!({"run_id": done}), None);
    for tool in [
        "claude.run.result",
        "claude.run.events",
        "claude.run.cancel",
        "claude.run.release",
    ] {
        let r = s.call_tool(tool, json!({"run_id": "run_nope"}), None);
        assert_eq!(r["isError"], true, "{r}");
    }
    let r = s.call_tool("claude.run.start", json!({"prompt": ""}), None);
    assert_eq!(r["isError"], true, "{r}");
    let seen = outputs::VALIDATED.load(Ordering::Relaxed) - before;
    assert!(seen >= 13, "validated {seen} results");
}
