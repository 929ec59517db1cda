//! Strict JSON results (JSONOUT-1..3), provider-neutral: the strict parser of a final text, the
//! schema check, and the instruction a provider without a native schema flag appends to its
//! prompt.
//!
//! The parser accepts exactly one bare JSON object, or exactly one fenced JSON object (an opening
//! line of three backticks, optionally `json`, the object, a closing line of three backticks),
//! with nothing but whitespace around it. Prose around it, two objects, a truncated object, an
//! array or a scalar is rejected (JSONOUT-2). Validation uses `jsonschema` (draft per the schema's
//! `$schema`, 2020-12 by default), and a failure names the first error's instance location as a
//! JSON Pointer (JSONOUT-3). A schema is bounded before it is compiled (JSONOUT-4,
//! [`crate::schema_cost`]); an output is costed before it is validated and validated off the
//! async runtime within a time budget (JSONOUT-5).

use std::time::Duration;

use serde_json::Value;

use crate::ToolError;
use crate::schema_cost::{self, Exceeded};

/// Largest `json_schema` accepted, serialized (bytes; JSONOUT-4's `bytes`).
#[expect(clippy::cast_possible_truncation, reason = "64 KiB fits every usize")]
pub const SCHEMA_MAX_BYTES: usize = schema_cost::MAX_BYTES as usize;
/// JSONOUT-5: most schema evaluations one output may cost (its values, each costed at its
/// depth's bound); a costlier output is refused before validation starts.
pub const EVALUATION_BUDGET: u64 = 1 << 24;
/// JSONOUT-5: longest a validation may take; past it the run fails and the validation's thread
/// is left to finish alone (its cost bounded by JSONOUT-4 and [`EVALUATION_BUDGET`]).
pub const TIME_BUDGET: Duration = Duration::from_secs(5);
/// Longest text kept in an `invalid_structured_output` error (bytes).
pub(crate) const TEXT_KEPT_MAX: usize = 16 * 1024;

/// What the final offers as structured output, as the provider's dialect reads it.
#[derive(Debug, Clone, PartialEq)]
pub enum Candidate {
    /// A native structured value (claude's `structured_output`).
    Value(Value),
    /// A text to parse strictly (Cursor's final text).
    Text(String),
    /// Nothing: the native final carries no structured output.
    Missing,
}

/// Why a structured result was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Refusal {
    /// No structured output at all.
    #[error("the final carries no structured output")]
    Missing,
    /// The text is not exactly one JSON object.
    #[error("the final text is not exactly one JSON object: {0}")]
    Unparsable(String),
    /// The object breaks the schema.
    #[error("the structured output does not match json_schema at {pointer:?}: {message}")]
    SchemaInvalid {
        /// The first error's instance location.
        pointer: String,
        /// The first error's message.
        message: String,
    },
    /// JSONOUT-5: validating it would cost, or did cost, more than its budget.
    #[error("the structured output was not validated: {0}")]
    Budget(String),
}

impl Refusal {
    /// `missing`, `unparsable` or `schema_invalid`.
    #[must_use]
    pub fn reason(&self) -> &'static str {
        match self {
            Refusal::Missing => "missing",
            Refusal::Unparsable(_) => "unparsable",
            Refusal::SchemaInvalid { .. } => "schema_invalid",
            Refusal::Budget(_) => "budget",
        }
    }
}

