//! stdout carries only ACP messages (docs: transports, stdio: "The agent MUST NOT write
//! anything to its stdout that is not a valid ACP message"), over a whole session: handshake,
//! a prompt turn when the agent can run one.

use crate::acp::ctx::Ctx;
use crate::acp::driver::{Agent, Caps};
use crate::core::case::case;
use crate::core::model::{Check, CheckResult, Level};

use crate::acp::gate::AcpCase;

/// The cases of this section.
pub const CASES: &[AcpCase] = &[case!(
    "stdout/protocol-only",
    "docs transports#stdio: stdout only ACP messages (MUST)",
    Level::Must,
    Server,
    "every stdout line of a session (initialize, session/new, a prompt turn) is one JSON-RPC message",
    protocol_only[],
    2
)];

async fn protocol_only(ctx: Ctx) -> CheckResult {
    let mut agent = ctx.started(Caps::NONE).await?;
    // A session and a turn when the agent can run them; an agent that needs an account still
    // had its handshake's stdout checked.
    if let Ok(session) = ctx.handshake(agent.new_session(&ctx.cwd())).await {
        let _ = agent.prompt(&session, Agent::text("Say hello.")).await;
    }
    let _ = agent.take_turn(std::time::Duration::from_millis(100)).await;
    let problems = agent.client.stdout_problems();
    if problems.is_empty() {
        Ok(Check::Pass)
    } else {
        Err(Check::fail(
            "only JSON-RPC messages on stdout, one per line",
            problems.join("; "),
        ))
    }
}
