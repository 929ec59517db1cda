//! Exit on stdin EOF (docs transports#stdio: the client closes stdin to end the agent; an agent
//! SHOULD exit then). Cursor's agent never exits after a turn: a warning.

use std::time::Duration;

use crate::acp::ctx::Ctx;
use crate::acp::driver::{Agent, Caps};
use crate::acp::gate::AcpCase;
use crate::core::case::case;
use crate::core::model::{Check, CheckResult, Level};

/// How long after EOF the agent may take to exit, plus twice its measured start (spawn to the
/// `initialize` answer): on a loaded machine an exit is slow in the same measure as a start.
pub const EXIT_BOUND: Duration = Duration::from_secs(3);

/// The cases of this section.
pub const CASES: &[AcpCase] = &[
    case!(
        "exit/eof-idle",
        "docs transports#stdio (the client ends the agent by closing stdin; SHOULD exit)",
        Level::Should,
        Server,
        "after initialize, the agent exits within 3 s (plus twice its start) of stdin EOF",
        eof_idle[]; exclusive true
    ),
    case!(
        "exit/eof-after-turn",
        "docs transports#stdio (SHOULD exit on EOF, also after a turn)",
        Level::Should,
        Server,
        "after a prompt turn, the agent exits within 3 s (plus twice its start) of stdin EOF",
        eof_after_turn[],
        2; exclusive true
    ),
];

async fn exits(agent: &mut Agent, when: &str) -> CheckResult {
    agent.client.close_stdin();
    let bound = EXIT_BOUND + agent.client.start_latency() * 2;
    match agent.client.wait_exit(bound).await {
        Some(_) => Ok(Check::Pass),
        None => Err(Check::fail(
            format!(
                "exit within {} ms of stdin EOF {when} (3 s plus twice the agent's start)",
                bound.as_millis()
            ),
            "still running (the client must kill its process group)",
        )),
    }
}

async fn eof_idle(ctx: Ctx) -> CheckResult {
    let mut agent = ctx.started(Caps::NONE).await?;
    exits(&mut agent, "when idle").await
}

async fn eof_after_turn(ctx: Ctx) -> CheckResult {
    let (mut agent, session) = ctx.session(Caps::NONE).await?;
    agent
        .prompt(&session, Agent::text("Hello from acp-conformance."))
        .await?;
    exits(&mut agent, "after a turn").await
}
