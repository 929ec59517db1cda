//! Extensibility: the agent's own methods start with `_` (docs extensibility#custom-requests:
//! "custom methods … MUST start with an underscore"; Cursor's `cursor/*` requests are a graded
//! deviation, a warning), and custom data goes in `_meta` (schema: every type's `_meta`).

use std::collections::BTreeSet;

use serde_json::Value;

use crate::acp::ctx::Ctx;
use crate::acp::gate::AcpCase;
use crate::core::case::case;
use crate::core::model::{Check, CheckResult, Level};

use super::prompt_turn::one_turn;
use crate::acp::schema::method_of;

/// The methods an agent may send a client under ACP v1 (schema AgentRequest and
/// AgentNotification, stable and unstable).
pub const AGENT_METHODS: &[&str] = &[
    "session/update",
    "session/request_permission",
    "fs/read_text_file",
    "fs/write_text_file",
    "terminal/create",
    "terminal/output",
    "terminal/release",
    "terminal/wait_for_exit",
    "terminal/kill",
    "session/elicitation",
    "elicitation/create",
    "elicitation/complete",
    "session/notice",
];

/// The cases of this section.
pub const CASES: &[AcpCase] = &[
    case!(
        "extensions/method-names",
        "docs extensibility#custom-requests (extension methods start with _)",
        Level::Should,
        Server,
        "every method the agent sends during a turn is an ACP method or starts with _ (vendor methods like cursor/* warn)",
        method_names[]
    ),
    case!(
        "extensions/meta-only",
        "docs extensibility#the-_meta-field (custom data only in _meta)",
        Level::Should,
        Server,
        "session/update params carry no top-level keys besides sessionId, update and _meta",
        meta_only[]
    ),
];

async fn method_names(ctx: Ctx) -> CheckResult {
    let (agent, _, turn) = one_turn(&ctx).await?;
    let mut foreign = BTreeSet::new();
    for m in agent.state.requests().iter().chain(&turn.other) {
        if let Some(method) = method_of(m)
            && !method.starts_with('_')
            && !AGENT_METHODS.contains(&method)
        {
            foreign.insert(method.to_owned());
        }
    }
    if foreign.is_empty() {
        Ok(Check::Pass)
    } else {
        Err(Check::fail(
            "agent methods outside ACP named with a leading _ (e.g. _vendor/method)",
            format!(
                "sent {}",
                foreign.into_iter().collect::<Vec<_>>().join(", ")
            ),
        ))
    }
}

async fn meta_only(ctx: Ctx) -> CheckResult {
    let (_agent, _, turn) = one_turn(&ctx).await?;
    for u in &turn.updates {
        if let Some(obj) = u.as_object() {
            let extra: Vec<&String> = obj
                .keys()
                .filter(|k| !matches!(k.as_str(), "sessionId" | "update" | "_meta"))
                .collect();
            if !extra.is_empty() {
                return Err(Check::fail(
                    "custom data only under _meta",
                    format!(
                        "session/update params with {}: {}",
                        extra
                            .iter()
                            .map(|k| k.as_str())
                            .collect::<Vec<_>>()
                            .join(", "),
                        crate::core::checks::show(&Value::Object(obj.clone()))
                    ),
                ));
            }
        }
    }
    Ok(Check::Pass)
}
