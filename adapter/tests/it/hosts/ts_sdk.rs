//! Host: the MCP TypeScript SDK client 1.32.2 running `testkit/hosts/ts-client.mjs`, which does the
//! whole core sequence and prints what the SDK returned (or threw) for each step. Both name
//! projections.
//!
//! Reset-on-progress (T9, C-T9): a `claude.run` with a 2 s SDK timeout and
//! `resetTimeoutOnProgress: true` completes over a ~2.7 s slow stream, and over a run that prints
//! nothing for 4 s (fake `hang-before-final`, `timeout_s: 4`: only heartbeats keep the call alive,
//! and the adapter's own timeout settles it); the same silent run without reset is timed out by
//! the SDK (-32001), which shows the 2 s bound is real.
//!
//! outputSchema: the SDK validates `structuredContent` against a tool's `outputSchema` inside
//! `callTool` (a mismatch throws -32602, so every `ok` call below passed it) for tools that
//! declare one, and every tool of the adapter does (TOOL-6); the client records which tools had
//! a successful result validated, and all seven must have (see OUTPUT-SCHEMA below).

use std::process::Command;

use serde_json::Value;

use super::{HOST_BOUND, Names, check_core_sequence, path_with_fake_claude, result_of, run_host};
use crate::support::adapter_bin;

fn session(mut cmd: Command, names: Names) -> Value {
    let (_fake, path) = path_with_fake_claude();
    cmd.env("PATH", path)
        .arg("--names")
        .arg(names.label())
        .arg("--")
        .arg(adapter_bin())
        .args(names.adapter_args());
    let run = run_host(cmd, HOST_BOUND);
    assert!(
        run.status.success(),
        "ts-client failed ({}); stderr:\n{}",
        run.status,
        run.stderr
    );
    run.json()
}

/// A step of the summary: `{ok, ms, result | code, message, progress?}`.
fn ok<'a>(seen: &'a Value, step: &str) -> &'a Value {
    let s = &seen[step];
    assert_eq!(s["ok"], true, "step {step} threw in the SDK: {s:#}");
    &s["result"]
}

fn completes_the_core_sequence(names: Names) {
    let cmd = testkit::require_prereq!(testkit::prereq::mcp_ts_client());
    let seen = session(cmd, names);
    assert_eq!(seen["sdk"], testkit::prereq::MCP_TS_SDK_VERSION);
    assert_eq!(
        seen["server_version"]["name"], "claude-mcp-adapter",
        "{seen:#}"
    );

    // The SDK's results, unwrapped (each `ok` call also passed the SDK's own result parsing).
    let mut core = serde_json::json!({"tools": seen["tools"]});
    for step in [
        "run",
        "start",
        "start_result",
        "start_events",
        "cancel",
        "cancel_result",
        "invalid",
    ] {
        core[step] = ok(&seen, step).clone();
    }
    core["resources"] = ok(&seen, "resources")["resources"].clone();
    core["resource_templates"] = ok(&seen, "resource_templates").clone();
    core["read"] = ok(&seen, "read").clone();
    check_core_sequence("ts sdk 1.32.2", names, &core);

    // callTool with onprogress sends a progressToken and the SDK hands progress to onprogress
    // (T9), checked on the slow stream below: a run that settles in ~100 ms gets its one
    // progress notification right before its response, and when both arrive in one read the
    // SDK loses it (protocol.js 1.32.2: `_onnotification` runs handlers in a microtask while
    // `_onresponse` deletes the progress handler at once, then "unknown token"), so whether the
    // fast `run` step saw progress is the SDK's scheduling, not the adapter's behaviour.

    // Reset-on-progress with a 2 s SDK timeout: the slow stream (~2.7 s) succeeds ...
    let slow = ok(&seen, "slow_with_reset");
    assert_eq!(result_of(slow)["state"], "succeeded", "{seen:#}");
    let streamed = seen["slow_with_reset"]["progress"]
        .as_array()
        .expect("progress list");
    assert!(
        !streamed.is_empty(),
        "no progress for the slow stream: {seen:#}"
    );
    assert!(
        seen["slow_with_reset"]["ms"].as_u64() > Some(2000),
        "the slow stream must outlast the 2 s timeout for this to prove anything: {seen:#}"
    );
    // ... and a run silent for 4 s is kept alive by heartbeats (C-T9) until the adapter's own
    // timeout settles it: a result, not the SDK's -32001.
    let silent = ok(&seen, "silent_with_reset");
    assert_eq!(result_of(silent)["state"], "timed_out", "{seen:#}");
    let beats = seen["silent_with_reset"]["progress"]
        .as_array()
        .expect("progress list");
    assert!(beats.len() >= 2, "heartbeats while silent: {seen:#}");
    // Control: without reset the SDK's 2 s timeout fires (RequestTimeout, -32001).
    let control = &seen["silent_without_reset"];
    assert_eq!(control["ok"], false, "{seen:#}");
    assert_eq!(control["code"], -32001, "{seen:#}");

    // META-WORK-5: once unbound runs are retained the work read is refused with -32000.
    let refused = &seen["read_after_runs"];
    assert_eq!(refused["ok"], false, "{seen:#}");
    assert_eq!(refused["code"], -32000, "{seen:#}");

    // claude.run.list and .release, so that every role has a result the SDK validated.
    let listed = result_of(ok(&seen, "list"));
    assert!(listed["runs"].is_array(), "{seen:#}");
    let released = ok(&seen, "release");
    assert_eq!(released["isError"], false, "{seen:#}");
    assert_eq!(
        result_of(released)["run_id"],
        result_of(ok(&seen, "start"))["run_id"],
        "{seen:#}"
    );

    // OUTPUT-SCHEMA (TOOL-6): the SDK's callTool validates a result's
    // structuredContent against the outputSchema of the listed tool and throws -32602 on a
    // mismatch. ts-client.mjs lists a tool once its callTool returned a non-isError result with
    // structuredContent while the SDK held a validator for that name: all seven must be there.
    // isError results do not count: the SDK's own comment says it skips them (1.32.2 in fact
    // still validates their structuredContent, which this does not rely on), so `invalid`
    // alone would prove nothing for `claude.run`.
    let tools = seen["tools"].as_array().expect("tools");
    assert_eq!(tools.len(), 7, "{seen:#}");
    assert!(
        tools.iter().all(|t| t["has_output_schema"] == true),
        "every tool declares outputSchema: {seen:#}"
    );
    let validated: Vec<&str> = seen["outputs_validated_by_sdk"]
        .as_array()
        .expect("outputs_validated_by_sdk")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(
        validated,
        names.all(),
        "tools without a result the SDK validated: {seen:#}"
    );
}

#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn the_ts_sdk_completes_the_core_sequence_with_dotted_names() {
    completes_the_core_sequence(Names::Dotted);
}

#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn the_ts_sdk_completes_the_core_sequence_with_underscore_names() {
    completes_the_core_sequence(Names::Underscore);
}
