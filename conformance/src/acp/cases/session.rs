//! Sessions: `session/new` (absolute `cwd`, required `mcpServers`), unique ids, several prompts
//! in one session, `session/set_mode`, and `session/load` only when `loadSession` is advertised
//! (schema NewSessionRequest / NewSessionResponse / SetSessionModeRequest / LoadSessionRequest;
//! docs session-setup, session-modes).

use serde_json::{Value, json};

use crate::acp::ctx::Ctx;
use crate::acp::driver::{Agent, Caps, needs_account};
use crate::acp::gate::AcpCase;
use crate::acp::schema::conforms;
use crate::core::case::case;
use crate::core::checks::show;
use crate::core::client::error_code;
use crate::core::model::{Check, CheckResult, Gap, Level};

/// The cases of this section.
pub const CASES: &[AcpCase] = &[
    case!(
        "session/new/absolute-cwd",
        "schema NewSessionResponse; docs session-setup#creating-a-session",
        Level::Must,
        Server,
        "session/new with an absolute cwd and mcpServers: [] returns a result with a string sessionId",
        new_absolute[]
    ),
    case!(
        "session/new/relative-cwd",
        "schema NewSessionRequest.cwd (\"Must be an absolute path\"); JSON-RPC -32602",
        Level::Should,
        Server,
        "session/new with a relative cwd is refused with -32602 (invalid params), not accepted",
        new_relative[]
    ),
    case!(
        "session/new/missing-mcp-servers",
        "schema NewSessionRequest (mcpServers required); JSON-RPC -32602",
        Level::Should,
        Server,
        "session/new without mcpServers is refused with -32602 (invalid params), not accepted",
        new_without_mcp[]
    ),
    case!(
        "session/new/unique-ids",
        "docs session-setup#session-id (a unique id per session)",
        Level::Must,
        Server,
        "two session/new calls on one agent return two different sessionIds",
        unique_ids[]
    ),
    case!(
        "session/several-prompts",
        "docs prompt-turn (a session carries a conversation of several turns)",
        Level::Must,
        Server,
        "two prompts in a row in one session each end with a stopReason",
        several_prompts[],
        2
    ),
    case!(
        "session/set-mode",
        "schema SetSessionModeRequest; docs session-modes#setting-the-current-mode",
        Level::Must,
        Server,
        "session/set_mode to a mode the session advertised (modes.availableModes) is answered with a result",
        set_mode[]
    ),
    case!(
        "session/set-mode-unknown",
        "docs session-modes (modeId MUST be one of availableModes); JSON-RPC -32602",
        Level::Should,
        Server,
        "session/set_mode to a mode the session did not advertise is refused with an error",
        set_mode_unknown[]
    ),
    case!(
        "session/load/unadvertised",
        "docs session-setup#loading-sessions (only with the loadSession capability)",
        Level::Should,
        Server,
        "without loadSession advertised, session/load is refused with an error",
        load_unadvertised[]
    ),
    case!(
        "session/load/advertised",
        "schema LoadSessionRequest / LoadSessionResponse; docs session-setup#loading-sessions",
        Level::Must,
        Server,
        "with loadSession advertised, session/load of a session the agent created is answered with a result",
        load_advertised[]
    ),
];

async fn new_absolute(ctx: Ctx) -> CheckResult {
    let mut agent = ctx.started(Caps::NONE).await?;
    let answer = ctx
        .handshake(agent.new_session_raw(json!({"cwd": ctx.cwd(), "mcpServers": []})))
        .await?;
    if let Some(skip) = needs_account(&answer) {
        return Err(skip);
    }
    let Some(result) = answer.get("result") else {
        return Err(Check::fail("a session/new result", show(&answer)));
    };
    conforms("NewSessionResponse", result, "the session/new result")?;
    Ok(Check::Pass)
}

/// Grades an answer that should be an invalid-params refusal.
fn refused_with_invalid_params(answer: &Value, what: &str) -> CheckResult {
    if let Some(code) = error_code(answer) {
        if code == mcp_wire::code::INVALID_PARAMS {
            return Ok(Check::Pass);
        }
        if needs_account(answer).is_some() {
            return Err(Check::ungraded(
                Gap::Account,
                format!(
                    "the agent answered {code} (it needs an account), so whether it validates {what} \
                 cannot be seen"
                ),
            ));
        }
        return Err(Check::fail(
            format!("error -32602 for {what}"),
            format!("error {code}: {}", show(answer)),
        ));
    }
    Err(Check::fail(
        format!("error -32602 for {what}"),
        format!("accepted: {}", show(answer)),
    ))
}

async fn new_relative(ctx: Ctx) -> CheckResult {
    let mut agent = ctx.started(Caps::NONE).await?;
    let answer = ctx
        .handshake(agent.new_session_raw(json!({"cwd": "relative/dir", "mcpServers": []})))
        .await?;
    refused_with_invalid_params(&answer, "a relative cwd")
}

