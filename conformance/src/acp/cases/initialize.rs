//! `initialize`: integer `protocolVersion` negotiation, the shape of `agentCapabilities` and
//! `authMethods` (schema `InitializeResponse`; docs initialization#version-negotiation).

use serde_json::{Value, json};

use crate::acp::ctx::Ctx;
use crate::acp::driver::{Caps, PROTOCOL_VERSION};
use crate::acp::gate::AcpCase;
use crate::acp::schema::conforms;
use crate::core::case::case;
use crate::core::checks::show;
use crate::core::model::{Check, CheckResult, Level};

/// The cases of this section.
pub const CASES: &[AcpCase] = &[
    case!(
        "initialize/protocol-version",
        "schema InitializeResponse.protocolVersion; docs initialization (MUST answer the same version when supported)",
        Level::Must,
        Server,
        "initialize proposing version 1 is answered with a result whose protocolVersion is the integer 1",
        protocol_version[]
    ),
    case!(
        "initialize/version-newer",
        "docs initialization#version-negotiation (MUST answer the latest supported version)",
        Level::Must,
        Server,
        "a proposal of version 999 (no agent supports it) is answered with a supported integer version, not an echo or an error",
        version_newer[]
    ),
    case!(
        "initialize/agent-capabilities",
        "schema AgentCapabilities",
        Level::Must,
        Server,
        "agentCapabilities (when present) has the schema's shape: loadSession, promptCapabilities, mcpCapabilities booleans",
        agent_capabilities[]
    ),
    case!(
        "initialize/auth-methods",
        "schema AuthMethod",
        Level::Must,
        Server,
        "authMethods (when present) is an array of {id, name} auth methods",
        auth_methods[]
    ),
];

async fn result_of_init(ctx: &Ctx, version: Value) -> Result<Value, Check> {
    let mut agent = ctx.spawn(Caps::NONE)?;
    let answer = ctx
        .first_answer(agent.initialize_raw(Caps::NONE, version))
        .await?;
    match answer.get("result") {
        Some(r) if r.is_object() => Ok(r.clone()),
        _ => Err(Check::fail("an initialize result object", show(&answer))),
    }
}

async fn protocol_version(ctx: Ctx) -> CheckResult {
    let result = result_of_init(&ctx, json!(PROTOCOL_VERSION)).await?;
    match result.get("protocolVersion") {
        Some(v) if v.as_u64() == Some(PROTOCOL_VERSION) => Ok(Check::Pass),
        other => Err(Check::fail(
            "protocolVersion 1 (an integer: the version proposed, which the agent supports)",
            other.map_or_else(|| "no protocolVersion".to_owned(), show),
        )),
    }
}

async fn version_newer(ctx: Ctx) -> CheckResult {
    // The handshake with version 1 is graded by initialize/protocol-version.
    let mut agent = ctx.spawn(Caps::NONE)?;
    let answer = ctx
        .first_answer(agent.initialize_raw(Caps::NONE, json!(999)))
        .await?;
    let Some(result) = answer.get("result").filter(|r| r.is_object()) else {
        return Err(Check::fail(
            "a result with the latest version the agent supports (not an error)",
            show(&answer),
        ));
    };
    match result.get("protocolVersion").and_then(Value::as_u64) {
        Some(v) if v != 999 && v >= 1 => Ok(Check::Pass),
        Some(999) => Err(Check::fail(
            "the latest version the agent supports (1)",
            "protocolVersion 999: the proposal echoed, a version no agent supports",
        )),
        _ => Err(Check::fail(
            "an integer protocolVersion the agent supports",
            show(result),
        )),
    }
}

async fn agent_capabilities(ctx: Ctx) -> CheckResult {
    let result = result_of_init(&ctx, json!(PROTOCOL_VERSION)).await?;
    match result.get("agentCapabilities") {
        None => Ok(Check::Pass),
        Some(caps) => {
            conforms("AgentCapabilities", caps, "agentCapabilities")?;
            Ok(Check::Pass)
        }
    }
}

async fn auth_methods(ctx: Ctx) -> CheckResult {
    let result = result_of_init(&ctx, json!(PROTOCOL_VERSION)).await?;
    match result.get("authMethods") {
        None => Ok(Check::Pass),
        Some(Value::Array(methods)) => {
            for m in methods {
                conforms("AuthMethod", m, "each authMethods entry")?;
            }
            Ok(Check::Pass)
        }
        Some(other) => Err(Check::fail("authMethods as an array", show(other))),
    }
}
