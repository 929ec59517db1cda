//! Tool arguments: validation against the listed schema (TOOL-2, TOOL-3), the few bounds JSON
//! Schema cannot state (UTF-8 byte lengths, `detach_after_s ≤ timeout_s`), and the typed values
//! the engine takes.
//!
//! Every failure is `invalid_arguments` with `field` = the JSON Pointer of the offending argument
//! (TOOL-3), relative to `arguments`. For an `additionalProperties` violation the pointer names
//! the unknown property; for a missing required argument, the missing one.

use std::time::Duration;

use serde_json::{Map, Value};
use uuid::Uuid;

use crate::catalogue::{DEFAULT_TIMEOUT_S, EVENTS_LIMIT_DEFAULT, META_WORK_INVOCATION, Tool};
use cmk_engine::{RunRequest, ToolError};

/// Longest excerpt of a validator message kept in an error (messages may quote the instance,
/// which can be a 128 KiB prompt).
const MESSAGE_MAX: usize = 240;

/// Validates `args` (an object) with the tool's compiled schema, then the byte bounds. Takes the
/// value as it came, so arguments near the frame bound are never copied.
pub(crate) fn validate(tool: &Tool, instance: &Value) -> Result<(), ToolError> {
    if let Some(err) = tool.validator.iter_errors(instance).next() {
        let pointer = pointer_of(&err);
        let message = truncate(&err.to_string());
        return Err(ToolError::invalid_argument(
            pointer.clone(),
            format!("invalid argument {}: {message}", display_pointer(&pointer)),
        ));
    }
    // RUN-0: JSON Schema's maxLength counts characters; the contract bounds UTF-8 bytes.
    for (key, max) in &tool.byte_bounds {
        if let Some(Value::String(s)) = instance.get(key)
            && s.len() > *max
        {
            return Err(ToolError::invalid_argument(
                format!("/{key}"),
                format!(
                    "invalid argument /{key}: {} bytes of UTF-8, at most {max} allowed",
                    s.len()
                ),
            ));
        }
    }
    Ok(())
}

/// The JSON Pointer a validation error is about (TOOL-3).
fn pointer_of(err: &jsonschema::ValidationError<'_>) -> String {
    use jsonschema::error::ValidationErrorKind as K;
    let base = err.instance_path().as_str().to_owned();
    match err.kind() {
        K::AdditionalProperties { unexpected } => match unexpected.first() {
            Some(p) => format!("{base}/{}", escape(p)),
            None => base,
        },
        K::Required { property } => match property.as_str() {
            Some(p) => format!("{base}/{}", escape(p)),
            None => base,
        },
        _ => base,
    }
}

/// RFC 6901 escaping of one reference token.
fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

fn display_pointer(p: &str) -> &str {
    if p.is_empty() { "(arguments)" } else { p }
}

fn truncate(s: &str) -> String {
    if s.len() <= MESSAGE_MAX {
        return s.to_owned();
    }
    let mut end = MESSAGE_MAX;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

/// JSON Schema's `integer` accepts `5.0`; the engine's types take `u64`. Integral floats of
/// validated integer arguments are turned into integers first.
fn integral(v: &Value) -> Option<u64> {
    v.as_u64().or_else(|| {
        v.as_f64()
            .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f <= u64::MAX as f64)
            .map(|f| f as u64)
    })
}

/// `claude.run` / `claude.run.start` arguments, split into the engine's request and the MCP
/// layer's wait option.
#[derive(Debug)]
pub(crate) struct RunArgs {
    /// What the engine starts (RUN-0).
    pub request: RunRequest,
    /// `claude.run` only: return the handle after this long (RUN-1).
    pub detach_after: Option<Duration>,
}

/// Builds [`RunArgs`] from validated arguments, taking them: a `json_schema` near the frame
/// bound is moved, never copied (C-T6a's peak holds on every path).
pub(crate) fn run_args(args: Map<String, Value>, max_timeout_s: u64) -> Result<RunArgs, ToolError> {
    let mut obj = args;
    let detach = obj.remove("detach_after_s").as_ref().and_then(integral);
    for key in ["timeout_s"] {
        if let Some(n) = obj.get(key).and_then(integral) {
            obj.insert(key.into(), n.into());
        }
    }
    let timeout = obj
        .get("timeout_s")
        .and_then(Value::as_u64)
        .unwrap_or(DEFAULT_TIMEOUT_S.min(max_timeout_s));
    if let Some(d) = detach
        && d > timeout
    {
        // RUN-0: detach_after_s is 1 to timeout_s; the schema can only say 1 to the maximum.
        return Err(ToolError::invalid_argument(
            "/detach_after_s",
            format!("invalid argument /detach_after_s: {d} exceeds timeout_s ({timeout})"),
        ));
    }
    let request = RunRequest::from_arguments(obj)?;
    Ok(RunArgs {
        request,
        detach_after: detach.map(Duration::from_secs),
    })
}