async fn new_without_mcp(ctx: Ctx) -> CheckResult {
    let mut agent = ctx.started(Caps::NONE).await?;
    let answer = ctx
        .handshake(agent.new_session_raw(json!({"cwd": ctx.cwd()})))
        .await?;
    refused_with_invalid_params(&answer, "a missing mcpServers")
}

async fn unique_ids(ctx: Ctx) -> CheckResult {
    let (mut agent, first) = ctx.session(Caps::NONE).await?;
    let second = ctx.handshake(agent.new_session(&ctx.cwd())).await?;
    if first == second {
        return Err(Check::fail(
            "two different sessionIds",
            format!("both sessions are {first:?}"),
        ));
    }
    Ok(Check::Pass)
}

async fn several_prompts(ctx: Ctx) -> CheckResult {
    let (mut agent, session) = ctx.session(Caps::NONE).await?;
    for n in 1..=2 {
        let turn = agent
            .prompt(
                &session,
                Agent::text(&format!("Prompt {n} of 2: say hello.")),
            )
            .await?;
        let expected = format!("prompt {n} of 2 to end with a stopReason");
        turn.ended(expected.clone())?;
        if turn.stop_reason().is_none() {
            return Err(Check::fail(expected, show(&turn.answer)));
        }
    }
    Ok(Check::Pass)
}

/// A session and its advertised modes `(current, available ids)`, or a skip.
async fn with_modes(ctx: &Ctx) -> Result<(Agent, String, String, Vec<String>), Check> {
    let mut agent = ctx.started(Caps::NONE).await?;
    let result = ctx.handshake(agent.new_session_result(&ctx.cwd())).await?;
    let session = result["sessionId"].as_str().unwrap_or_default().to_owned();
    let ids: Vec<String> = result
        .pointer("/modes/availableModes")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|m| m.get("id").and_then(Value::as_str).map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    if ids.is_empty() {
        return Err(Check::skip(
            "the session advertises no modes (modes.availableModes)",
        ));
    }
    let current = result
        .pointer("/modes/currentModeId")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    Ok((agent, session, current, ids))
}

async fn set_mode(ctx: Ctx) -> CheckResult {
    let (mut agent, session, current, ids) = with_modes(&ctx).await?;
    let target = ids
        .iter()
        .find(|m| **m != current)
        .unwrap_or(&ids[0])
        .clone();
    let answer = agent
        .client
        .request(
            "session/set_mode",
            Some(json!({"sessionId": session, "modeId": target})),
        )
        .await?;
    if answer.get("result").is_some() {
        Ok(Check::Pass)
    } else {
        Err(Check::fail(
            format!("a result for session/set_mode to the advertised mode {target:?}"),
            show(&answer),
        ))
    }
}

async fn set_mode_unknown(ctx: Ctx) -> CheckResult {
    let (mut agent, session, _, _) = with_modes(&ctx).await?;
    let answer = agent
        .client
        .request(
            "session/set_mode",
            Some(json!({"sessionId": session, "modeId": "acp-conformance-no-such-mode"})),
        )
        .await?;
    if answer.get("error").is_some() {
        Ok(Check::Pass)
    } else {
        Err(Check::fail(
            "an error for a modeId the session did not advertise",
            format!("accepted: {}", show(&answer)),
        ))
    }
}

fn advertises_load(agent: &Agent) -> bool {
    agent
        .init
        .pointer("/agentCapabilities/loadSession")
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

async fn load_unadvertised(ctx: Ctx) -> CheckResult {
    let (mut agent, session) = ctx.session(Caps::NONE).await?;
    if advertises_load(&agent) {
        return Err(Check::skip("the agent advertises loadSession"));
    }
    let answer = agent
        .client
        .request(
            "session/load",
            Some(json!({"sessionId": session, "cwd": ctx.cwd(), "mcpServers": []})),
        )
        .await?;
    if answer.get("error").is_some() {
        Ok(Check::Pass)
    } else {
        Err(Check::fail(
            "an error: session/load without the loadSession capability",
            format!("accepted: {}", show(&answer)),
        ))
    }
}

async fn load_advertised(ctx: Ctx) -> CheckResult {
    let (mut agent, session) = ctx.session(Caps::NONE).await?;
    if !advertises_load(&agent) {
        return Err(Check::skip("the agent does not advertise loadSession"));
    }
    // A fresh agent process loads the session the first one created, as a client would.
    let mut second = ctx.started(Caps::NONE).await?;
    let answer = second
        .client
        .request(
            "session/load",
            Some(json!({"sessionId": session, "cwd": ctx.cwd(), "mcpServers": []})),
        )
        .await?;
    drop(agent.client.take_seen());
    if let Some(skip) = needs_account(&answer) {
        return Err(skip);
    }
    match answer.get("result") {
        Some(r) => {
            conforms("LoadSessionResponse", r, "the session/load result")?;
            Ok(Check::Pass)
        }
        // An agent may have nothing stored for a session without a turn: reported, not held
        // against it (the runner cannot tell that from a defect).
        None => Err(Check::note(
            "a session/load result for a session created by another process of the agent",
            format!(
                "{} (a session without a turn may have nothing to load)",
                show(&answer)
            ),
        )),
    }
}
