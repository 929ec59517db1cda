//! One Cursor agent process and its ACP turn (ACP-3, ACP-6, ACP-7).
//!
//! The agent runs under its run's supervisor with a piped stdin (PROV-1). A task drives one turn
//! with the generic ACP client and Cursor's policy; the client forwards every agent line and its
//! own decision records into an in-memory pipe that the engine reads as the run's native stdout
//! (bounded like any native stream, BND-1..2, with backpressure). When the turn settles the task
//! hands the engine the out-of-band [`Completion`] and ends the whole process group: Cursor never
//! exits on stdin EOF after a turn (ACP-7). A cancel sends `session/cancel` through the client,
//! which answers pending permission requests `cancelled` and waits a bounded grace; a backstop
//! ends the group if the client has not by then.

use serde_json::{Value, json};
use tokio::sync::{oneshot, watch};

use acp_client::{TurnConfig, TurnOutcome, TurnReport};
use cmk_engine::ingest::FINAL_MAX;
use cmk_engine::native::Cleanup;
use cmk_engine::native::{NativeError, NativeSource, bounded};
use cmk_engine::provider::{BoxFuture, Completion, NativeProcess, NativeReader};
use cmk_engine::{ErrorCode, ToolError};
use cmk_supervisor::{ExitStatus, Supervised, SupervisorHandle};

/// Bound of the final's `text` (BND-3): the final is bounded like claude's result event.
pub(crate) const TEXT_MAX: usize = FINAL_MAX;
/// In-memory pipe between the ACP client and the engine's ingest.
const EVENTS_PIPE_BYTES: usize = 256 * 1024;
/// After a cancel, how long beyond the client's grace the group may live before the backstop
/// ends it.
const CANCEL_BACKSTOP_SLACK: std::time::Duration = std::time::Duration::from_millis(500);

/// A running agent and its turn.
pub(crate) struct CursorProcess {
    sup: Supervised,
    events: Option<NativeReader>,
    cancel: watch::Sender<bool>,
    completion: Option<oneshot::Receiver<Completion>>,
    handle: SupervisorHandle,
    cancel_grace: std::time::Duration,
}

impl CursorProcess {
    /// Starts the turn on an agent just spawned with a piped stdin. Must be called inside a
    /// tokio runtime. On error the group is being ended and nothing is left running.
    pub(crate) fn start(mut sup: Supervised, turn: TurnConfig) -> Result<Self, ToolError> {
        let handle = sup.handle();
        let (Some(agent_out), Some(agent_in)) = (sup.stdout.take(), sup.stdin.take()) else {
            sup.terminate();
            return Err(ToolError::new(
                ErrorCode::SpawnFailed,
                "the agent was started without its stdin or stdout pipe",
            ));
        };
        let (events_w, events_r) = tokio::io::duplex(EVENTS_PIPE_BYTES);
        let (cancel_tx, cancel_rx) = watch::channel(false);
        let (done_tx, done_rx) = oneshot::channel();
        let cancel_grace = turn.cancel_grace;
        let ender = handle.clone();
        tokio::spawn(async move {
            let report = acp_client::run_turn(
                agent_out,
                agent_in,
                events_w,
                &turn,
                &acp_client::CursorPolicy,
                cancel_rx,
            )
            .await;
            // The events pipe and the agent's stdin were dropped with the turn: the engine sees
            // the end of the stream; the agent sees EOF, which Cursor ignores after a turn.
            let _ = done_tx.send(completion_of(&report));
            // ACP-7: after every turn, successful or not, the whole group ends.
            ender.terminate();
        });
        Ok(Self {
            sup,
            events: Some(Box::pin(events_r)),
            cancel: cancel_tx,
            completion: Some(done_rx),
            handle,
            cancel_grace,
        })
    }
}

impl NativeProcess for CursorProcess {
    fn take_stdout(&mut self) -> Option<NativeReader> {
        self.events.take()
    }

    fn take_stderr(&mut self) -> Option<NativeReader> {
        self.sup.stderr.take().map(|r| Box::pin(r) as NativeReader)
    }

