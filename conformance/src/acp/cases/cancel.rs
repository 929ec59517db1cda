//! `session/cancel` mid-turn: the pending prompt answers `stopReason: "cancelled"` within a bound,
//! also when a permission request is pending (docs prompt-turn#cancellation: "the Agent MUST …
//! respond to the original session/prompt request with the cancelled stop reason"). The runner
//! cancels as ACP's client must: every permission request still pending is answered `cancelled`
//! after the `session/cancel` ([`Agent::cancel`]).

use std::time::Duration;

use serde_json::Value;

use crate::acp::ctx::Ctx;
use crate::acp::driver::{
    Agent, Caps, needs_account, outside_the_enum, unanswered, without_stop_reason,
};
use crate::acp::gate::AcpCase;
use crate::acp::responder::Permission;
use crate::core::case::case;
use crate::core::checks::show;
use crate::core::model::{Check, CheckResult, Gap, Level};

/// How long after `session/cancel` the `cancelled` answer may take.
pub const CANCEL_BOUND: Duration = Duration::from_secs(5);
/// A turn shorter than this (uncancelled) is too short to cancel without racing its own end:
/// the case is a skip, whatever the machine's load did to it.
const SHORTEST: Duration = Duration::from_millis(1500);

/// The cases of this section.
pub const CASES: &[AcpCase] = &[
    case!(
        "cancel/mid-turn",
        "docs prompt-turn#cancellation (MUST answer stopReason cancelled); schema CancelNotification",
        Level::Must,
        Server,
        "session/cancel sent a third into a turn (of one that takes 1.5 s or more uncancelled) makes the prompt answer stopReason \"cancelled\" within 5 s",
        mid_turn[],
        3
    ),
    case!(
        "cancel/pending-permission",
        "docs prompt-turn#cancellation (the client answers pending permission requests cancelled; the agent still answers cancelled)",
        Level::Must,
        Server,
        "session/cancel while a permission request is pending, that request answered cancelled, makes the prompt answer stopReason \"cancelled\" within 5 s",
        pending_permission[],
        2
    ),
];

/// No answer within 5 s of the cancel. An agent that answers no prompt at all fails
/// prompt/stop-reason, and this case is blocked by it; one that answers prompts but not a
/// cancelled one fails here.
fn never_answered() -> Check {
    unanswered(Check::fail(
        "the prompt answered stopReason \"cancelled\" within 5 s of session/cancel",
        "no answer within 5 s",
    ))
}

/// Sends the cancel and grades the prompt's answer.
async fn cancel_and_grade(agent: &mut Agent, session: &str, id: &Value) -> CheckResult {
    agent.cancel(session).await?;
    let Some(answer) = agent
        .answer_within(id, "session/prompt after session/cancel", CANCEL_BOUND)
        .await?
    else {
        return Err(never_answered());
    };
    let expected = "a result with stopReason \"cancelled\" (not an error, not another reason)";
    without_stop_reason(&answer, expected)?;
    outside_the_enum(&answer, expected)?;
    match answer.pointer("/result/stopReason").and_then(Value::as_str) {
        Some("cancelled") => Ok(Check::Pass),
        _ => Err(Check::fail(expected, show(&answer))),
    }
}

async fn mid_turn(ctx: Ctx) -> CheckResult {
    let (mut agent, session) = ctx.session(Caps::NONE).await?;
    // A first turn, uncancelled, measures how long a turn takes: a cancel is sent a third of
    // that into the second, so a fast agent's answer never races the cancel (a turn that ends
    // in a few milliseconds cannot be cancelled, and that is no defect).
    let started = std::time::Instant::now();
    let prompt = Agent::text("Hello from acp-conformance: take your time.");
    let first = agent.prompt(&session, prompt.clone()).await?;
    let took = started.elapsed();
    if took < SHORTEST {
        return Err(Check::ungraded(
            Gap::NotExercised,
            format!(
                "an uncancelled turn took {} ms ({}): too short to cancel mid-turn",
                took.as_millis(),
                first.stop_reason().map_or_else(
                    || "no stopReason".to_owned(),
                    |r| format!("stopReason {r:?}")
                )
            ),
        ));
    }
    // Hold permission requests: an answer could end the turn before the cancel. The cancel
    // answers them `cancelled`, as ACP's client must: an agent may wait for that answer before it
    // answers the prompt.
    agent.permission(Permission::Hold);
    let id = agent.send_prompt(&session, prompt).await?;
    if let Some(answer) = agent.answer_within(&id, "session/prompt", took / 3).await? {
        return Err(Check::ungraded(
            Gap::NotExercised,
            format!(
                "the second turn ended within {} ms, before the cancel: {}",
                (took / 3).as_millis(),
                show(&answer)
            ),
        ));
    }
    cancel_and_grade(&mut agent, &session, &id).await
}

async fn pending_permission(ctx: Ctx) -> CheckResult {
    let (mut agent, session) = ctx.session(Caps::NONE).await?;
    agent.permission(Permission::Hold);
    let id = agent
        .send_prompt(
            &session,
            Agent::text("Hello from acp-conformance: edit a file."),
        )
        .await?;
    loop {
        if agent.request_seen("session/request_permission").is_some() {
            break;
        }
        // A turn that neither asks nor ends before the case's deadline never answered its
        // prompt: prompt/stop-reason's defect, not this case's.
        if let Some(answer) = agent
            .answer_within(&id, "session/prompt", Duration::from_millis(100))
            .await
            .map_err(unanswered)?
        {
            if let Some(skip) = needs_account(&answer) {
                return Err(skip);
            }
            return Err(Check::ungraded(
                Gap::NotExercised,
                "the turn asked no permission (session/request_permission) before it ended",
            ));
        }
    }
    agent.cancel(&session).await?;
    let Some(answer) = agent
        .answer_within(&id, "session/prompt after session/cancel", CANCEL_BOUND)
        .await?
    else {
        return Err(never_answered());
    };
    let expected = "a result with stopReason \"cancelled\"";
    without_stop_reason(&answer, expected)?;
    outside_the_enum(&answer, expected)?;
    match answer.pointer("/result/stopReason").and_then(Value::as_str) {
        Some("cancelled") => Ok(Check::Pass),
        _ => Err(Check::fail(expected, show(&answer))),
    }
}
