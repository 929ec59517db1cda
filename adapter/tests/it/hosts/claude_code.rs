//! Host: the real Claude Code 2.1.328 acting as MCP host of the adapter (`--mcp-config`,
//! `--strict-mcp-config`), its model played by the Messages API stand-in's `mcp-calls` scenario:
//! the model calls `mcp__kit__claude_run`, then `mcp__kit__claude_run_result` with the run id it
//! read in the first result, then answers text. The adapter's own `claude` is fake-claude (PATH in
//! the server's `env`). Both projections.
//!
//! What is checked: the host's stream-json shows both tool_use blocks and tool_results whose
//! content carries the run's result (`state: succeeded`); the stand-in's request log shows those
//! tool_results sent back to the model; the adapter's `--record`ing shows what the host sent: the
//! projected tool name and a `progressToken` in `_meta` (`shared/reference/hosts/`).
//!
//! The host defers MCP tools: they are not in the Messages request's `tools`; a reminder names
//! them (to be loaded with ToolSearch), and a tool_use of such a name is run all the same.
//!
//! The host maps a server tool name to `mcp__<server>__<name>` with every character outside
//! `[A-Za-z0-9_-]` turned into `_`: `claude.run` and `claude_run` both become
//! `mcp__kit__claude_run`, so the model sees the same names in both projections, and the server
//! receives its own spelling (dotted or underscore) back.

use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};
use testkit::claude::{ClaudeCommand, parse_stream};
use testkit::standin::{McpCall, RUN_ID_PLACEHOLDER, Scenario, Standin};

use super::{Names, path_with_fake_claude, run_host};
use crate::support::adapter_bin;

/// Bound on one host turn (the real CLI's start-up is the slow part).
const TURN_BOUND: Duration = Duration::from_secs(120);

const RUN_TOOL: &str = "mcp__kit__claude_run";
const RESULT_TOOL: &str = "mcp__kit__claude_run_result";
const ANSWER: &str = "The run succeeded.";

/// The text of a tool_result block (string content or its text blocks).
fn tool_result_text(block: &Value) -> String {
    match &block["content"] {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// Every content block of the host's `assistant` (or `user`) events, in order.
fn blocks<'a>(events: &'a [Value], role: &str) -> Vec<&'a Value> {
    events
        .iter()
        .filter(|e| e["type"] == role)
        .filter_map(|e| e["message"]["content"].as_array())
        .flatten()
        .collect()
}

