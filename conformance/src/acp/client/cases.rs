//! The client-mode catalogue: one row per case, each with the rule it checks and its level, the
//! scenario the scripted agent plays for it (`scenarios/*.json`, a fresh client per case), and
//! its check.

use crate::acp::client::checks::{TURN_CASE, cancel, lifecycle, permission, prompt, requests};
use crate::acp::client::gate::{
    AUTHENTICATE_LEVEL, ClientCase, ClientCtx, ClientLevel, Script, client_check,
};
use crate::core::case::case;
use crate::core::model::{Check, CheckResult, Level};

/// Every case, in report order.
pub const CASES: &[ClientCase] = &[
    case!(
        "client/answers-agent-requests",
        "JSON-RPC 2.0 §4 (every request gets a response); ACP: answer every agent request, Cursor's cursor/* included (kit ACP-5)",
        ClientLevel::any(Level::Must),
        CrosscutProbe,
        "every agent request (session/request_permission, the five cursor/* requests, an _ extension) gets a result or an error within the answer bound; and no agent request of any other case's run is left unanswered (the cancel, colliding-id and unknown-update cases grade their own request)",
        answers_agent_requests[];
        variant Script {
            scenario: include_str!("scenarios/answers.json"),
            drives_cancel: false,
            grades_answers: false,
        }
    ),
    case!(
        "client/permission-never-allow-always",
        "kit ACP-4 (\"allow_always and reject_always are never selected\": Cursor writes allow-always into the user's global config); the kit's Cursor policy, not ACP's: --profile cursor only",
        ClientLevel::cursor(Level::Must),
        Server,
        "no permission answer selects the option of kind allow_always",
        client_check[permission::never_allow_always];
        variant Script {
            scenario: include_str!("scenarios/allow_always.json"),
            drives_cancel: false,
            grades_answers: false,
        }
    ),
    case!(
        "client/supports-request-permission",
        "ACP docs protocol/overview#client: session/request_permission is the client's one Baseline Method (no RFC 2119 keyword: SHOULD); the schema's cancelled outcome presumes it (\"it MUST respond to all pending session/request_permission requests\")",
        ClientLevel::any(Level::Should),
        Server,
        "session/request_permission is answered with a RequestPermissionResponse (an outcome), not an error such as -32601 (method not found)",
        client_check[permission::supports_request_permission];
        variant Script {
            scenario: include_str!("scenarios/answers.json"),
            drives_cancel: false,
            grades_answers: false,
        }
    ),
    case!(
        "client/permission-echoes-offered-option",
        "ACP schema RequestPermissionOutcome: selected.optionId is an offered option's id (kit ACP-4)",
        ClientLevel::any(Level::Must),
        Server,
        "a selected optionId is one the request offered (ids that are not the usual names)",
        client_check[permission::echoes_offered_option];
        variant Script {
            scenario: include_str!("scenarios/option_ids.json"),
            drives_cancel: false,
            grades_answers: false,
        }
    ),
    case!(
        "client/no-unprompted-authenticate",
        "kit ACP-2 (\"authenticate is never sent\": a logged-out cursor-agent starts a browser login); ACP asks nothing of the kind: --profile cursor only",
        AUTHENTICATE_LEVEL,
        Server,
        "the client never sends authenticate although the agent advertises authMethods (the agent needs no login)",
        client_check[lifecycle::no_unprompted_authenticate];
        variant Script {
            scenario: include_str!("scenarios/plain_turn.json"),
            drives_cancel: false,
            grades_answers: false,
        }
    ),
    case!(
        "client/prompt-content-advertised",
        "ACP schema PromptRequest.prompt: \"The Client MUST adapt its interface according to PromptCapabilities\"; ContentBlock image, audio, resource: \"Requires the ... prompt capability when included in prompts\"",
        ClientLevel::any(Level::Must),
        Server,
        "the client's session/prompt carries image, audio or embedded resource blocks only when the agent advertised them in promptCapabilities",
        client_check[prompt::content_advertised];
        variant Script {
            scenario: include_str!("scenarios/plain_turn.json"),
            drives_cancel: false,
            grades_answers: false,
        }
    ),
    case!(
        "client/tolerates-unknown-session-update",
        "ACP schema SessionUpdate: unknown variants are ignored, never a failure (kit ACP-3)",
        ClientLevel::any(Level::Must),
        Server,
        "after non-standard and future sessionUpdate variants the client still answers the next agent request",
        client_check[lifecycle::tolerates_unknown_update];
        variant Script {
            scenario: include_str!("scenarios/unknown_update.json"),
            drives_cancel: false,
            grades_answers: true,
        }
    ),
    case!(
        "client/colliding-request-ids",
        "JSON-RPC 2.0: ids correlate within one sender; ACP: route by message shape, agent ids may collide with the client's (kit ACP-1)",
        ClientLevel::any(Level::Must),
        Server,
        "an agent request under the id of the client's own pending session/prompt is answered",
        client_check[requests::answers_colliding_id];
        variant Script {
            scenario: include_str!("scenarios/colliding_id.json"),
            drives_cancel: false,
            grades_answers: true,
        }
    ),
    case!(
        "client/cancel-sends-session-cancel",
        "ACP prompt turn, cancellation: the client cancels with the session/cancel {sessionId} notification (kit ACP-7)",
        ClientLevel::any(Level::Should),
        Server,
        "told to cancel mid-turn (its documented interrupt or its own turn timeout), the client sends session/cancel for the session",
        client_check[cancel::sends_session_cancel];
        variant Script {
            scenario: include_str!("scenarios/cancel.json"),
            drives_cancel: true,
            grades_answers: true,
        }
    ),
    case!(
        "client/cancel-answers-pending-permission",
        "ACP schema session/request_permission: after session/cancel the client MUST answer it with the cancelled outcome (kit ACP-7)",
        ClientLevel::any(Level::Must),
        Server,
        "a permission request still pending when the client cancels is answered {outcome: cancelled}",
        client_check[cancel::answers_pending_cancelled];
        variant Script {
            scenario: include_str!("scenarios/cancel.json"),
            drives_cancel: true,
            grades_answers: true,
        }
    ),
    case!(
        "client/ends-agent-after-turn",
        "kit ACP-7 (after every turn the client ends the agent's process group; Cursor never exits on stdin EOF after a turn)",
        ClientLevel::any(Level::Should),
        Server,
        "once the turn is answered and the client is done, the agent process is gone",
        client_check[lifecycle::ends_agent];
        variant Script {
            scenario: include_str!("scenarios/plain_turn.json"),
            drives_cancel: false,
            grades_answers: false,
        }
    ),
    case!(
        "client/response-ids",
        "JSON-RPC 2.0 §5 (exactly one Response per Request, under its id); ACP: both sides send requests (kit ACP-1)",
        ClientLevel::any(Level::Must),
        Crosscut,
        "every agent request of every case run is answered at most once, under its id; no answer under an id the agent never sent, nor to a notification (unanswered requests: client/answers-agent-requests)",
        response_ids[];
        variant Script {
            scenario: "",
            drives_cancel: false,
            grades_answers: false,
        }
    ),
];

