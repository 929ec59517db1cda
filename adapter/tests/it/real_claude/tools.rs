//! The tool-loop boundary with the real claude 2.1.328 against the Messages API stand-in:
//! a model that keeps asking for the same denied Bash call is stopped by the loop guard
//! (LOOP-1/3), and `json_schema` really reaches claude as `--json-schema`, whose
//! `structured_output` the adapter validates (JSONOUT-1/3).

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::json;
use testkit::procs;
use testkit::standin::{Scenario, Standin};

use super::{Real, check};
use crate::support::client::structured;

/// Processes (zombies included) whose environment has `HOME=home` and that are not the adapter
/// (or its supervisors, the same binary): the CLI and everything it started (each test has its
/// own temporary HOME).
fn processes_with_home(home: &Path) -> Vec<u32> {
    let want = format!("HOME={}", home.display());
    let adapter = std::fs::canonicalize(crate::support::adapter_bin()).ok();
    procs::scan()
        .into_iter()
        .map(|p| p.pid)
        .filter(|&pid| procs::exe(pid) != adapter)
        .filter(|&pid| procs::env_has(pid, &want))
        .collect()
}

fn schema() -> serde_json::Value {
    json!({
        "type": "object",
        "properties": {"name": {"type": "string"}, "count": {"type": "integer"}},
        "required": ["name", "count"]
    })
}

#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn real_claude_repeating_the_same_denied_call_is_stopped_by_the_loop_guard() {
    let claude = testkit::require_prereq!(testkit::prereq::claude());
    // tool-loop: a Bash call that writes, on every leg; dontAsk denies it every time.
    let mut real = Real::with_standin(&claude, Scenario::ToolLoop, &[]);
    let home = real.cmd.home().to_path_buf();
    let res = real.run("create a file", json!({}));
    let r = structured(&res);
    check(res["isError"] == true, "a tripped run is an error", &res);
    check(r["state"] == "failed", "failed", &res);
    check(r["error"]["code"] == "loop_detected", "loop_detected", &res);
    check(r["error"]["count"] == 3, "at exactly limit + 1", &res);
    check(
        r["error"]["fingerprint"]
            == json!({"kind": "strict", "tool": "bash",
                "arguments": {"command": testkit::standin::DEFAULT_WRITE_COMMAND},
                "outcome": "permission_denied"}),
        "the fingerprint is named",
        &res,
    );
    check(
        r["error"]["call_ids"].as_array().map(Vec::len) == Some(3),
        "the three calls are named",
        &res,
    );
    check(r["cleanup_confirmed"] == true, "cleanup confirmed", &res);
    check(
        r["permission_denials"]["denials"]
            .as_array()
            .is_some_and(|d| d.len() >= 3),
        "every denial listed in the common shape",
        &res,
    );
    let legs = real.api_requests();
    check(
        legs < 25,
        &format!("stopped long before the stand-in's cap of 25 tool legs ({legs} requests)"),
        &res,
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    while !processes_with_home(&home).is_empty() {
        assert!(
            Instant::now() < deadline,
            "processes of the stopped run are alive: {:?}",
            processes_with_home(&home)
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn real_claude_structured_output_from_json_schema_is_validated() {
    let claude = testkit::require_prereq!(testkit::prereq::claude());
    let mut real = Real::with_standin(&claude, Scenario::Structured, &[]);
    let res = real.run("give me a name", json!({"json_schema": schema()}));
    let r = structured(&res);
    check(
        res["isError"] == false,
        "valid structured output succeeds",
        &res,
    );
    check(
        r["structured"] == json!({"name": "standin", "count": 2}),
        "structured is the validated object",
        &res,
    );
    check(
        r["final"]["structured_output"] == r["structured"],
        "the native structured_output",
        &res,
    );
    // --json-schema really reached claude: it offered the model its StructuredOutput tool with
    // exactly this input schema.
    let standin: &Standin = real.standin.as_ref().expect("stand-in");
    let offered = standin.messages_requests().iter().any(|req| {
        req.body
            .as_ref()
            .and_then(|b| b["tools"].as_array())
            .is_some_and(|tools| {
                tools
                    .iter()
                    .any(|t| t["name"] == "StructuredOutput" && t["input_schema"] == schema())
            })
    });
    assert!(
        offered,
        "claude offered StructuredOutput with the run's json_schema"
    );
}

#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn real_claude_without_a_valid_structured_output_fails_the_run() {
    let claude = testkit::require_prereq!(testkit::prereq::claude());
    // The model answers {"name": 3}: claude itself refuses it ("Output does not match required
    // schema"), reminds the model, and ends with a success result that has no
    // structured_output; the adapter fails the run.
    let mut real = Real::with_standin(&claude, Scenario::StructuredInvalid, &[]);
    let res = real.run("give me a name", json!({"json_schema": schema()}));
    let r = structured(&res);
    check(res["isError"] == true, "an error", &res);
    check(
        r["error"]["code"] == "invalid_structured_output",
        "invalid_structured_output",
        &res,
    );
    check(
        r["error"]["reason"] == "missing",
        "no structured output came",
        &res,
    );
    check(
        r["error"]["text"] == r["final"]["result"],
        "the final text is kept",
        &res,
    );
    check(
        r["tool_calls"]["calls"][0]["native_name"] == "StructuredOutput"
            && r["tool_calls"]["calls"][0]["outcome"] == "validation_failed",
        "the refused StructuredOutput call is a validation failure",
        &res,
    );
}
