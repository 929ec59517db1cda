//! What the client puts in its prompt: only content the agent advertised (ACP binds the client
//! here, not the agent: schema `PromptRequest.prompt`).

use serde_json::Value;

use super::turn;
use crate::acp::client::config::ClientModeConfig;
use crate::acp::client::run::Ran;
use crate::core::model::Check;

/// The agent's `promptCapabilities` as its `initialize` answer gave them (null when absent).
fn prompt_capabilities(ran: &Ran, pid: u32) -> Value {
    let Some(id) = ran
        .wire
        .client_request(pid, "initialize")
        .and_then(|(_, l)| l.id().cloned())
    else {
        return Value::Null;
    };
    ran.wire
        .a2c(pid)
        .find(|(_, l)| l.is_response_to(&id))
        .and_then(|(_, l)| {
            l.json
                .as_ref()?
                .pointer("/result/agentCapabilities/promptCapabilities")
                .cloned()
        })
        .unwrap_or(Value::Null)
}

/// The capability a content block type needs in a prompt, `None` for the baseline (`text`,
/// `resource_link`) and for types this rule does not know.
fn needs(kind: &str) -> Option<&'static str> {
    match kind {
        "image" => Some("image"),
        "audio" => Some("audio"),
        "resource" => Some("embeddedContext"),
        _ => None,
    }
}

/// `client/prompt-content-advertised`: every `session/prompt` block beyond the baseline is of
/// a type the agent advertised in `promptCapabilities`.
pub fn content_advertised(ran: &Ran, _cfg: &ClientModeConfig) -> Check {
    let (pid, _) = match turn(ran) {
        Ok(t) => t,
        Err(c) => return c,
    };
    let caps = prompt_capabilities(ran, pid);
    let mut bad = Vec::new();
    for (_, line) in ran
        .wire
        .c2a(pid)
        .filter(|(_, l)| l.method() == Some("session/prompt") && l.is_request())
    {
        let blocks = line
            .params()
            .get("prompt")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        for b in blocks {
            let kind = b.get("type").and_then(Value::as_str).unwrap_or("");
            if let Some(cap) = needs(kind)
                && caps.get(cap) != Some(&Value::Bool(true))
            {
                bad.push(format!(
                    "{kind} block (promptCapabilities.{cap} not advertised)"
                ));
            }
        }
    }
    if bad.is_empty() {
        Check::Pass
    } else {
        Check::fail(
            format!(
                "a prompt of text, resource_link and the content types the agent advertised \
                 (promptCapabilities {caps})"
            ),
            format!("session/prompt carried: {}", bad.join("; ")),
        )
    }
}
