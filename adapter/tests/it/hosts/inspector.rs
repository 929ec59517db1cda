//! Host: the MCP Inspector CLI 0.15.0 (`--cli` mode: one process, one connection, one method per
//! invocation, the result printed as JSON, exit 1 on an error). Both name projections.
//!
//! What a one-shot CLI can express of the core sequence: initialize (every invocation),
//! tools/list, tools/call of `claude.run` (succeeds), of `claude.run.start` (a handle), of
//! `claude.run` with invalid arguments (a tool error, exit 0: not a protocol error, T7),
//! resources/list, resources/templates/list (an empty list: it exited 1 on the old -32601) and
//! resources/read. A run id does not outlive its adapter process (RUN-9), so start + result +
//! cancel across invocations is not a sequence this host can run; it sends no progressToken.

use std::process::Command;

use serde_json::Value;

use super::{HOST_BOUND, Names, WORK_URI, path_with_fake_claude, result_of, run_host};
use crate::support::adapter_bin;

/// One inspector invocation: `index.js ADAPTER --method M [OPTIONS] -- [ADAPTER ARGS]`, `None`
/// (skipped) when the inspector is not installed outside CI.
fn inspect(names: Names, method: &[&str]) -> Option<Value> {
    let mut cmd: Command = testkit::prereq::require(testkit::prereq::mcp_inspector_cli())?;
    let (_fake, path) = path_with_fake_claude();
    // The adapter's own options go after `--` (the inspector would otherwise parse them).
    cmd.env("PATH", path)
        .arg(adapter_bin())
        .arg("--method")
        .args(method)
        .arg("--")
        .args(names.adapter_args());
    let run = run_host(cmd, HOST_BOUND);
    assert!(
        run.status.success(),
        "inspector {method:?} ({}) exited {}; stdout:\n{}\nstderr:\n{}",
        names.label(),
        run.status,
        run.stdout,
        run.stderr
    );
    Some(run.json())
}

fn completes_what_a_cli_can(names: Names) {
    let Some(listed) = inspect(names, &["tools/list"]) else {
        return;
    };
    let got: Vec<&str> = listed["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(got, names.all(), "tools/list");

    let run_name = names.tool("claude.run");
    let prompt = "prompt=fake-claude:scenario=success\nhello";
    let run = inspect(
        names,
        &["tools/call", "--tool-name", &run_name, "--tool-arg", prompt],
    )
    .expect("installed");
    assert_eq!(run["isError"], false, "{run:#}");
    assert_eq!(result_of(&run)["state"], "succeeded", "{run:#}");

    let start_name = names.tool("claude.run.start");
    let start = inspect(
        names,
        &[
            "tools/call",
            "--tool-name",
            &start_name,
            "--tool-arg",
            prompt,
        ],
    )
    .expect("installed");
    assert_eq!(start["isError"], false, "{start:#}");
    assert!(
        result_of(&start)["run_id"]
            .as_str()
            .is_some_and(|id| id.starts_with("run_")),
        "{start:#}"
    );

    // `timeout_s` is a number in the schema: the inspector converts "soon" to NaN, sent as null.
    let invalid = inspect(
        names,
        &[
            "tools/call",
            "--tool-name",
            &run_name,
            "--tool-arg",
            "timeout_s=soon",
        ],
    )
    .expect("installed");
    assert_eq!(invalid["isError"], true, "{invalid:#}");
    assert_eq!(
        result_of(&invalid)["error"]["code"],
        "invalid_arguments",
        "{invalid:#}"
    );

    let resources = inspect(names, &["resources/list"]).expect("installed");
    assert_eq!(resources["resources"][0]["uri"], WORK_URI, "{resources:#}");
    let templates = inspect(names, &["resources/templates/list"]).expect("installed");
    assert_eq!(
        templates["resourceTemplates"],
        serde_json::json!([]),
        "{templates:#}"
    );
    let read = inspect(names, &["resources/read", "--uri", WORK_URI]).expect("installed");
    assert_eq!(
        read["contents"][0]["mimeType"], "application/json",
        "{read:#}"
    );
}

#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn the_inspector_cli_lists_calls_and_reads_with_dotted_names() {
    completes_what_a_cli_can(Names::Dotted);
}

#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn the_inspector_cli_lists_calls_and_reads_with_underscore_names() {
    completes_what_a_cli_can(Names::Underscore);
}
