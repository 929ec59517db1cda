//! Continuation metadata: META-CONT-1 and META-CONT-2, checked from the listing.

use serde_json::{Value, json};

use super::support::ensure;
use crate::core::case::case;
use crate::core::model::{Check, CheckResult};
use crate::mcp::ctx::Ctx;
use crate::mcp::gate::Case;
use crate::mcp::profile::{Levels, Profile};
use crate::mcp::roles::Expected;
use crate::mcp::roles::FakeKind;

/// The continuation key.
pub const CONT_KEY: &str = "io.github.computer-mcp/continuation";

/// The cases of this section.
pub const CASES: &[Case] = &[
    case!("meta-continuation/declared", "META-CONT-1", Levels::META_LOCAL, Discovery,
        "result, events, cancel and release declare {format_version 1, kind claude.run, id_pointer /run_id} naming a required string property",
        declared[]),
    case!("meta-continuation/absent", "META-CONT-2", Levels::META_LOCAL, Discovery,
        "run, start and list declare no continuation",
        absent[]),
];

fn roles_or_skip(ctx: &Ctx) -> Result<(), Check> {
    if ctx.roles().is_empty() {
        return Err(match ctx.profile {
            Profile::Provider => {
                Check::fail("the provider's tools (found by role)", "no tool has a role")
            }
            _ => Check::skip("no tool has a computer-mcp role"),
        });
    }
    Ok(())
}

/// Whether `/name` (a one-level JSON Pointer) names a required string property of `schema`.
fn pointer_ok(schema: &Value, pointer: &str) -> bool {
    let Some(prop) = pointer.strip_prefix('/').filter(|p| !p.contains('/')) else {
        return false;
    };
    let required = schema
        .get("required")
        .and_then(Value::as_array)
        .is_some_and(|r| r.iter().any(|x| x == prop));
    let string = schema
        .get("properties")
        .and_then(|p| p.get(prop))
        .and_then(|p| p.get("type"))
        == Some(&json!("string"));
    required && string
}

async fn declared(ctx: Ctx) -> CheckResult {
    roles_or_skip(&ctx)?;
    // PROV-2: each tool family declares its own kind (`claude.run`, `cursor.run`).
    let kind_of = |fake: FakeKind| match fake {
        FakeKind::Claude => "claude.run",
        FakeKind::Cursor => "cursor.run",
    };
    let families = ctx.roles().families();
    let mut wants = Vec::new();
    let mut bad = Vec::new();
    for (role, name, i, fake) in families.iter().flat_map(|f| {
        f.roles
            .found
            .iter()
            .map(move |(role, name, i)| (role, name, i, f.fake))
    }) {
        if !role.continues() {
            continue;
        }
        let want = json!({"format_version": 1, "kind": kind_of(fake), "id_pointer": "/run_id"});
        if !wants.contains(&want) {
            wants.push(want.clone());
        }
        let tool = &ctx.discovery.tools()[*i];
        let got = tool.get("_meta").and_then(|m| m.get(CONT_KEY));
        if got != Some(&want) {
            bad.push(format!(
                "{name}: {}",
                got.map_or("none".into(), super::support::show)
            ));
            continue;
        }
        let schema = tool.get("inputSchema").cloned().unwrap_or(Value::Null);
        if !pointer_ok(&schema, "/run_id") {
            bad.push(format!("{name}: /run_id is not a required string property"));
        }
    }
    if wants.is_empty() {
        wants.push(json!({"format_version": 1, "kind": "claude.run", "id_pointer": "/run_id"}));
    }
    let want = wants
        .iter()
        .map(Value::to_string)
        .collect::<Vec<_>>()
        .join(" or, in its family, ");
    ensure(bad.is_empty(), want, bad.join("; "))?;
    Ok(Check::Pass)
}

async fn absent(ctx: Ctx) -> CheckResult {
    roles_or_skip(&ctx)?;
    let bad: Vec<&str> = ctx
        .roles()
        .found
        .iter()
        .filter(|(r, _, i)| {
            !r.continues()
                && ctx.discovery.tools()[*i]
                    .get("_meta")
                    .and_then(|m| m.get(CONT_KEY))
                    .is_some()
        })
        .map(|(_, n, _)| n.as_str())
        .collect();
    ensure(
        bad.is_empty(),
        "no continuation on run, start, list",
        format!("declared on {}", bad.join(", ")),
    )?;
    Ok(Check::Pass)
}
