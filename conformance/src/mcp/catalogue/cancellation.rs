//! Cancellation (MCP basic/utilities/cancellation; contract T7): receivers SHOULD NOT answer a
//! cancelled request; a provider's cancelled run becomes `cancelled`.

use std::time::Duration;

use serde_json::{Value, json};

use super::run_session::Runs;
use super::support::{SILENCE, ensure, send_bad_line, show, str_at};
use crate::core::case::case;
use crate::core::client::is_response_to;
use crate::core::model::{Check, CheckResult, Level};
use crate::mcp::ctx::Ctx;
use crate::mcp::gate::Case;
use crate::mcp::profile::{Levels, Profile};
use crate::mcp::roles::Role;

/// How long a call is left in flight before it is cancelled, at most: the cancel goes as soon
/// as the call's run has a native process ([`Runs::native_started`]).
const IN_FLIGHT: Duration = Duration::from_millis(500);

/// The cases of this section.
pub const CASES: &[Case] = &[
    case!("cancellation/unknown-request", "T7", Levels::all(Level::Must), Server,
        "notifications/cancelled naming no in-flight request is ignored: no answer, the server keeps serving",
        unknown_request[]),
    case!(
        "cancellation/in-flight/no-response",
        "T7",
        Levels::CONTRACT_MUST,
        Fake,
        "A cancelled in-flight tools/call gets no response (MCP: receivers SHOULD NOT answer it)",
        in_flight[false],
        3; cost_ms 1600
    ),
    case!(
        "cancellation/in-flight/run-cancelled",
        "T7",
        Levels::PROVIDER_ONLY,
        Fake,
        "The run of a cancelled claude.run call reads as cancelled through claude.run.list",
        in_flight[true],
        3; cost_ms 1000
    ),
];

async fn unknown_request(ctx: Ctx) -> CheckResult {
    let mut c = ctx.session().await?;
    c.notify(
        "notifications/cancelled",
        Some(json!({"requestId": 987_654_321, "reason": "mcp-conformance"})),
    )
    .await?;
    let answers = send_bad_line(&mut c, b"").await?;
    ensure(
        answers.is_empty(),
        "no answer",
        answers.iter().map(show).collect::<Vec<_>>().join(" | "),
    )?;
    Ok(Check::Pass)
}

async fn in_flight(ctx: Ctx, check_run: bool) -> CheckResult {
    // Only a provider driven by fake-claude has a request known to take a while; a provider
    // without a run tool fails (TOOL-1) below rather than skipping.
    if ctx.profile != Profile::Provider && ctx.roles().name(Role::Run).is_none() {
        return Err(Check::skip(
            "no request known to stay in flight on this server",
        ));
    }
    let mut r = Runs::open(&ctx).await?;
    let name = ctx.role(Role::Run)?;
    let params = json!({"name": name, "arguments": {"prompt": r.prompt("hang-before-final"), "timeout_s": 30}});
    let id = r.c.send_request("tools/call", Some(params)).await?;
    // In flight means taken up: the run started (a process of its own), not merely written.
    r.native_started(IN_FLIGHT).await;
    r.c.notify(
        "notifications/cancelled",
        Some(json!({"requestId": id, "reason": "mcp-conformance"})),
    )
    .await?;
    if !check_run {
        let frames = r.c.collect(SILENCE * 2).await?;
        let answered: Vec<Value> = frames
            .iter()
            .filter_map(|f| f.json().cloned())
            .filter(|m| is_response_to(m, &id))
            .collect();
        ensure(
            answered.is_empty(),
            "no response to the cancelled request",
            answered.iter().map(show).collect::<Vec<_>>().join(" | "),
        )?;
        let ping = r.c.request("ping", None).await?;
        ensure(
            ping.get("result").is_some(),
            "the server keeps serving",
            show(&ping),
        )?;
        return Ok(Check::Pass);
    }
    // T7: the run stays readable as cancelled.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10).min(r.c.remaining());
    loop {
        let runs = r.list().await?;
        let states: Vec<&str> = runs.iter().filter_map(|e| str_at(e, "state")).collect();
        if states == ["cancelled"] {
            return Ok(Check::Pass);
        }
        if tokio::time::Instant::now() >= deadline {
            return Err(Check::fail(
                "one run, state cancelled",
                show(&Value::Array(runs)),
            ));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
