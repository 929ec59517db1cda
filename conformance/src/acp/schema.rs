//! Shape checks against the ACP v1 stable schema (`assets/acp-schema-v1-stable.json`, from
//! `@agentclientprotocol/sdk` 2.4.0, a copy of `shared/reference/acp/schema-v1-stable.json`):
//! one compiled validator per `$defs` entry, built on first use.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock, PoisonError};

use serde_json::{Value, json};

use crate::core::checks::show;
use crate::core::model::Check;

/// The schema text, embedded.
pub const SCHEMA: &str = include_str!("../../assets/acp-schema-v1-stable.json");

/// At most this many problems are reported per instance.
const MAX_PROBLEMS: usize = 3;

fn root() -> &'static Value {
    static ROOT: OnceLock<Value> = OnceLock::new();
    ROOT.get_or_init(|| serde_json::from_str(SCHEMA).unwrap_or(Value::Null))
}

type Cache = Mutex<HashMap<String, std::sync::Arc<jsonschema::Validator>>>;

fn validator(def: &str) -> Option<std::sync::Arc<jsonschema::Validator>> {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(Cache::default);
    let mut map = cache.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(v) = map.get(def) {
        return Some(v.clone());
    }
    let root = root();
    root.get("$defs")?.get(def)?;
    let schema = json!({
        "$schema": root["$schema"],
        "$defs": root["$defs"],
        "$ref": format!("#/$defs/{def}"),
    });
    let v = std::sync::Arc::new(jsonschema::validator_for(&schema).ok()?);
    map.insert(def.to_owned(), v.clone());
    Some(v)
}

/// What is wrong with `instance` as a `$defs/<def>` of the schema (empty when it conforms). An
/// unknown definition is reported as a problem (a runner bug, never a silent pass).
#[must_use]
pub fn problems(def: &str, instance: &Value) -> Vec<String> {
    let Some(v) = validator(def) else {
        return vec![format!("the runner has no schema definition {def}")];
    };
    v.iter_errors(instance)
        .take(MAX_PROBLEMS)
        .map(|e| {
            let at = e.instance_path().to_string();
            format!(
                "{}{e}",
                if at.is_empty() {
                    String::new()
                } else {
                    format!("at {at}: ")
                }
            )
        })
        .collect()
}

/// The `sessionUpdate` variants the schema knows (others must be tolerated by clients, and are
/// not graded for shape here).
#[must_use]
pub fn known_update_variants() -> Vec<String> {
    let mut out = Vec::new();
    let Some(variants) = root()
        .pointer("/$defs/SessionUpdate/oneOf")
        .and_then(Value::as_array)
    else {
        return out;
    };
    for v in variants {
        if let Some(c) = v
            .pointer("/properties/sessionUpdate/const")
            .and_then(Value::as_str)
        {
            out.push(c.to_owned());
        }
    }
    out
}

/// The `stopReason` values of the schema.
#[must_use]
pub fn stop_reasons() -> Vec<String> {
    let mut out = Vec::new();
    if let Some(vs) = root()
        .pointer("/$defs/StopReason/oneOf")
        .and_then(Value::as_array)
    {
        for v in vs {
            if let Some(c) = v.get("const").and_then(Value::as_str) {
                out.push(c.to_owned());
            }
        }
    }
    out
}

/// Fails with the schema's complaints unless `instance` is a `$defs/<def>`.
pub fn conforms(def: &str, instance: &Value, what: &str) -> Result<(), Check> {
    let problems = problems(def, instance);
    if problems.is_empty() {
        Ok(())
    } else {
        Err(Check::fail(
            format!("{what} conforming to the schema's {def}"),
            format!("{}: {}", problems.join("; "), show(instance)),
        ))
    }
}

/// The method of a message, when it has one.
#[must_use]
pub fn method_of(m: &Value) -> Option<&str> {
    m.get("method").and_then(Value::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_knows_the_documented_variants_and_stop_reasons() {
        let v = known_update_variants();
        for name in [
            "agent_message_chunk",
            "tool_call",
            "tool_call_update",
            "plan",
        ] {
            assert!(v.iter().any(|x| x == name), "{name} in {v:?}");
        }
        let s = stop_reasons();
        assert!(s.iter().any(|x| x == "end_turn") && s.iter().any(|x| x == "cancelled"));
    }

    #[test]
    fn a_stop_reason_outside_the_enum_is_a_problem() {
        assert!(problems("PromptResponse", &json!({"stopReason": "end_turn"})).is_empty());
        assert!(!problems("PromptResponse", &json!({"stopReason": "done"})).is_empty());
    }
}
