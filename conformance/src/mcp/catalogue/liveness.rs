//! Liveness after bad input (T4: after any bad input the server keeps serving; nothing already
//! accepted is lost).

use serde_json::json;

use super::support::{ensure, result_of, send_bad_line, show};
use crate::core::case::case;
use crate::core::client::is_response_to;
use crate::core::model::{Check, CheckResult};
use crate::mcp::ctx::Ctx;
use crate::mcp::gate::Case;
use crate::mcp::profile::Levels;

/// The cases of this section.
pub const CASES: &[Case] = &[
    case!("liveness/after-malformed", "T4", Levels::KIT_ONLY, Server,
        "After a burst of malformed and invalid lines the server still answers ping",
        after_malformed[]),
    case!("liveness/after-oversized", "T4", Levels::KIT_ONLY, Server,
        "After a 64 MiB line the server still answers ping",
        after_oversized[], 6; cost_ms 700),
    case!("liveness/in-flight-kept", "T4", Levels::KIT_ONLY, Server,
        "A request sent just before a malformed line is still answered",
        in_flight_kept[]),
];

async fn after_malformed(ctx: Ctx) -> CheckResult {
    let mut c = ctx.session().await?;
    for line in [
        &b"{\n"[..],
        b"\xff\xff\xff\n",
        b"null\n",
        b"[1,2,3]\n",
        b"{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}\n",
        b"{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{}}\n",
        b"   \n",
        b"{\"jsonrpc\":\"2.0\",\"id\":91,\"method\":\"tools/call\",\"params\":\"x\"}\n",
    ] {
        c.send_raw(line).await?;
    }
    send_bad_line(&mut c, b"").await?;
    Ok(Check::Pass)
}

async fn after_oversized(ctx: Ctx) -> CheckResult {
    let mut c = ctx.session().await?;
    c.stream_huge_line(super::jsonrpc::HUGE_LINE_BYTES, || {})
        .await?;
    send_bad_line(&mut c, b"").await?;
    let answer = c.request("ping", None).await?;
    result_of(&answer, "a second ping")?;
    Ok(Check::Pass)
}

async fn in_flight_kept(ctx: Ctx) -> CheckResult {
    let mut c = ctx.session().await?;
    let id = json!("accepted-before-bad-line");
    c.send(&mcp_wire::request(&id, "ping", None)).await?;
    c.send_raw(b"{this is not json\n").await?;
    let answer = c
        .response_to(&id, "the request sent before the bad line")
        .await?;
    ensure(
        is_response_to(&answer, &id) && answer.get("result").is_some(),
        "its result",
        show(&answer),
    )?;
    Ok(Check::Pass)
}
