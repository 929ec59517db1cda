//! `session/request_permission`: the request's shape (options with `optionId`, `name`, `kind`),
//! and the agent accepting an echoed `optionId` and a `cancelled` outcome (schema
//! RequestPermissionRequest, PermissionOption, RequestPermissionOutcome; docs tool-calls#requesting-permission).

use crate::acp::ctx::Ctx;
use crate::acp::driver::{Agent, Caps, Turn};
use crate::acp::gate::AcpCase;
use crate::acp::responder::Permission;
use crate::core::case::case;
use crate::core::checks::show;
use crate::core::model::{Check, CheckResult, Gap, Level};

use crate::acp::schema::conforms;

/// The cases of this section.
pub const CASES: &[AcpCase] = &[
    case!(
        "permission/request-shape",
        "schema RequestPermissionRequest / PermissionOption (optionId, name, kind)",
        Level::Must,
        Server,
        "every session/request_permission of a turn has sessionId, toolCall and options with optionId, name and a kind of the enum",
        request_shape[]
    ),
    case!(
        "permission/selected-accepted",
        "schema RequestPermissionResponse (outcome selected, an offered optionId)",
        Level::Must,
        Server,
        "the turn ends with a stopReason when the client selects the offered allow_once option",
        selected_accepted[]
    ),
    case!(
        "permission/cancelled-accepted",
        "schema RequestPermissionOutcome (cancelled)",
        Level::Must,
        Server,
        "the turn ends with a stopReason (not an error) when the client answers a permission request cancelled",
        cancelled_accepted[]
    ),
];

async fn turn_with(ctx: &Ctx, p: Permission) -> Result<(Agent, Turn), Check> {
    let (mut agent, session) = ctx.session(Caps::NONE).await?;
    agent.permission(p);
    let turn = agent
        .prompt(
            &session,
            Agent::text("Hello from acp-conformance: edit notes.txt."),
        )
        .await?;
    Ok((agent, turn))
}

fn permission_requests(agent: &Agent) -> Result<Vec<serde_json::Value>, Check> {
    let found: Vec<_> = agent
        .state
        .requests()
        .into_iter()
        .filter(|r| crate::acp::schema::method_of(r) == Some("session/request_permission"))
        .collect();
    if found.is_empty() {
        Err(Check::ungraded(
            Gap::NotExercised,
            "the turn asked no permission (session/request_permission)",
        ))
    } else {
        Ok(found)
    }
}

async fn request_shape(ctx: Ctx) -> CheckResult {
    let (agent, _) = turn_with(&ctx, Permission::AllowOnce).await?;
    for r in permission_requests(&agent)? {
        let params = r.get("params").cloned().unwrap_or_default();
        conforms(
            "RequestPermissionRequest",
            &params,
            "session/request_permission params",
        )?;
    }
    Ok(Check::Pass)
}

async fn ends(ctx: Ctx, p: Permission, answered: &str) -> CheckResult {
    let (agent, turn) = turn_with(&ctx, p).await?;
    permission_requests(&agent)?;
    let expected = format!("a stopReason after the permission request was answered {answered}");
    turn.ended(expected.clone())?;
    if turn.stop_reason().is_some() {
        Ok(Check::Pass)
    } else {
        Err(Check::fail(expected, show(&turn.answer)))
    }
}

async fn selected_accepted(ctx: Ctx) -> CheckResult {
    ends(
        ctx,
        Permission::AllowOnce,
        "with the offered allow_once optionId",
    )
    .await
}

async fn cancelled_accepted(ctx: Ctx) -> CheckResult {
    ends(ctx, Permission::Cancelled, "cancelled").await
}