/// `client/answers-agent-requests`: its own scenario's requests, each answered within the
/// bound ([`requests::answers_every_request`]); then, once every other case has run (it is a
/// cross-cutting probe), the first other run that left an agent request unanswered
/// ([`crate::acp::client::owed`]). Its own finding comes first: it is first in the catalogue.
async fn answers_agent_requests(ctx: ClientCtx) -> CheckResult {
    let (owed, scope) = (ctx.owed.clone(), ctx.scope.clone());
    let own = client_check(ctx, requests::answers_every_request).await?;
    // Every other case's run, once they have all finished (GATE-LOAD-2).
    scope.settled().await;
    if !matches!(own, Check::Pass | Check::Skip(_) | Check::Error(_)) {
        return Ok(own);
    }
    Ok(match owed.first() {
        Some(u) => Check::fail(
            "an answer (a result or an error) to every agent request of every case's run \
             (JSON-RPC 2.0 §4)",
            format!("{} (in {})", u.evidence, u.case),
        ),
        None => own,
    })
}

/// `client/response-ids`: the id rule over every case's wire ([`crate::acp::client::watch`]).
/// A run in which the client answered nothing had no turn: blocked by [`TURN_CASE`].
async fn response_ids(ctx: ClientCtx) -> CheckResult {
    Ok(
        crate::acp::client::watch::grade(&ctx.watch).unwrap_or_else(|| {
            Check::blocked(
                TURN_CASE,
                Check::skip("the client answered no agent request in any case"),
            )
        }),
    )
}
