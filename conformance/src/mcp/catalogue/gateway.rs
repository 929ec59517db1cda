//! Gateways: META-CONN-1. A server that re-exports provider tools on another connection strips
//! the connection-local work and continuation declarations and keeps risk.

use super::meta_continuation::CONT_KEY;
use super::meta_risk::risk_of;
use super::meta_work::WORK_KEY;
use super::support::ensure;
use crate::core::case::case;
use crate::core::model::{Check, CheckResult};
use crate::mcp::ctx::Ctx;
use crate::mcp::gate::Case;
use crate::mcp::profile::Levels;
use crate::mcp::roles::Expected;

/// The cases of this section.
pub const CASES: &[Case] = &[
    case!("gateway/connection-local-stripped", "META-CONN-1", Levels::GATEWAY_ONLY, Discovery,
    "Re-exported provider tools carry no work or continuation declaration and keep their risk",
    stripped[]),
];

async fn stripped(ctx: Ctx) -> CheckResult {
    if ctx.roles().is_empty() {
        return Err(Check::fail(
            "re-exported provider tools (found by role)",
            "no tool has a provider role",
        ));
    }
    let mut bad = Vec::new();
    // META-CONN-1 strips the declarations from every tool the gateway lists, not only from the
    // tools whose role the runner recognises: a gateway that renames tools to opaque ids leaves
    // cancel and release unrecognisable (roles.rs), and they must not escape the check.
    for t in ctx.discovery.tools() {
        let name = t
            .get("name")
            .and_then(serde_json::Value::as_str)
            .unwrap_or("?");
        let meta = t.get("_meta");
        if meta.and_then(|m| m.get(WORK_KEY)).is_some() {
            bad.push(format!("{name}: work declaration kept"));
        }
        if meta.and_then(|m| m.get(CONT_KEY)).is_some() {
            bad.push(format!("{name}: continuation declaration kept"));
        }
    }
    bad.extend(super::meta_risk::unnamed_run_id_tool_problems(&ctx));
    for (role, name, i) in &ctx.roles().found {
        let t = &ctx.discovery.tools()[*i];
        if risk_of(t) != Some(role.risk()) {
            bad.push(format!(
                "{name}: risk {:?} instead of {:?}",
                risk_of(t),
                role.risk()
            ));
        }
    }
    ensure(
        bad.is_empty(),
        "work and continuation stripped, risk kept",
        bad.join("; "),
    )?;
    Ok(Check::Pass)
}
