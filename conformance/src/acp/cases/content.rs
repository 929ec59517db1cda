//! Prompt content: `text` and `resource_link` every agent MUST accept (docs content: "All Agents
//! MUST support text and resource links"); `image`, `audio` and embedded `resource` accepted when
//! `promptCapabilities` advertises them. Sent although not advertised, the runner (as client)
//! breaks the rule, not the agent: the schema binds the client ("The Client MUST adapt its
//! interface according to `PromptCapabilities`", `PromptRequest.prompt`) and asks nothing of an
//! agent that meets such a block, so the `*/unadvertised` cases only report (`info`) whether the
//! agent refused it or dropped it silently; client mode grades the client on it
//! (`client/prompt-content-advertised`).

use serde_json::{Value, json};

use crate::acp::ctx::Ctx;
use crate::acp::driver::Caps;
use crate::acp::gate::AcpCase;
use crate::core::case::case;
use crate::core::checks::show;
use crate::core::model::{Check, CheckResult, Level};

/// A 1×1 PNG.
const PNG_1X1: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
/// An empty 8 kHz mono WAV.
const WAV_EMPTY: &str = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=";

/// The cases of this section.
pub const CASES: &[AcpCase] = &[
    case!(
        "content/resource-link",
        "docs content#resource-link (all agents MUST support text and resource links)",
        Level::Must,
        Server,
        "a prompt of text and a resource_link to a scratch file ends with a stopReason",
        resource_link[]
    ),
    case!(
        "content/image/advertised",
        "schema PromptCapabilities.image; ContentBlock image",
        Level::Must,
        Server,
        "with promptCapabilities.image advertised, a prompt with an image block ends with a stopReason",
        image_advertised[]
    ),
    case!(
        "content/image/unadvertised",
        "schema PromptRequest.prompt (\"The Client MUST adapt its interface according to PromptCapabilities\"): binds the client; nothing binds the agent (info)",
        Level::Info,
        Server,
        "without promptCapabilities.image, a prompt with an image block is refused with an error",
        image_unadvertised[]
    ),
    case!(
        "content/audio/advertised",
        "schema PromptCapabilities.audio; ContentBlock audio",
        Level::Must,
        Server,
        "with promptCapabilities.audio advertised, a prompt with an audio block ends with a stopReason",
        audio_advertised[]
    ),
    case!(
        "content/audio/unadvertised",
        "schema PromptRequest.prompt (\"The Client MUST adapt its interface according to PromptCapabilities\"): binds the client; nothing binds the agent (info)",
        Level::Info,
        Server,
        "without promptCapabilities.audio, a prompt with an audio block is refused with an error",
        audio_unadvertised[]
    ),
    case!(
        "content/resource/advertised",
        "schema PromptCapabilities.embeddedContext; ContentBlock resource",
        Level::Must,
        Server,
        "with promptCapabilities.embeddedContext advertised, a prompt with an embedded resource ends with a stopReason",
        resource_advertised[]
    ),
    case!(
        "content/resource/unadvertised",
        "schema PromptRequest.prompt (\"The Client MUST adapt its interface according to PromptCapabilities\"): binds the client; nothing binds the agent (info)",
        Level::Info,
        Server,
        "without promptCapabilities.embeddedContext, a prompt with an embedded resource is refused with an error",
        resource_unadvertised[]
    ),
];

fn block(kind: &str, ctx: &Ctx) -> Value {
    let uri = format!("file://{}/README.txt", ctx.cwd());
    match kind {
        "image" => json!({"type": "image", "mimeType": "image/png", "data": PNG_1X1}),
        "audio" => json!({"type": "audio", "mimeType": "audio/wav", "data": WAV_EMPTY}),
        "embeddedContext" => json!({"type": "resource", "resource": {
            "uri": uri, "mimeType": "text/plain", "text": "A scratch file the runner serves.\n"}}),
        _ => json!({"type": "resource_link", "uri": uri, "name": "README.txt"}),
    }
}

/// Prompts with a text block and a `kind` block; `advertised` says which way it should go
/// (`None`: whatever the capability says, it must be accepted).
async fn prompt_with(ctx: Ctx, kind: &str, advertised: Option<bool>) -> CheckResult {
    let (mut agent, session) = ctx.session(Caps::NONE).await?;
    if let Some(want) = advertised
        && agent.prompt_capability(kind) != want
    {
        return Err(Check::skip(format!(
            "promptCapabilities.{kind} is {}",
            if want { "not advertised" } else { "advertised" }
        )));
    }
    let prompt = json!([
        {"type": "text", "text": "Hello from acp-conformance: describe the attachment."},
        block(kind, &ctx)
    ]);
    let turn = agent.prompt(&session, prompt).await?;
    turn.ended(if advertised == Some(false) {
        format!("an error refusing a {kind} block the agent did not advertise")
    } else {
        format!("a stopReason for a prompt with a {kind} block")
    })?;
    let accepted = turn.stop_reason().is_some();
    match advertised {
        Some(false) if accepted => Err(Check::fail(
            format!("an error refusing a {kind} block the agent did not advertise"),
            format!(
                "accepted (dropped or used silently): {}",
                show(&turn.answer)
            ),
        )),
        Some(false) if turn.answer.get("error").is_some() => Ok(Check::Pass),
        _ if accepted => Ok(Check::Pass),
        _ => Err(Check::fail(
            format!("a stopReason for a prompt with a {kind} block"),
            show(&turn.answer),
        )),
    }
}

async fn resource_link(ctx: Ctx) -> CheckResult {
    prompt_with(ctx, "resource_link", None).await
}
async fn image_advertised(ctx: Ctx) -> CheckResult {
    prompt_with(ctx, "image", Some(true)).await
}
async fn image_unadvertised(ctx: Ctx) -> CheckResult {
    prompt_with(ctx, "image", Some(false)).await
}
async fn audio_advertised(ctx: Ctx) -> CheckResult {
    prompt_with(ctx, "audio", Some(true)).await
}
async fn audio_unadvertised(ctx: Ctx) -> CheckResult {
    prompt_with(ctx, "audio", Some(false)).await
}
async fn resource_advertised(ctx: Ctx) -> CheckResult {
    prompt_with(ctx, "embeddedContext", Some(true)).await
}
async fn resource_unadvertised(ctx: Ctx) -> CheckResult {
    prompt_with(ctx, "embeddedContext", Some(false)).await
}
