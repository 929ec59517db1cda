//! Context-cost benchmark (bench/context.md, TOOL-8): what a host puts in front of every
//! conversation when it lists the tools, and what one run's result adds, side by side with the
//! Node reference server `@modelcontextprotocol/server-everything` (`testkit::prereq`).
//!
//! For each server: the tools, the `tools/list` result in bytes of compact JSON, the part a
//! model needs to call the tools (names, descriptions, input schemas), the output schemas, and
//! the annotations and `_meta`. For the adapter, with both providers and with claude only, and
//! one `claude.run` against fake-claude's `success` scenario: its text block, its
//! `structuredContent` and the whole result. Sizes are deterministic; the test
//! `protocol::context_budget` holds the budget, this prints the figures for the record.
//!
//! `CONTEXT_BASELINE=PATH` also measures another adapter build (a "before" binary).
//! Run with `cargo bench -p claude-mcp-adapter --bench context`.

mod common;

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

use serde_json::{Value, json};

use crate::common::session::Adapter as Session;
use crate::common::{fake_claude, machine};

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("context bench: {e}");
            ExitCode::FAILURE
        }
    }
}

fn size(v: &Value) -> usize {
    v.to_string().len()
}

fn start(mut cmd: Command) -> Result<Session, String> {
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0);
    let child = cmd
        .spawn()
        .map_err(|e| format!("spawn {:?}: {e}", cmd.get_program()))?;
    Session::initialized(child, "context-bench")
}

fn stop(s: Session) {
    testkit::procs::kill_group(s.child.id());
    let mut child = s.child;
    let _ = child.wait();
}

/// One line of the listing table.
fn listing(label: &str, cmd: Command) -> Result<(), String> {
    let mut s = start(cmd)?;
    let r = s.call("tools/list", json!({}))?;
    stop(s);
    let result = &r["result"];
    let tools = result["tools"].as_array().ok_or("no tools")?;
    let part = |keys: &[&str]| -> usize {
        tools
            .iter()
            .map(|t| {
                let m: serde_json::Map<String, Value> = keys
                    .iter()
                    .filter_map(|k| t.get(*k).map(|v| ((*k).to_owned(), v.clone())))
                    .collect();
                size(&Value::Object(m))
            })
            .sum()
    };
    let whole = size(result);
    let calling = part(&["name", "description", "inputSchema"]);
    let output: usize = tools.iter().map(|t| size(&t["outputSchema"])).sum();
    let meta: usize = tools
        .iter()
        .map(|t| size(&t["annotations"]) + size(&t["_meta"]))
        .sum();
    println!(
        "| {label} | {} | {whole} | {calling} | {output} | {meta} | {} |",
        tools.len(),
        whole / tools.len().max(1)
    );
    Ok(())
}

fn adapter(exe: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(exe);
    c.args(args);
    c
}

/// One `claude.run` of fake-claude's `success` scenario: its text block, `structuredContent`
/// and whole result, in bytes.
fn success_result(label: &str, exe: &Path, fake: &Path) -> Result<(), String> {
    let mut cmd = adapter(exe, &[]);
    cmd.arg("--claude").arg(fake);
    let mut s = start(cmd)?;
    let r = s.call(
        "tools/call",
        json!({"name": "claude.run", "arguments": {
            "prompt": "fake-claude:scenario=success\nhello", "cwd": "/tmp"}}),
    )?;
    stop(s);
    let result = &r["result"];
    if result["structuredContent"]["result"]["state"] != "succeeded" {
        return Err(format!("{label}: the run did not succeed: {r}"));
    }
    let text = result["content"][0]["text"].as_str().unwrap_or("");
    println!(
        "| {label} | {} | {} | {} |",
        text.len(),
        size(&result["structuredContent"]),
        size(result)
    );
    Ok(())
}

fn run() -> Result<(), String> {
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_claude-mcp-adapter"));
    let baseline = std::env::var_os("CONTEXT_BASELINE").map(PathBuf::from);
    let fake = fake_claude(&exe)?;
    let everything = testkit::prereq::everything_server().map_err(|e| format!("{e}"))?;
    println!("machine: {}", machine());
    println!("adapter: {}", exe.display());
    println!();
    println!(
        "| Server | Tools | tools/list bytes | names + descriptions + input schemas | output schemas | annotations + _meta | bytes per tool |"
    );
    println!("|---|---|---|---|---|---|---|");
    let both = ["--provider", "claude", "--provider", "cursor"];
    listing("adapter, both providers", adapter(&exe, &both))?;
    listing("adapter, claude only", adapter(&exe, &[]))?;
    if let Some(b) = &baseline {
        listing("baseline, both providers", adapter(b, &both))?;
        listing("baseline, claude only", adapter(b, &[]))?;
    }
    listing(
        &format!("server-everything {}", testkit::prereq::EVERYTHING_VERSION),
        everything,
    )?;
    println!();
    println!(
        "| One succeeded `claude.run` (fake-claude `success`) | text block bytes | structuredContent bytes | result bytes |"
    );
    println!("|---|---|---|---|");
    success_result("adapter", &exe, &fake)?;
    if let Some(b) = &baseline {
        success_result("baseline", b, &fake)?;
    }
    Ok(())
}
