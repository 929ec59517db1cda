//! The client-mode catalogue: one row per case, each with the rule it checks and its level, the
//! scenario the scripted agent plays for it (`scenarios/*.json`, a fresh client per case), and
//! its check.

use super::checks::{cancel, lifecycle, permission, requests};
use super::config::ClientModeConfig;
use super::run::Ran;
use crate::model::{Check, Level};

/// One client-mode case.
#[derive(Debug, Clone, Copy)]
pub struct ClientCase {
    /// Stable id, `client/...`.
    pub id: &'static str,
    /// The ACP rule (schema or docs) and the kit's contract id it checks.
    pub requirement: &'static str,
    /// MUST or SHOULD.
    pub level: Level,
    /// One line saying what is checked.
    pub description: &'static str,
    /// The scripted agent's scenario (fake-cursor-agent format).
    pub scenario: &'static str,
    /// Whether the runner drives the cancel in this case.
    pub drives_cancel: bool,
    /// The check.
    pub check: fn(&Ran, &ClientModeConfig) -> Check,
}

/// Every case, in report order.
pub const CASES: &[ClientCase] = &[
    ClientCase {
        id: "client/answers-agent-requests",
        requirement: "JSON-RPC 2.0 §4 (every request gets a response); ACP: answer every agent request, Cursor's cursor/* included (kit ACP-5)",
        level: Level::Must,
        description: "every agent request (session/request_permission, the five cursor/* requests, an _ extension) gets a result or an error within the answer bound",
        scenario: include_str!("scenarios/answers.json"),
        drives_cancel: false,
        check: requests::answers_every_request,
    },
    ClientCase {
        id: "client/permission-never-allow-always",
        requirement: "kit ACP-4 (allow_always is never selected: Cursor writes it into the user's global config)",
        level: Level::Must,
        description: "no permission answer selects the option of kind allow_always",
        scenario: include_str!("scenarios/allow_always.json"),
        drives_cancel: false,
        check: permission::never_allow_always,
    },
    ClientCase {
        id: "client/permission-echoes-offered-option",
        requirement: "ACP schema RequestPermissionOutcome: selected.optionId is an offered option's id (kit ACP-4)",
        level: Level::Must,
        description: "a selected optionId is one the request offered (ids that are not the usual names)",
        scenario: include_str!("scenarios/option_ids.json"),
        drives_cancel: false,
        check: permission::echoes_offered_option,
    },
    ClientCase {
        id: "client/no-unprompted-authenticate",
        requirement: "ACP initialization: authenticate only when the agent requires it (session/new auth_required); kit ACP-2",
        level: Level::Must,
        description: "the client never sends authenticate although the agent advertises authMethods (the agent needs no login)",
        scenario: include_str!("scenarios/plain_turn.json"),
        drives_cancel: false,
        check: lifecycle::no_unprompted_authenticate,
    },
    ClientCase {
        id: "client/tolerates-unknown-session-update",
        requirement: "ACP schema SessionUpdate: unknown variants are ignored, never a failure (kit ACP-3)",
        level: Level::Must,
        description: "after non-standard and future sessionUpdate variants the client still answers the next agent request",
        scenario: include_str!("scenarios/unknown_update.json"),
        drives_cancel: false,
        check: lifecycle::tolerates_unknown_update,
    },
    ClientCase {
        id: "client/colliding-request-ids",
        requirement: "JSON-RPC 2.0: ids correlate within one sender; ACP: route by message shape, agent ids may collide with the client's (kit ACP-1)",
        level: Level::Must,
        description: "an agent request under the id of the client's own pending session/prompt is answered",
        scenario: include_str!("scenarios/colliding_id.json"),
        drives_cancel: false,
        check: requests::answers_colliding_id,
    },
    ClientCase {
        id: "client/cancel-sends-session-cancel",
        requirement: "ACP prompt turn, cancellation: the client cancels with the session/cancel {sessionId} notification (kit ACP-7)",
        level: Level::Should,
        description: "told to cancel mid-turn (its documented interrupt or its own turn timeout), the client sends session/cancel for the session",
        scenario: include_str!("scenarios/cancel.json"),
        drives_cancel: true,
        check: cancel::sends_session_cancel,
    },
    ClientCase {
        id: "client/cancel-answers-pending-permission",
        requirement: "ACP schema session/request_permission: after session/cancel the client MUST answer it with the cancelled outcome (kit ACP-7)",
        level: Level::Must,
        description: "a permission request still pending when the client cancels is answered {outcome: cancelled}",
        scenario: include_str!("scenarios/cancel.json"),
        drives_cancel: true,
        check: cancel::answers_pending_cancelled,
    },
    ClientCase {
        id: "client/ends-agent-after-turn",
        requirement: "kit ACP-7 (after every turn the client ends the agent's process group; Cursor never exits on stdin EOF after a turn)",
        level: Level::Should,
        description: "once the turn is answered and the client is done, the agent process is gone",
        scenario: include_str!("scenarios/plain_turn.json"),
        drives_cancel: false,
        check: lifecycle::ends_agent,
    },
];
