//! A stand-in dialect and texts for the engine's own tests, shaped like claude's stream-json on
//! what the engine's rules need (this crate cannot depend on a provider): a final is a line whose
//! top-level `type` is `result`, valid with a string `session_id`, a string `subtype` and a
//! boolean `is_error`; it carries a native error when `is_error` is true (its `result` text);
//! an `assistant` line with `error` carries one too; the exit decides success. Lines are parsed
//! whole (the engine's tests hold no line over the bound).

use serde_json::Value;

use crate::native::{NativeError, NativeSource, bounded};
use crate::provider::{Dialect, LineClass, LineKind, Role, Texts};

/// The stand-in dialect.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Lines;

impl Dialect for Lines {
    fn classify(&self, line: &[u8]) -> LineClass {
        let Ok(v) = serde_json::from_slice::<Value>(line) else {
            return LineClass::default();
        };
        let ty = v.get("type").and_then(Value::as_str);
        LineClass {
            kind: if ty == Some("result") {
                LineKind::Final
            } else {
                LineKind::Event
            },
            session_id: v
                .get("session_id")
                .and_then(Value::as_str)
                .map(str::to_owned),
            may_carry_error: ty == Some("assistant")
                && v.get("error").is_some_and(|e| !e.is_null()),
            may_carry_tool_events: false,
            tag: ty.map(str::to_owned),
        }
    }

    fn validate_final(&self, v: &Value) -> Result<(), String> {
        let ok = v.get("session_id").is_some_and(Value::is_string)
            && v.get("subtype").is_some_and(Value::is_string)
            && v.get("is_error").is_some_and(Value::is_boolean);
        if ok {
            Ok(())
        } else {
            Err("the result event lacks session_id, subtype or is_error".into())
        }
    }

    fn final_session_id(&self, v: &Value) -> Option<String> {
        v.get("session_id")
            .and_then(Value::as_str)
            .map(str::to_owned)
    }

    fn final_native_error(&self, v: &Value) -> Option<NativeError> {
        (v.get("is_error").and_then(Value::as_bool) == Some(true)).then(|| NativeError {
            message: bounded(
                v.get("result")
                    .and_then(Value::as_str)
                    .unwrap_or("native error")
                    .to_owned(),
            ),
            source: NativeSource::Result,
        })
    }

    fn event_native_error(&self, v: &Value) -> Option<NativeError> {
        let err = v.get("error").filter(|e| !e.is_null())?;
        Some(NativeError {
            message: bounded(err.as_str().map_or_else(|| err.to_string(), str::to_owned)),
            source: NativeSource::Assistant,
        })
    }

    fn exit_decides(&self) -> bool {
        true
    }
}

/// Texts nobody reads: the engine never shows them.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct TestTexts;

impl Texts for TestTexts {
    fn title(&self, _role: Role) -> &'static str {
        "test"
    }

    fn description(&self, _role: Role) -> &'static str {
        "test"
    }

    fn prompt_description(&self) -> &'static str {
        "test"
    }

    fn instructions(&self) -> &'static str {
        "test"
    }

    fn product(&self) -> &'static str {
        "test"
    }

    fn server_title(&self) -> &'static str {
        "test"
    }
}