    fn terminate(&self) {
        self.sup.terminate();
    }

    fn interrupt(&self) {
        // ACP-7: session/cancel through the client, then its grace; the backstop bounds it.
        self.cancel.send_replace(true);
        let handle = self.handle.clone();
        let by = self.cancel_grace + CANCEL_BACKSTOP_SLACK;
        tokio::spawn(async move {
            tokio::time::sleep(by).await;
            handle.terminate();
        });
    }

    fn take_completion(&mut self) -> Option<BoxFuture<'static, Completion>> {
        let rx = self.completion.take()?;
        Some(Box::pin(async move {
            rx.await.unwrap_or_else(|_| Completion {
                error: Some(ToolError::new(
                    ErrorCode::MissingFinal,
                    "the ACP client ended without reporting the turn",
                )),
                ..Completion::default()
            })
        }))
    }

    fn exited(&mut self) -> BoxFuture<'_, Option<ExitStatus>> {
        Box::pin(self.sup.exited())
    }

    fn cleanup(&mut self) -> BoxFuture<'_, Cleanup> {
        Box::pin(async move {
            let r = self.sup.cleanup().await;
            Cleanup {
                confirmed: r.confirmed,
                survivors: r.survivors,
                error: r.error,
            }
        })
    }
}

/// How to log in to the agent behind the path: Cursor's own commands only when the agent is
/// Cursor's (its `agentInfo` name, else its `cursor_login` auth method), else the agent's name
/// when it reported one.
fn login_hint(id: &acp_client::AgentIdentity) -> String {
    let field = |k: &str| {
        id.info
            .as_ref()
            .and_then(|i| i.get(k))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let name = field("name");
    let is_cursor = match &name {
        Some(n) => n.to_ascii_lowercase().contains("cursor"),
        None => id.auth_method_ids.iter().any(|m| m == "cursor_login"),
    };
    if is_cursor {
        return "log in with `cursor-agent login` or set CURSOR_API_KEY".into();
    }
    match field("title").or(name) {
        Some(agent) => format!("log in to {agent:?} as that agent documents"),
        None => "log in to the agent as it documents (its own login command or credentials)".into(),
    }
}

/// ACP-6: the engine's view of a settled turn.
#[must_use]
pub(crate) fn completion_of(report: &TurnReport) -> Completion {
    let mut c = Completion {
        session_id: report.session_id.clone(),
        ..Completion::default()
    };
    let protocol = |message: String| NativeError {
        message: bounded(message),
        source: NativeSource::Protocol,
    };
    match &report.outcome {
        TurnOutcome::Completed { stop_reason, .. } => {
            if report.oversized_text_chunks > 0 {
                // BND-1, BND-3, C-ACP-2: a chunk never held leaves the answer cut.
                c.error = Some(ToolError::new(
                    ErrorCode::OversizedFinal,
                    format!(
                        "an agent_message_chunk line was over the line bound and never held \
                         ({} such line(s), BND-1), so the agent's message text cannot be kept \
                         whole within the {FINAL_MAX}-byte final bound",
                        report.oversized_text_chunks
                    ),
                ));
            } else if report.text_truncated {
                // BND-3: never a success with a cut answer.
                c.error = Some(ToolError::new(
                    ErrorCode::OversizedFinal,
                    format!("the agent's message text is over the {FINAL_MAX}-byte final bound"),
                ));
            } else {
                let mut final_value = json!({
                    "stopReason": stop_reason,
                    "sessionId": report.session_id.clone().unwrap_or_default(),
                    "text": report.text,
                });
                // ACP-10: updates that were not the turn's are counted, when there were any.
                for (key, n) in [
                    ("foreignUpdates", report.foreign_updates),
                    ("lateUpdates", report.late_updates),
                ] {
                    if n > 0 {
                        final_value[key] = json!(n);
                    }
                }
                c.final_value = Some(final_value);
            }
        }
        TurnOutcome::PromptError { error } => {
            let data = error
                .data
                .as_ref()
                .map(|d| format!(" {d}"))
                .unwrap_or_default();
            let ne = protocol(format!(
                "session/prompt failed with JSON-RPC error {}: {}{data}",
                error.code, error.message
            ));
            c.error = Some(ToolError::new(
                ErrorCode::NativeError,
                format!("the native run failed: {}", ne.message),
            ));
            c.native_error = Some(ne);
        }
        TurnOutcome::AuthRequired { step, error } => {
            let ne = protocol(format!(
                "the agent is not logged in: {step} answered {} {:?}; {} (the adapter never \
                 authenticates)",
                error.code,
                error.message,
                login_hint(&report.agent_identity)
            ));
            c.error = Some(ToolError::new(ErrorCode::NativeError, ne.message.clone()));
            c.native_error = Some(ne);
        }
        TurnOutcome::HandshakeError { step, error } => {
            let ne = protocol(format!(
                "{step} failed with JSON-RPC error {}: {}",
                error.code, error.message
            ));
            c.error = Some(ToolError::new(ErrorCode::NativeError, ne.message.clone()));
            c.native_error = Some(ne);
        }
        TurnOutcome::ModeUnavailable {
            mode,
            offered,
            error,
        } => {
            // ACP-11: never more power than asked; nothing was prompted.
            let offers = if offered.is_empty() {
                "the agent advertises no modes".to_owned()
            } else {
                format!("the agent offers the modes {}", offered.join(", "))
            };
            let fix = "use another permission_mode, or an agent that can switch to it";
            let modes = json!(offered);
            match error {
                None => {
                    c.error = Some(
                        ToolError::new(
                            ErrorCode::Unsupported,
                            format!(
                                "permission_mode {mode:?} cannot be applied: {offers}, none is \
                                 {mode:?}; the prompt was not sent (ACP-11); {fix}"
                            ),
                        )
                        .with("field", json!("/permission_mode"))
                        .with("offered_modes", modes),
                    );
                }
                Some(error) => {
                    let ne = protocol(format!(
                        "permission_mode {mode:?} cannot be applied: session/set_mode failed \
                         with JSON-RPC error {}: {}; {offers}; the prompt was not sent \
                         (ACP-11); {fix}",
                        error.code, error.message
                    ));
                    c.error = Some(
                        ToolError::new(ErrorCode::NativeError, ne.message.clone())
                            .with("offered_modes", modes),
                    );
                    c.native_error = Some(ne);
                }
            }
        }
        TurnOutcome::InvalidResponse { step, detail } => {
            let ne = protocol(format!("{step} answered something unusable: {detail}"));
            c.error = Some(ToolError::new(ErrorCode::NativeError, ne.message.clone()));
            c.native_error = Some(ne);
        }
        TurnOutcome::HandshakeTimeout { step, after } => {
            let ne = protocol(format!(
                "the agent did not answer {step} within {} s (ACP-2)",
                after.as_secs_f64()
            ));
            c.error = Some(ToolError::new(ErrorCode::NativeError, ne.message.clone()));
            c.native_error = Some(ne);
        }
        TurnOutcome::ResumeUnsupported => {
            c.error = Some(ToolError::invalid_argument(
                "/resume_session_id",
                "the agent does not advertise loadSession, so resume_session_id cannot be \
                 honoured (ACP-8: an ACP sessionId is not a Cursor --resume chat id)",
            ));
        }
        TurnOutcome::AgentClosed { step, detail } => {
            c.error = Some(ToolError::new(
                ErrorCode::MissingFinal,
                format!("the agent ended before answering {step}: {detail}"),
            ));
        }
        TurnOutcome::InvalidConfig { detail } => {
            c.error = Some(ToolError::new(ErrorCode::SpawnFailed, detail.clone()));
        }
        // Only reached after a cancel, which the engine reports as `cancelled` first.
        TurnOutcome::CancelledDuringHandshake { .. } | TurnOutcome::CancelledUnanswered => {}
    }
    c
}
