//! JSON-RPC 2.0 under ACP: unknown methods `-32601`, unknown notifications ignored, a malformed
//! line `-32700` (silence is a warning, as for MCP), liveness after it, and ids of every legal
//! shape echoed exactly (JSON-RPC 2.0 §4, §5, §5.1; ACP docs overview: JSON-RPC 2.0).

use std::time::Duration;

use serde_json::{Value, json};

use crate::acp::ctx::Ctx;
use crate::acp::driver::{Caps, PROTOCOL_VERSION};
use crate::acp::gate::AcpCase;
use crate::core::case::case;
use crate::core::checks::{grade_error_answer, show};
use crate::core::client::{Frame, error_code};
use crate::core::model::{Check, CheckResult, Level};

/// The cases of this section.
pub const CASES: &[AcpCase] = &[
    case!(
        "jsonrpc/unknown-method",
        "JSON-RPC 2.0 §5.1 defines -32601 \"Method not found\" (\"The method does not exist / is not available\"; ACP schema ErrorCode the same) with no MUST; §5 \"the Server MUST reply with a Response\"",
        Level::Should,
        Server,
        "a request for a method ACP does not define (conformance/no-such-method) is answered -32601 (another error code warns; no answer fails)",
        unknown_method[]
    ),
    case!(
        "jsonrpc/unknown-ext-method",
        "docs extensibility#custom-requests (SHOULD answer Method not found)",
        Level::Should,
        Server,
        "an extension request the agent does not know (_conformance/no-such-method) is answered -32601",
        unknown_ext_method[]
    ),
    case!(
        "jsonrpc/unknown-notification",
        "JSON-RPC 2.0 §4.1 (no answer to a notification); docs extensibility (ignore unknown notifications)",
        Level::Must,
        Server,
        "an unknown notification gets no answer and the agent goes on serving",
        unknown_notification[]
    ),
    case!(
        "jsonrpc/malformed/parse-error",
        "JSON-RPC 2.0 §5.1 -32700 Parse error (id null)",
        Level::Should,
        Server,
        "a line that is not JSON is answered -32700 with id null (silence warns)",
        parse_error[]
    ),
    case!(
        "jsonrpc/malformed/alive",
        "JSON-RPC 2.0 §5 (a receiver answers every request)",
        Level::Must,
        Server,
        "after a line that is not JSON the agent still answers requests",
        alive_after_malformed[]
    ),
    case!(
        "jsonrpc/ids/string",
        "JSON-RPC 2.0 §5 (the response id is the request's)",
        Level::Must,
        Server,
        "initialize under a string id is answered under that exact id",
        id_string[]
    ),
    case!(
        "jsonrpc/ids/zero",
        "JSON-RPC 2.0 §5 (the response id is the request's)",
        Level::Must,
        Server,
        "initialize under id 0 is answered under id 0",
        id_zero[]
    ),
    case!(
        "jsonrpc/ids/negative",
        "JSON-RPC 2.0 §5 (the response id is the request's)",
        Level::Must,
        Server,
        "initialize under id -7 is answered under id -7",
        id_negative[]
    ),
    case!(
        "jsonrpc/ids/max-safe",
        "JSON-RPC 2.0 §5 (the response id is the request's)",
        Level::Must,
        Server,
        "initialize under id 9007199254740991 (2^53-1) is answered under that id",
        id_max_safe[]
    ),
    case!(
        "jsonrpc/response-ids",
        "JSON-RPC 2.0 §5 (exactly one Response per Request, under its id)",
        Level::Must,
        Crosscut,
        "every request of every case is answered once, under its id; no answer under an id the runner never sent",
        response_ids[]
    ),
];

/// The id rule over every exchange of every case ([`crate::acp::watch`]): the first offence
/// fails, with the case that saw it; no answer looked at skips.
async fn response_ids(ctx: Ctx) -> CheckResult {
    let (first, looked) = ctx.watch.result();
    match first {
        Some(f) => Err(Check::fail(
            "each request answered exactly once, under its id (JSON-RPC 2.0 §5)",
            format!("{} (first seen in {})", f.evidence, f.case),
        )),
        None if looked == 0 => Err(Check::skip("no response was read")),
        None => Ok(Check::Pass),
    }
}

/// The code of an unknown method's answer is graded at the case's level (neither JSON-RPC nor
/// ACP makes -32601 a MUST); no answer at all breaks JSON-RPC 2.0 §5's MUST ("When a rpc call
/// is made, the Server MUST reply with a Response"), whatever the case's level, as the MCP
/// gate's `jsonrpc/unknown-method` grades it.
async fn unknown(ctx: Ctx, method: &str) -> CheckResult {
    let mut agent = ctx.started(Caps::NONE).await?;
    let answer = agent
        .client
        .request(method, Some(json!({})))
        .await
        .map_err(|e| match Check::from(e) {
            Check::Fail { expected, actual } => Check::Violation {
                expected: format!(
                    "{expected} (JSON-RPC 2.0 §5: the Server MUST reply with a Response)"
                ),
                actual,
            },
            other => other,
        })?;
    match error_code(&answer) {
        Some(mcp_wire::code::METHOD_NOT_FOUND) => Ok(Check::Pass),
        _ => Err(Check::fail(
            format!(
                "error -32601 for {method} (JSON-RPC 2.0 §5.1: \"Method not found\", the code \
                 defined for a method that does not exist; no MUST requires it)"
            ),
            show(&answer),
        )),
    }
}