/// The validated `run_id` argument.
#[must_use]
pub(crate) fn run_id(args: &Map<String, Value>) -> &str {
    args.get("run_id").and_then(Value::as_str).unwrap_or("")
}

/// The validated `.events` paging arguments: `(cursor, limit)`.
#[must_use]
pub(crate) fn page(args: &Map<String, Value>) -> (Option<&str>, usize) {
    let cursor = args.get("cursor").and_then(Value::as_str);
    let limit = args
        .get("limit")
        .and_then(integral)
        .unwrap_or(EVENTS_LIMIT_DEFAULT);
    (cursor, usize::try_from(limit).unwrap_or(usize::MAX))
}

/// META-WORK-4: the acquiring invocation from `params._meta`, if any. A value that is not a UUID
/// in hyphenated form is `invalid_arguments`; its `field` is the pointer relative to `params`
/// (the key's `/` escaped), since it is not an argument.
pub(crate) fn work_invocation(
    meta: Option<&Map<String, Value>>,
) -> Result<Option<Uuid>, ToolError> {
    let Some(v) = meta.and_then(|m| m.get(META_WORK_INVOCATION)) else {
        return Ok(None);
    };
    let field = format!("/_meta/{}", escape(META_WORK_INVOCATION));
    let parsed = v
        .as_str()
        .filter(|s| cmk_native::cli_tree::is_hyphenated_uuid(s))
        .and_then(|s| Uuid::try_parse(s).ok());
    match parsed {
        Some(u) => Ok(Some(u)),
        None => Err(ToolError::invalid_argument(
            field,
            format!("invalid {META_WORK_INVOCATION}: expected a UUID"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::catalogue::Catalogue;
    use cmk_engine::ToolNames;

    fn err_field(tool: &str, args: Value) -> String {
        let c = Catalogue::new(
            ToolNames::Dotted,
            1800,
            &[
                std::sync::Arc::new(cmk_provider_claude::ClaudeProvider::new(
                    "claude".into(),
                    std::sync::Arc::new(cmk_native::cli_tree::CliTree::embedded().expect("tree")),
                )) as std::sync::Arc<dyn cmk_engine::provider::Provider>,
            ],
        )
        .expect("catalogue");
        let t = c.get(tool).expect("tool");
        assert!(args.is_object());
        let e = validate(t, &args).expect_err("invalid");
        e.extra["field"].as_str().expect("field").to_owned()
    }

    #[test]
    fn pointers_name_the_offending_argument() {
        assert_eq!(err_field("claude.run", json!({})), "/prompt");
        assert_eq!(
            err_field("claude.run", json!({"prompt": "x", "bogus": 1})),
            "/bogus"
        );
        assert_eq!(
            err_field("claude.run", json!({"prompt": "x", "a/b~": 1})),
            "/a~1b~0"
        );
        assert_eq!(
            err_field("claude.run", json!({"prompt": "x", "timeout_s": 0})),
            "/timeout_s"
        );
        assert_eq!(
            err_field("claude.run.events", json!({"run_id": "r", "limit": 257})),
            "/limit"
        );
        assert_eq!(err_field("claude.run.list", json!({"x": 1})), "/x");
    }

    #[test]
    fn prompt_bytes_are_bounded_beyond_characters() {
        // 70 000 two-byte characters: within maxLength, over 128 KiB of UTF-8.
        assert_eq!(
            err_field("claude.run", json!({"prompt": "é".repeat(70_000)})),
            "/prompt"
        );
    }

    #[test]
    fn detach_beyond_timeout_is_refused() {
        let m = json!({"prompt": "x", "timeout_s": 10.0, "detach_after_s": 11});
        let e = run_args(m.as_object().expect("obj").clone(), 1800).expect_err("refused");
        assert_eq!(e.extra["field"], "/detach_after_s");
        let m = json!({"prompt": "x", "timeout_s": 10.0, "detach_after_s": 10});
        let a = run_args(m.as_object().expect("obj").clone(), 1800).expect("ok");
        assert_eq!(a.request.timeout_s, Some(10));
        assert_eq!(a.detach_after, Some(Duration::from_secs(10)));
    }

    #[test]
    fn work_invocation_must_be_a_hyphenated_uuid() {
        let ok = json!({META_WORK_INVOCATION: "123e4567-e89b-12d3-a456-426614174000"});
        assert!(work_invocation(ok.as_object()).expect("ok").is_some());
        for bad in [
            json!("nope"),
            json!(7),
            json!("123e4567e89b12d3a456426614174000"),
        ] {
            let m = json!({META_WORK_INVOCATION: bad});
            let e = work_invocation(m.as_object()).expect_err("bad");
            assert_eq!(
                e.extra["field"],
                "/_meta/io.github.computer-mcp~1work-invocation"
            );
        }
    }
}
