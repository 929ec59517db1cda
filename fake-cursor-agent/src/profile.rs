//! Cursor's standing answers (`assets/cursor-profile.json`): the `initialize` and `session/new`
//! results, the `authenticate` and auth-required errors, model aliases and the two timings the
//! spike measured (idle exit after EOF, cancel answer delay). Data, so a newer Cursor build is a
//! file edit.

use serde_json::Value;

const PROFILE: &str = include_str!("../assets/cursor-profile.json");

/// The parsed profile.
#[derive(Debug, Clone)]
pub struct Profile {
    raw: Value,
}

impl Profile {
    /// The embedded profile (checked by a test, so the fallback to `null` never happens).
    pub fn load() -> Self {
        Self {
            raw: serde_json::from_str(PROFILE).unwrap_or(Value::Null),
        }
    }

    fn get(&self, key: &str) -> Value {
        self.raw.get(key).cloned().unwrap_or(Value::Null)
    }

    /// The `initialize` result.
    pub fn initialize(&self) -> Value {
        self.get("initialize")
    }

    /// The `session/new` result without its `sessionId`.
    pub fn session_new(&self) -> Value {
        self.get("session_new")
    }

    /// The error `authenticate` answers.
    pub fn authenticate_error(&self) -> Value {
        self.get("authenticate_error")
    }

    /// The error `session/new` answers without credentials.
    pub fn auth_required_error(&self) -> Value {
        self.get("auth_required_error")
    }

    /// The model `session/new` reports for `--model` (`None`: the default).
    pub fn model_name(&self, arg: Option<&str>) -> String {
        let Some(given) = arg else {
            return self
                .get("default_model")
                .as_str()
                .unwrap_or("auto")
                .to_owned();
        };
        self.raw
            .pointer(&format!(
                "/model_aliases/{}",
                given.replace('~', "~0").replace('/', "~1")
            ))
            .and_then(Value::as_str)
            .unwrap_or(given)
            .to_owned()
    }

    /// Milliseconds between stdin EOF and exit when no turn ran.
    pub fn idle_exit_ms(&self) -> u64 {
        self.get("idle_exit_ms").as_u64().unwrap_or(500)
    }

    /// Default milliseconds between `session/cancel` and the `cancelled` answer.
    pub fn cancel_answer_ms(&self) -> u64 {
        self.get("cancel_answer_ms").as_u64().unwrap_or(4)
    }
}