fn hosts_a_model_that_runs_and_reads_the_result(names: Names) {
    let claude = testkit::require_prereq!(testkit::prereq::claude());
    let run_prompt = "fake-claude:scenario=success\nhello";
    let standin = Standin::builder()
        .scenario(Scenario::McpCalls)
        .mcp_call(McpCall::new(RUN_TOOL, json!({"prompt": run_prompt})))
        .mcp_call(McpCall::new(
            RESULT_TOOL,
            json!({"run_id": RUN_ID_PLACEHOLDER}),
        ))
        .text(ANSWER)
        .start()
        .expect("stand-in");
    let host = ClaudeCommand::for_standin(&claude, &standin.base_url()).expect("claude home");
    let (_fake, path) = path_with_fake_claude();
    let rec = host.home().join("adapter-session.jsonl");
    let mut args: Vec<Value> = names.adapter_args().into_iter().map(Value::from).collect();
    args.extend([json!("--record"), json!(rec)]);
    let config = json!({"mcpServers": {"kit": {
        "command": adapter_bin(),
        "args": args,
        "env": {"PATH": path.to_str().expect("PATH is UTF-8")},
    }}});
    let mut cmd: Command = host.command();
    cmd.args(["-p", "--mcp-config"])
        .arg(config.to_string())
        .args(["--strict-mcp-config", "--allowedTools"])
        .arg(format!("{RUN_TOOL},{RESULT_TOOL}"))
        .args(["--output-format", "stream-json", "--verbose", "--"])
        .arg("Run hello through the kit and tell me how it went.");
    let run = run_host(cmd, TURN_BOUND);
    let events = parse_stream(run.stdout.as_bytes());
    let ctx = format!(
        "({}) status {}; stdout:\n{}\nstderr:\n{}",
        names.label(),
        run.status,
        run.stdout,
        run.stderr
    );

    // The host's init lists the server connected and its tools under the projected names.
    let init = events
        .iter()
        .find(|e| e["type"] == "system" && e["subtype"] == "init")
        .unwrap_or_else(|| panic!("no init {ctx}"));
    assert!(
        init["mcp_servers"].as_array().is_some_and(|s| s
            .iter()
            .any(|s| s["name"] == "kit" && s["status"] == "connected")),
        "the kit server is connected {ctx}"
    );

    // The model's two calls, and the host's two tool results carrying the run's result.
    let uses: Vec<&Value> = blocks(&events, "assistant")
        .into_iter()
        .filter(|b| b["type"] == "tool_use")
        .collect();
    let used: Vec<&str> = uses.iter().filter_map(|b| b["name"].as_str()).collect();
    assert_eq!(used, [RUN_TOOL, RESULT_TOOL], "tool_use blocks {ctx}");
    let results: Vec<&Value> = blocks(&events, "user")
        .into_iter()
        .filter(|b| b["type"] == "tool_result")
        .collect();
    assert_eq!(results.len(), 2, "two tool results {ctx}");
    for (block, used) in results.iter().zip(&uses) {
        assert_eq!(
            block["tool_use_id"], used["id"],
            "result answers its call {ctx}"
        );
        assert_ne!(
            block["is_error"], true,
            "a tool result is not an error {ctx}"
        );
        let text = tool_result_text(block);
        let shown: Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("the tool result text is our JSON ({e}): {text} {ctx}"));
        assert_eq!(shown["result"]["state"], "succeeded", "{ctx}");
        assert_eq!(shown["result"]["final"]["result"], "Hi there!", "{ctx}");
    }
    let run_id = serde_json::from_str::<Value>(&tool_result_text(results[0]))
        .ok()
        .and_then(|v| v["result"]["run_id"].as_str().map(str::to_owned))
        .unwrap_or_else(|| panic!("run id in the first result {ctx}"));
    assert_eq!(uses[1]["input"]["run_id"], run_id.as_str(), "{ctx}");

    let last = events.last().unwrap_or_else(|| panic!("no events {ctx}"));
    assert_eq!(last["type"], "result", "{ctx}");
    assert_eq!(last["subtype"], "success", "{ctx}");
    assert_eq!(last["result"], ANSWER, "{ctx}");
    assert!(run.status.success(), "{ctx}");

    // What the model is shown: the host defers MCP tools (not in the request's `tools`; named in
    // a reminder to load them with ToolSearch), and still runs a call of a deferred name.
    let first = standin.messages_requests();
    let first = first
        .first()
        .and_then(|r| r.body.as_ref())
        .unwrap_or_else(|| panic!("no request {ctx}"));
    let offered = first.to_string();
    for name in Names::Underscore.all() {
        let projected = format!("mcp__kit__{name}");
        assert!(
            offered.contains(&projected),
            "{projected} is shown to the model {ctx}"
        );
    }

    // The stand-in saw both results sent back to the model, the run's result inside.
    let sent_back: Vec<String> = standin
        .messages_requests()
        .iter()
        .filter(|r| r.carries_tool_result())
        .filter_map(|r| r.body.as_ref())
        .filter_map(testkit::standin::newest_tool_result_text)
        .collect();
    assert_eq!(sent_back.len(), 2, "{sent_back:?} {ctx}");
    assert!(
        sent_back
            .iter()
            .all(|t| t.contains(r#""state":"succeeded""#)),
        "{sent_back:?}"
    );

    // What the adapter received: its own spelling of the names, with a progressToken.
    let rows: Vec<Value> = std::fs::read_to_string(&rec)
        .unwrap_or_else(|e| panic!("adapter recording: {e} {ctx}"))
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let calls: Vec<&Value> = rows
        .iter()
        .filter(|r| r["dir"] == "c2s" && r["msg"]["method"] == "tools/call")
        .map(|r| &r["msg"]["params"])
        .collect();
    let called: Vec<&str> = calls.iter().filter_map(|p| p["name"].as_str()).collect();
    assert_eq!(
        called,
        [names.tool("claude.run"), names.tool("claude.run.result")],
        "{rows:?}"
    );
    assert!(
        calls.iter().all(|p| !p["_meta"]["progressToken"].is_null()),
        "the host sends a progressToken: {rows:?}"
    );
}

#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn claude_code_hosts_a_model_that_runs_and_reads_the_result_with_dotted_names() {
    hosts_a_model_that_runs_and_reads_the_result(Names::Dotted);
}

#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn claude_code_hosts_a_model_that_runs_and_reads_the_result_with_underscore_names() {
    hosts_a_model_that_runs_and_reads_the_result(Names::Underscore);
}
