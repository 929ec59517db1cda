//! A long connection: a bounded run of read-only requests on one connection, so the
//! cross-cutting rules (stdout carries only messages, T1) see what a server writes after its
//! Nth request, which no other case's few requests reach.

use serde_json::Value;

use super::support::show;
use crate::core::case::case;
use crate::core::model::{Check, CheckResult, Level};
use crate::mcp::ctx::Ctx;
use crate::mcp::gate::Case;
use crate::mcp::profile::Levels;

/// Requests sent after the handshake: well past the 5 to 8 any other case sends.
pub const REQUESTS: usize = 32;

/// The cases of this section.
pub const CASES: &[Case] = &[
    case!("jsonrpc/long-connection", "JSON-RPC 2.0 §5 (\"the Server MUST reply with a Response\")", Levels::all(Level::Must), Server,
        "32 read-only requests on one connection (the declared listings, else ping) are each answered once, under their ids; what the server writes meanwhile is held to the cross-cutting rules",
        long_connection[], 2),
];

async fn long_connection(ctx: Ctx) -> CheckResult {
    // The listings the server declares, in turn; ping only when it declares none (the ping
    // cases grade ping's own answers, so a ping defect does not show here twice).
    let caps = ctx.discovery.init.get("capabilities");
    let methods: Vec<&str> = [
        ("tools", "tools/list"),
        ("resources", "resources/list"),
        ("prompts", "prompts/list"),
    ]
    .into_iter()
    .filter(|(cap, _)| caps.and_then(|c| c.get(cap)).is_some())
    .map(|(_, m)| m)
    .collect();
    let methods = if methods.is_empty() {
        vec!["ping"]
    } else {
        methods
    };
    let mut c = ctx.session().await?;
    for (i, method) in methods.iter().cycle().take(REQUESTS).enumerate() {
        let answer = c.request(method, None).await?;
        // An answer without result or error is no valid message: T1 grades it, once.
        super::support::well_formed(&answer, method)?;
        if answer.get("result").is_none() && answer.get("error").is_none_or(Value::is_null) {
            return Err(Check::fail(
                format!("a response to request {} of {REQUESTS} ({method})", i + 1),
                show(&answer),
            ));
        }
    }
    Ok(Check::Pass)
}
