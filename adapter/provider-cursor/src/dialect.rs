//! The ACP dialect (PROV-1, ACP-3, ACP-6). No native line is ever a final: the final
//! `{stopReason, sessionId, text}` is built by the client from the `session/prompt` answer and
//! handed over out of band, so an agent cannot forge one by printing it. A final is valid with a
//! string `stopReason`, `sessionId` and `text`; it carries a native error when the stop reason is
//! anything but `end_turn` (`refusal`, `max_tokens`, `max_turn_requests`, an unasked `cancelled`).
//! The protocol's answer settles execution and the client ends the process after every turn
//! (ACP-7), so the exit status is not part of success.

use serde_json::Value;

use cmk_engine::jsonout::Candidate;
use cmk_engine::native::{NativeError, NativeSource, bounded};
use cmk_engine::provider::{Dialect, LineClass};
use cmk_engine::tools::ToolEvent;

/// The stop reason of a successful turn (ACP-6).
pub(crate) const END_TURN: &str = "end_turn";

/// ACP's dialect.
#[derive(Debug, Clone, Copy, Default)]
pub struct Acp;

impl Dialect for Acp {
    // No line is a final and none carries a session id: the final comes out of band.
    fn classify(&self, line: &[u8]) -> LineClass {
        LineClass {
            may_carry_tool_events: crate::tools::may_carry(line),
            ..LineClass::default()
        }
    }

    fn validate_final(&self, v: &Value) -> Result<(), String> {
        let Some(o) = v.as_object() else {
            return Err("the final is not a JSON object".into());
        };
        for key in ["stopReason", "sessionId", "text"] {
            if !o.get(key).is_some_and(Value::is_string) {
                return Err(format!("the final has no string {key}"));
            }
        }
        Ok(())
    }

    fn final_session_id(&self, v: &Value) -> Option<String> {
        v.get("sessionId")
            .and_then(Value::as_str)
            .map(str::to_owned)
    }

    fn final_native_error(&self, v: &Value) -> Option<NativeError> {
        let reason = v.get("stopReason").and_then(Value::as_str)?;
        if reason == END_TURN {
            return None;
        }
        Some(NativeError {
            message: bounded(format!(
                "the agent ended the turn with stopReason {reason:?}"
            )),
            source: NativeSource::Protocol,
        })
    }

    fn exit_decides(&self) -> bool {
        false
    }

    fn tool_events(&self, v: &Value) -> Vec<ToolEvent> {
        crate::tools::events(v)
    }

    fn structured_candidate(&self, final_value: &Value) -> Candidate {
        crate::tools::structured(final_value)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn no_line_is_a_final_whatever_it_says() {
        // ACP-6: finals come out of band; a line that imitates one is an ordinary event.
        let class = Acp.classify(
            br#"{"type":"result","stopReason":"end_turn","sessionId":"s","text":"x","is_error":false,"session_id":"s"}"#,
        );
        assert_eq!(class.kind, cmk_engine::provider::LineKind::Event);
        assert!(!class.may_carry_error);
        assert_eq!(class.session_id, None);
    }

    #[test]
    fn only_end_turn_is_free_of_a_native_error() {
        let ok = json!({"stopReason": "end_turn", "sessionId": "s", "text": "hi"});
        assert!(Acp.validate_final(&ok).is_ok());
        assert_eq!(Acp.final_native_error(&ok), None);
        assert_eq!(Acp.final_session_id(&ok).as_deref(), Some("s"));
        for reason in [
            "refusal",
            "max_tokens",
            "max_turn_requests",
            "cancelled",
            "odd",
        ] {
            let v = json!({"stopReason": reason, "sessionId": "s", "text": ""});
            let ne = Acp.final_native_error(&v).expect("native error");
            assert_eq!(ne.source, NativeSource::Protocol);
            assert!(ne.message.contains(reason), "{}", ne.message);
        }
        assert!(
            Acp.validate_final(&json!({"stopReason": "end_turn", "text": "x"}))
                .is_err()
        );
        assert!(Acp.validate_final(&json!("end_turn")).is_err());
        assert!(!Acp.exit_decides());
    }
}
