//! A prompt turn: `session/prompt {sessionId, prompt: ContentBlock[]}` ends with a `stopReason`
//! of the enum, and every `session/update` has the session's id and a `sessionUpdate` variant
//! with its required fields (schema PromptResponse, SessionNotification, SessionUpdate,
//! ToolCall, ToolCallUpdate, Plan, AvailableCommandsUpdate; docs prompt-turn).

use serde_json::Value;

use crate::acp::ctx::Ctx;
use crate::acp::driver::{Agent, Caps, Turn};
use crate::acp::gate::AcpCase;
use crate::acp::schema::conforms;
use crate::acp::schema::known_update_variants;
use crate::core::case::case;
use crate::core::checks::show;
use crate::core::model::{Check, CheckResult, Gap, Level};

/// The cases of this section.
pub const CASES: &[AcpCase] = &[
    case!(
        "prompt/stop-reason",
        "schema PromptResponse.stopReason (StopReason enum); docs prompt-turn#stop-reasons",
        Level::Must,
        Server,
        "a text prompt ends with a result whose stopReason is one of the enum",
        stop_reason[]
    ),
    case!(
        "prompt/update-shape",
        "schema SessionNotification / SessionUpdate (plan, available_commands_update, chunks …)",
        Level::Must,
        Server,
        "every session/update of a turn (tool calls included) carries the session's sessionId, and every one but a tool call's a sessionUpdate variant with its required fields (tool calls: prompt/tool-call-shape; unknown variants are not graded)",
        update_shape[]
    ),
    case!(
        "prompt/tool-call-shape",
        "schema ToolCall / ToolCallUpdate (toolCallId, title; kind, status enums); docs tool-calls",
        Level::Must,
        Server,
        "every tool_call and tool_call_update of a turn has the schema's shape (its update; the notification's sessionId is prompt/update-shape's)",
        tool_call_shape[]
    ),
];

/// One turn of a fresh session, with `fs/*` advertised and served.
pub async fn one_turn(ctx: &Ctx) -> Result<(Agent, String, Turn), Check> {
    let (mut agent, session) = ctx.session(Caps::FS).await?;
    let turn = agent
        .prompt(
            &session,
            Agent::text("Hello from acp-conformance. Read README.txt and say hello."),
        )
        .await?;
    Ok((agent, session, turn))
}

async fn stop_reason(ctx: Ctx) -> CheckResult {
    let (_agent, _, turn) = one_turn(&ctx).await?;
    // A result without a stopReason is named as such (blocked by this very case, which the
    // runner turns into this case's failure).
    turn.ended("a session/prompt result with a stopReason of the StopReason enum")?;
    let Some(result) = turn.answer.get("result") else {
        return Err(Check::fail(
            "a session/prompt result with a stopReason",
            show(&turn.answer),
        ));
    };
    conforms("PromptResponse", result, "the session/prompt result")?;
    Ok(Check::Pass)
}

fn variant(update: &Value) -> Option<&str> {
    update
        .pointer("/update/sessionUpdate")
        .and_then(Value::as_str)
}

fn is_tool(update: &Value) -> bool {
    matches!(variant(update), Some("tool_call" | "tool_call_update"))
}

/// Grades the notification of every update: the session's id, then (for those `shaped`
/// selects) the variant's schema for known variants. The session id is the notification's,
/// not the variant's: prompt/update-shape grades it on every update, tool calls included.
fn grade_updates(turn: &Turn, session: &str, shaped: fn(&Value) -> bool) -> CheckResult {
    let known = known_update_variants();
    for u in &turn.updates {
        if u.get("sessionId").and_then(Value::as_str) != Some(session) {
            return Err(Check::fail(
                format!("sessionId {session:?} on every session/update"),
                show(u),
            ));
        }
        if !shaped(u) {
            continue;
        }
        match variant(u) {
            None => {
                return Err(Check::fail(
                    "update.sessionUpdate naming the variant",
                    show(u),
                ));
            }
            Some(v) if known.iter().any(|k| k == v) => {
                conforms("SessionNotification", u, &format!("a {v} session/update"))?;
            }
            // Unknown variants are the protocol's extension room: clients ignore them.
            Some(_) => {}
        }
    }
    Ok(Check::Pass)
}

async fn update_shape(ctx: Ctx) -> CheckResult {
    let (_agent, session, turn) = one_turn(&ctx).await?;
    grade_updates(&turn, &session, |u| !is_tool(u))
}

/// The subject is the tool call's own fields (schema ToolCall / ToolCallUpdate, through the
/// SessionUpdate variant): the notification around it (its sessionId) is prompt/update-shape's,
/// so an update without its session's id is one defect with one verdict.
async fn tool_call_shape(ctx: Ctx) -> CheckResult {
    let (_agent, _, turn) = one_turn(&ctx).await?;
    let mut tools = turn.updates.iter().filter(|u| is_tool(u)).peekable();
    if tools.peek().is_none() {
        return Err(Check::ungraded(
            Gap::NotExercised,
            "the turn had no tool_call or tool_call_update",
        ));
    }
    for u in tools {
        let update = u.get("update").unwrap_or(&Value::Null);
        let v = variant(u).unwrap_or_default();
        conforms(
            "SessionUpdate",
            update,
            &format!("a {v} session/update's update"),
        )?;
    }
    Ok(Check::Pass)
}