/// JSONOUT-2: the one JSON object of `text`, bare or fenced, with only whitespace around it.
pub(crate) fn parse_strict(text: &str) -> Result<Value, String> {
    let t = text.trim();
    let body = if let Some(rest) = t.strip_prefix("```") {
        let Some((opening, inner)) = rest.split_once('\n') else {
            return Err("a fence without a body".into());
        };
        let lang = opening.trim();
        if !(lang.is_empty() || lang.eq_ignore_ascii_case("json")) {
            return Err(format!("a fence of {lang:?}, not json"));
        }
        let Some(inner) = inner.trim_end().strip_suffix("```") else {
            return Err("an opening fence without its closing fence".into());
        };
        if !inner.trim_end_matches([' ', '\t', '\r']).ends_with('\n') {
            return Err("the closing fence is not on a line of its own".into());
        }
        inner
    } else {
        t
    };
    let v: Value = serde_json::from_str(body).map_err(|e| e.to_string())?;
    if !v.is_object() {
        return Err(format!("a JSON {}, not an object", kind(&v)));
    }
    Ok(v)
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Checks a `json_schema` argument (RUN-0, JSONOUT-4): an object within every limit that
/// `jsonschema` compiles. A limit's refusal names it (`limit`, `value`, `max`); the limits are
/// measured first, so nothing is compiled or copied for a schema past them.
pub fn check_schema(schema: &Value) -> Result<(), ToolError> {
    const FIELD: &str = "/json_schema";
    if !schema.is_object() {
        return Err(ToolError::invalid_argument(
            FIELD,
            "json_schema must be a JSON Schema object",
        ));
    }
    schema_cost::measure(schema).map_err(|e| refused(FIELD, e))?;
    jsonschema::validator_for(schema).map(|_| ()).map_err(|e| {
        ToolError::invalid_argument(
            FIELD,
            format!("json_schema is not a valid JSON Schema: {e}"),
        )
    })
}

/// `invalid_arguments` naming the limit (TOOL-3, JSONOUT-4).
fn refused(field: &str, e: Exceeded) -> ToolError {
    let value = e.value();
    ToolError::invalid_argument(field, e.message)
        .with("limit", e.name.into())
        .with("value", value)
        .with("max", e.max.into())
}

/// JSONOUT-1..3, JSONOUT-5: the validated object, or why not. Blocking: call it off the async
/// runtime ([`judge_within_budget`]).
pub fn judge(schema: &Value, candidate: Candidate) -> Result<Value, Refusal> {
    let value = match candidate {
        Candidate::Missing => return Err(Refusal::Missing),
        Candidate::Text(t) => parse_strict(&t).map_err(Refusal::Unparsable)?,
        Candidate::Value(v) if v.is_object() => v,
        Candidate::Value(v) => {
            return Err(Refusal::Unparsable(format!(
                "a JSON {}, not an object",
                kind(&v)
            )));
        }
    };
    // JSONOUT-5: the output's cost is known before anything runs.
    let cost = schema_cost::measure(schema).map_err(|e| Refusal::Budget(e.message))?;
    let evaluations = cost.instance_cost(&value);
    if evaluations > EVALUATION_BUDGET {
        return Err(Refusal::Budget(format!(
            "validating this output may take {evaluations} schema evaluations, over the \
             budget of {EVALUATION_BUDGET}"
        )));
    }
    let validator = jsonschema::validator_for(schema).map_err(|e| Refusal::SchemaInvalid {
        pointer: String::new(),
        message: format!("the schema does not compile: {e}"),
    })?;
    if let Err(err) = validator.validate(&value) {
        return Err(Refusal::SchemaInvalid {
            pointer: pointer_of(&err),
            message: err.to_string(),
        });
    }
    Ok(value)
}

/// JSONOUT-5: [`judge`] on a thread of its own, waited for at most `budget` (wall clock, so
/// a paused test clock cannot end it early) by a second thread that ends with the verdict.
/// Nothing waits for the judging thread: past the budget the run has its verdict and shutdown
/// never joins it (T8); it ends when its bounded work does.
pub async fn judge_within_budget(
    schema: Value,
    candidate: Candidate,
    budget: Duration,
) -> Result<Value, Refusal> {
    within_budget(move || judge(&schema, candidate), budget).await
}

/// Runs `work` on a thread of its own and answers with its verdict, or with
/// [`Refusal::Budget`] once `budget` has passed; the thread is then left to finish alone (a
/// validation cannot be interrupted), its verdict dropped.
pub(crate) async fn within_budget(
    work: impl FnOnce() -> Result<Value, Refusal> + Send + 'static,
    budget: Duration,
) -> Result<Value, Refusal> {
    let (done_tx, done_rx) = std::sync::mpsc::sync_channel::<Result<Value, Refusal>>(1);
    let (tx, rx) = tokio::sync::oneshot::channel::<Result<Value, Refusal>>();
    let judging = std::thread::Builder::new()
        .name("cmk-jsonout".into())
        .spawn(move || {
            let _ = done_tx.send(work());
        });
    if let Err(e) = judging {
        return Err(Refusal::Budget(format!("no thread to validate on: {e}")));
    }
    let waiting = std::thread::Builder::new()
        .name("cmk-jsonout-budget".into())
        .spawn(move || {
            use std::sync::mpsc::RecvTimeoutError;
            let verdict = match done_rx.recv_timeout(budget) {
                Ok(v) => v,
                Err(RecvTimeoutError::Timeout) => Err(Refusal::Budget(format!(
                    "validation did not finish within its {} ms budget",
                    budget.as_millis()
                ))),
                Err(RecvTimeoutError::Disconnected) => Err(Refusal::Budget(
                    "the validation ended without a verdict".into(),
                )),
            };
            let _ = tx.send(verdict);
        });
    if let Err(e) = waiting {
        return Err(Refusal::Budget(format!(
            "no thread to time the validation: {e}"
        )));
    }
    rx.await.unwrap_or_else(|_| {
        Err(Refusal::Budget(
            "the validation ended without a verdict".into(),
        ))
    })
}

/// The instance location of a schema error; a missing required property is named itself.
fn pointer_of(err: &jsonschema::ValidationError<'_>) -> String {
    let base = err.instance_path().as_str().to_owned();
    match err.kind() {
        jsonschema::error::ValidationErrorKind::Required { property } => match property.as_str() {
            Some(p) => format!("{base}/{}", p.replace('~', "~0").replace('/', "~1")),
            None => base,
        },
        _ => base,
    }
}

/// JSONOUT-2: the instruction appended to the prompt of a provider without a schema flag.
#[must_use]
pub fn instruction(schema: &Value) -> String {
    format!(
        "\n\nAnswer with exactly one JSON object that validates against the JSON Schema below, \
         and nothing else: no text before or after it, no second object. You may put it in one \
         ```json fence.\nJSON Schema: {schema}\n"
    )
}

#[cfg(test)]
#[path = "jsonout_tests.rs"]
mod tests;