async fn unknown_method(ctx: Ctx) -> CheckResult {
    unknown(ctx, "conformance/no-such-method").await
}

async fn unknown_ext_method(ctx: Ctx) -> CheckResult {
    unknown(ctx, "_conformance/no-such-method").await
}

/// The case that grades a string id echoed as written: the probes of other cases use one.
const STRING_ID_CASE: &str = "jsonrpc/ids/string";

/// Sends a probe request under a string id and waits for any answer: the agent still serves.
/// A wait that runs out while an answer came under an id never sent is blocked by the id rule
/// ([`crate::core::client::ClientError::Timeout`]); as the probe's id is a string, that
/// mislabelled answer is [`STRING_ID_CASE`]'s subject instead (JSON-RPC 2.0 §5: the response
/// id is the request's, whatever its type): the case is blocked by it, and fails when that
/// case passes (one defect, one verdict).
async fn probe(agent: &mut crate::acp::driver::Agent, after: &str) -> Result<Value, Check> {
    let id = json!("probe-after");
    agent
        .client
        .send(&mcp_wire::request(
            &id,
            "conformance/probe",
            Some(json!({})),
        ))
        .await?;
    let reword = |c: Check| match c {
        Check::Fail { actual, .. } => Check::fail(
            format!("an answer (any) to a request sent after {after}"),
            actual,
        ),
        other => other,
    };
    agent
        .client
        .response_to(&id, &format!("a probe request sent after {after}"))
        .await
        .map_err(|e| match Check::from(e) {
            Check::Blocked { by, fallback } if by == crate::acp::watch::ID_RULE_CASE => {
                Check::blocked(STRING_ID_CASE, reword(*fallback))
            }
            other => reword(other),
        })
}

async fn unknown_notification(ctx: Ctx) -> CheckResult {
    let mut agent = ctx.started(Caps::NONE).await?;
    let _ = agent.client.take_seen();
    agent
        .client
        .notify("_conformance/notice", Some(json!({"hello": true})))
        .await?;
    probe(&mut agent, "an unknown notification").await?;
    let stray: Vec<Value> = agent
        .client
        .collect(Duration::from_millis(100))
        .await?
        .into_iter()
        .filter_map(|f| match f {
            Frame::Json(m) if m.get("method").is_none() => Some(m),
            _ => None,
        })
        .collect();
    if let Some(m) = stray.first() {
        return Err(Check::fail(
            "no answer to a notification",
            format!("answered: {}", show(m)),
        ));
    }
    Ok(Check::Pass)
}

async fn parse_error(ctx: Ctx) -> CheckResult {
    let mut agent = ctx.started(Caps::NONE).await?;
    let _ = agent.client.take_seen();
    agent
        .client
        .send_raw(b"{\"jsonrpc\": \"2.0\", \"id\": 5, \"method\"\n")
        .await?;
    let answers: Vec<Value> = agent
        .client
        .collect(Duration::from_millis(500))
        .await?
        .into_iter()
        .filter_map(|f| match f {
            Frame::Json(m) if m.get("method").is_none() => Some(m),
            _ => None,
        })
        .collect();
    match grade_error_answer(&answers, mcp_wire::code::PARSE_ERROR, &Value::Null) {
        // The shared grader's words name MCP's ping probe; this case sends none.
        Check::Fail { expected, .. } if answers.is_empty() => Err(Check::fail(
            expected,
            "no answer within 500 ms: the line was dropped silently",
        )),
        other => Ok(other),
    }
}

async fn alive_after_malformed(ctx: Ctx) -> CheckResult {
    let mut agent = ctx.started(Caps::NONE).await?;
    agent.client.send_raw(b"this is not json\n").await?;
    probe(&mut agent, "a line that is not JSON").await?;
    Ok(Check::Pass)
}

async fn id_echo(ctx: Ctx, id: Value) -> CheckResult {
    let mut agent = ctx.spawn(Caps::NONE)?;
    agent
        .client
        .send(&mcp_wire::request(
            &id,
            "initialize",
            Some(Caps::NONE.init_params(json!(PROTOCOL_VERSION))),
        ))
        .await?;
    // The answer under another id is this case's very subject (the watch leaves these cases
    // out): its own failure, never blocked by the id rule.
    let answer = ctx
        .first_answer(agent.client.response_to(&id, "initialize"))
        .await
        .map_err(|c| match c {
            Check::Blocked { by, fallback } if by == crate::acp::watch::ID_RULE_CASE => *fallback,
            other => other,
        })?;
    if answer.get("id") == Some(&id) {
        Ok(Check::Pass)
    } else if answer.get("id").is_none_or(Value::is_null) {
        // JSON-RPC 2.0 §5: id null only "if there was an error in detecting the id".
        Err(Check::fail(
            format!("the answer under id {id}"),
            format!(
                "an error with no id (the agent could not read id {id}): {}",
                show(&answer)
            ),
        ))
    } else {
        Err(Check::fail(
            format!("the answer under id {id}"),
            show(&answer),
        ))
    }
}

async fn id_string(ctx: Ctx) -> CheckResult {
    id_echo(ctx, json!("acp-conformance-id")).await
}

async fn id_zero(ctx: Ctx) -> CheckResult {
    id_echo(ctx, json!(0)).await
}

async fn id_negative(ctx: Ctx) -> CheckResult {
    id_echo(ctx, json!(-7)).await
}

async fn id_max_safe(ctx: Ctx) -> CheckResult {
    id_echo(ctx, json!(9_007_199_254_740_991_i64)).await
}
