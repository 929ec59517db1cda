//! `session/request_permission` (ACP-4, ACP-5, ACP-7): which offered option to select, and why.
//!
//! The option is chosen by `kind` and its `optionId` echoed: `reject_once` for
//! [`DontAsk`](PermissionMode::DontAsk) and [`Plan`](PermissionMode::Plan); for
//! [`AcceptEdits`](PermissionMode::AcceptEdits) `allow_once` when the tool call's kind is `edit`
//! and `reject_once` otherwise. `allow_always` and `reject_always` are never selected, in any
//! mode. Cursor's `ask_question` arriving as a permission request is answered with its
//! `__ask_question_skip__` option, only when its kind is `reject_once` (ACP-12). Without an option of the needed kind, or once the turn is
//! cancelled, the answer is `{outcome: {outcome: "cancelled"}}`.

use serde_json::Value;

use crate::config::PermissionMode;
use crate::outbound::{PermissionOutcome, PermissionResult, to_value};
use crate::report::{PermissionDecision, truncate};
use crate::session_update::ToolKinds;

/// The `optionId` Cursor gives the "skip" answer of an `ask_question` sent as a permission
/// request.
pub const ASK_QUESTION_SKIP: &str = "__ask_question_skip__";
/// Longest agent string kept in a [`PermissionDecision`] (bytes, cut at a character boundary).
pub const FIELD_MAX: usize = 4096;
/// Most offered options listed in a [`PermissionDecision`].
pub const MAX_OFFERED: usize = 32;

/// The decision and the result to send.
pub(crate) fn decide(
    params: &Value,
    mode: PermissionMode,
    cancelled: bool,
    tools: &ToolKinds,
) -> (PermissionDecision, Value) {
    let tool_call = params.get("toolCall");
    let field = |name: &str| {
        tool_call
            .and_then(|t| t.get(name))
            .and_then(Value::as_str)
            .map(|s| truncate(s, FIELD_MAX).to_owned())
    };
    let tool_call_id = tool_call
        .and_then(|t| t.get("toolCallId"))
        .and_then(Value::as_str);
    let tool_kind = tool_call
        .and_then(|t| t.get("kind"))
        .and_then(Value::as_str)
        .or_else(|| tool_call_id.and_then(|id| tools.get(id)))
        .map(|k| truncate(k, FIELD_MAX).to_owned());
    let options: Vec<(&str, &str)> = params
        .get("options")
        .and_then(Value::as_array)
        .map(|options| {
            options
                .iter()
                .filter_map(|o| {
                    Some((
                        o.get("optionId")?.as_str()?,
                        o.get("kind").and_then(Value::as_str).unwrap_or(""),
                    ))
                })
                .collect()
        })
        .unwrap_or_default();

    let (chosen, reason) = choose(&options, mode, cancelled, tool_kind.as_deref());
    let decision = PermissionDecision {
        tool_call_id: field("toolCallId"),
        tool_kind,
        title: field("title"),
        offered: options
            .iter()
            .take(MAX_OFFERED)
            .map(|(id, kind)| {
                (
                    truncate(id, FIELD_MAX).to_owned(),
                    truncate(kind, FIELD_MAX).to_owned(),
                )
            })
            .collect(),
        selected: chosen.map(|(id, _)| truncate(id, FIELD_MAX).to_owned()),
        selected_kind: chosen.map(|(_, kind)| kind.to_owned()),
        outcome: if chosen.is_some() {
            "selected"
        } else {
            "cancelled"
        },
        reason,
    };
    let outcome = match chosen {
        Some((option_id, _)) => PermissionOutcome::Selected { option_id },
        None => PermissionOutcome::Cancelled,
    };
    (decision, to_value(PermissionResult { outcome }))
}

fn choose<'o>(
    options: &[(&'o str, &'o str)],
    mode: PermissionMode,
    cancelled: bool,
    tool_kind: Option<&str>,
) -> (Option<(&'o str, &'o str)>, String) {
    if cancelled {
        return (None, "the turn was cancelled".to_owned());
    }
    if let Some(skip) = options
        .iter()
        .find(|(id, kind)| *id == ASK_QUESTION_SKIP && *kind == "reject_once")
    {
        return (
            Some(*skip),
            "a question to the user: answered with its skip option (no person to ask)".to_owned(),
        );
    }
    let edit = tool_kind == Some("edit");
    let (needed, why) = match mode {
        PermissionMode::AcceptEdits if edit => ("allow_once", "acceptEdits allows edits once"),
        PermissionMode::AcceptEdits => {
            ("reject_once", "acceptEdits rejects tools other than edits")
        }
        PermissionMode::DontAsk => ("reject_once", "dontAsk rejects every permission request"),
        PermissionMode::Plan => ("reject_once", "plan rejects every permission request"),
    };
    match options.iter().find(|(_, kind)| *kind == needed) {
        Some(option) => (Some(*option), why.to_owned()),
        None => (
            None,
            format!("{why}, but no {needed} option was offered: answered cancelled"),
        ),
    }
}
