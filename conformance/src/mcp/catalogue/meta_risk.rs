//! Risk metadata: META-RISK-1..3 (`_meta["io.github.computer-mcp/risk"]`), checked from the
//! listing. A gateway keeps risk (META-CONN-1), so these are MUST there too.

use serde_json::{Value, json};

use super::support::{ensure, str_at};
use crate::core::case::case;
use crate::core::model::{Check, CheckResult};
use crate::mcp::ctx::Ctx;
use crate::mcp::gate::Case;
use crate::mcp::profile::{Levels, Profile};
use crate::mcp::roles::Expected;

/// The risk key.
pub const RISK_KEY: &str = "io.github.computer-mcp/risk";
/// The legal risks.
pub const RISKS: [&str; 3] = ["read-only", "destructive", "full-shell"];

/// The cases of this section.
pub const CASES: &[Case] = &[
    case!("meta-risk/declared", "META-RISK-1", Levels::META_KEPT, Discovery,
        "Every tool declares _meta[\"io.github.computer-mcp/risk\"]: read-only, destructive or full-shell",
        declared[]),
    case!("meta-risk/by-role", "META-RISK-2", Levels::META_KEPT, Discovery,
        "run and start are full-shell; list, result, events read-only; cancel and release destructive",
        by_role[]),
    case!("meta-risk/annotations", "META-RISK-3", Levels::META_KEPT, Discovery,
        "Annotations never claim less than the risk (readOnlyHint only on read-only; no destructiveHint false on destructive or full-shell)",
        annotations[]),
];

/// The declared risk of a tool.
#[must_use]
pub fn risk_of(tool: &Value) -> Option<&str> {
    tool.get("_meta")?.get(RISK_KEY)?.as_str()
}

fn name(t: &Value) -> &str {
    str_at(t, "name").unwrap_or("?")
}

fn tools(ctx: &Ctx) -> Result<&[Value], Check> {
    if ctx.discovery.tools.is_none() {
        // No tools capability, or no capabilities at all (then blocked by the result's shape).
        super::support::declared(ctx, "tools")?;
    }
    let t = ctx.discovery.tools();
    if t.is_empty() {
        return Err(Check::skip("the server lists no tools"));
    }
    Ok(t)
}

async fn declared(ctx: Ctx) -> CheckResult {
    let mut bad = Vec::new();
    for t in tools(&ctx)? {
        match risk_of(t) {
            Some(r) if RISKS.contains(&r) => {}
            Some(r) => bad.push(format!("{}: {r:?} is not a known risk", name(t))),
            None => bad.push(format!("{}: no risk", name(t))),
        }
    }
    ensure(bad.is_empty(), "a risk on every tool", bad.join("; "))?;
    Ok(Check::Pass)
}

/// META-RISK-2 on tools whose role is unknown but whose schema is RUN-0's `{run_id}` alone:
/// behind opaque names result, cancel and release cannot be told apart, yet their risks are
/// bound together: at most one of them is read-only (result), none is full-shell. Without this a
/// gateway that renames its tools and lowers cancel to read-only passed unseen.
#[must_use]
pub fn unnamed_run_id_tool_problems(ctx: &Ctx) -> Vec<String> {
    let tools = ctx.discovery.tools();
    let found: Vec<usize> = ctx.roles().found.iter().map(|(_, _, i)| *i).collect();
    let only_run_id = |t: &Value| {
        t.get("inputSchema")
            .and_then(|s| s.get("properties"))
            .and_then(Value::as_object)
            .is_some_and(|p| p.len() == 1 && p.contains_key("run_id"))
    };
    let unnamed: Vec<(&str, &str)> = tools
        .iter()
        .enumerate()
        .filter(|(i, t)| !found.contains(i) && only_run_id(t))
        .filter_map(|(_, t)| Some((name(t), risk_of(t)?)))
        .collect();
    let mut bad = Vec::new();
    let read_only: Vec<&str> = unnamed
        .iter()
        .filter(|(_, r)| *r == "read-only")
        .map(|(n, _)| *n)
        .collect();
    if read_only.len() > 1 {
        bad.push(format!(
            "{} read-only among the unnamed result/cancel/release tools (only result is): {}",
            read_only.len(),
            read_only.join(", ")
        ));
    }
    for (n, r) in &unnamed {
        if *r == "full-shell" {
            bad.push(format!(
                "{n}: full-shell on a result/cancel/release tool (read-only or destructive)"
            ));
        }
    }
    bad
}

async fn by_role(ctx: Ctx) -> CheckResult {
    if ctx.roles().is_empty() {
        return Err(match ctx.profile {
            Profile::Plain => Check::skip("no tool has a computer-mcp role"),
            _ => Check::fail("the provider's tools (found by role)", "no tool has a role"),
        });
    }
    let mut bad = unnamed_run_id_tool_problems(&ctx);
    for (role, tool_name, i) in &ctx.roles().found {
        let got = ctx.discovery.tools().get(*i).and_then(risk_of);
        if got != Some(role.risk()) {
            bad.push(format!(
                "{tool_name}: {} instead of {:?}",
                got.map_or("no risk".into(), |g| format!("{g:?}")),
                role.risk()
            ));
        }
    }
    ensure(bad.is_empty(), "each role's risk", bad.join("; "))?;
    Ok(Check::Pass)
}

async fn annotations(ctx: Ctx) -> CheckResult {
    let mut bad = Vec::new();
    let mut checked = 0;
    for t in tools(&ctx)? {
        let Some(risk) = risk_of(t) else { continue };
        checked += 1;
        let a = t.get("annotations").cloned().unwrap_or(Value::Null);
        if a.get("readOnlyHint") == Some(&json!(true)) && risk != "read-only" {
            bad.push(format!("{}: readOnlyHint true on a {risk} tool", name(t)));
        }
        if a.get("destructiveHint") == Some(&json!(false)) && risk != "read-only" {
            bad.push(format!(
                "{}: destructiveHint false on a {risk} tool",
                name(t)
            ));
        }
    }
    if checked == 0 {
        return Err(Check::skip("no tool declares a risk"));
    }
    ensure(
        bad.is_empty(),
        "annotations consistent with risk",
        bad.join("; "),
    )?;
    Ok(Check::Pass)
}
