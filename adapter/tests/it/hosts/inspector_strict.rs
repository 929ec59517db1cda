//! Host: the MCP Inspector CLI 2.12.0 with `--strict`, on the Node.js 22 it needs (both pinned,
//! `testkit::prereq::mcp_inspector_2_cli`). Its schema lint reads every tool schema of a
//! `tools/list` answer as strict hosts do; `--strict` prints each finding on stderr and exits 6
//! on an error. The adapter, serving both providers in both name projections, passes with no
//! finding at all (TOOL-7), and the inspector runs a `claude.run` through it.
//!
//! 2.x reads the options that follow the server command as its own (it would take the adapter's
//! `--cursor PATH` for its `--cursor`), so the server command always follows `--` here, as the
//! README advises.

use std::process::Command;

use serde_json::Value;

use super::{HOST_BOUND, HostRun, Names, path_with_fake_claude, result_of, run_host};
use crate::support::{adapter_bin, fake_cursor_bin};

/// One inspector invocation against the adapter serving both providers (`--strict` for
/// `tools/list`, the only method it applies to), `None` (skipped) when the inspector is not
/// installed outside CI (with `CI=true` it fails).
fn inspect(names: Names, method: &[&str]) -> Option<HostRun> {
    let mut cmd: Command = testkit::prereq::require(testkit::prereq::mcp_inspector_2_cli())?;
    let (_fake, path) = path_with_fake_claude();
    cmd.env("PATH", path)
        .args(method)
        .args(method.contains(&"tools/list").then_some("--strict"))
        .arg("--")
        .arg(adapter_bin())
        .args(["--provider", "claude", "--provider", "cursor", "--cursor"])
        .arg(fake_cursor_bin())
        .args(names.adapter_args());
    Some(run_host(cmd, HOST_BOUND))
}

fn lists_with_no_portability_finding(names: Names) {
    let Some(run) = inspect(names, &["--method", "tools/list"]) else {
        return;
    };
    assert!(
        run.status.success(),
        "inspector --strict tools/list ({}) exited {}; stderr:\n{}",
        names.label(),
        run.status,
        run.stderr
    );
    // A finding is an `Error:` / `Warning:` block and a summary line, even when it exits 0.
    for marker in ["Error:", "Warning:", "portability", "across"] {
        assert!(
            !run.stderr.contains(marker),
            "{}: {marker:?} on stderr:\n{}",
            names.label(),
            run.stderr
        );
    }
    let listed = run.json();
    let tools: Vec<&str> = listed["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(tools.len(), 14, "{tools:?}");
    assert!(
        tools.contains(&names.tool("cursor.run.start").as_str()),
        "{tools:?}"
    );
}

#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn inspector_2_strict_finds_nothing_to_flag_with_dotted_names() {
    lists_with_no_portability_finding(Names::Dotted);
}

#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn inspector_2_strict_finds_nothing_to_flag_with_underscore_names() {
    lists_with_no_portability_finding(Names::Underscore);
}

#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn inspector_2_runs_a_prompt_through_the_adapter() {
    let name = Names::Dotted.tool("claude.run");
    let Some(run) = inspect(
        Names::Dotted,
        &[
            "--method",
            "tools/call",
            "--tool-name",
            &name,
            "--tool-arg",
            "prompt=fake-claude:scenario=success\nhello",
        ],
    ) else {
        return;
    };
    assert!(
        run.status.success(),
        "inspector tools/call exited {}; stdout:\n{}\nstderr:\n{}",
        run.status,
        run.stdout,
        run.stderr
    );
    let call: Value = run.json();
    assert_eq!(call["isError"], false, "{call:#}");
    assert_eq!(result_of(&call)["state"], "succeeded", "{call:#}");
}
