//! ACP: the reference adapter's recording of a real agent turn (the TypeScript SDK's example
//! agent, `recordings/acp/real-ts-example-agent.jsonl`) replays clean against that agent with
//! `--side adapter-acp`: the client's lines are the adapter's, the agent's session id is mapped
//! (the built-in `acp-session-id` rule), and its permission request is answered under the
//! agent's id.

use std::path::Path;

use serde_json::Value;

use crate::support::{run, show};

#[test]
fn the_real_ts_example_agent_turn_replays_clean() {
    let cmd = testkit::require_prereq!(testkit::prereq::acp_ts_example_agent());
    let agent: Vec<String> = testkit::prereq::argv(&cmd)
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let golden =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../recordings/acp/real-ts-example-agent.jsonl");
    let o = run(
        &golden,
        &["--side", "adapter-acp", "--format", "json"],
        &agent,
    );
    assert_eq!(o.status.code(), Some(0), "{}", show(&o));
    let report: Value = serde_json::from_slice(&o.stdout).expect("json");
    assert!(
        report["rules_fired"]["acp-session-id"].as_u64() > Some(0),
        "{report}"
    );
}
