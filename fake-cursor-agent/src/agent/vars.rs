//! Placeholders filled inside string values (never keys) of what a scenario emits:
//! `{{session_id}}`, `{{cwd}}`, `{{model}}`, `{{mode}}`, `{{prompt}}` (the prompt's text) and
//! `{{i}}` (the index inside `repeat`). Unknown placeholders stay as written.

use serde_json::Value;

use super::Session;

/// Placeholder values.
#[derive(Debug, Clone, Default)]
pub struct Vars(Vec<(String, String)>);

impl Vars {
    /// The values of `session` (and the prompt, if any).
    pub fn of(session: &Session, prompt: Option<&str>) -> Self {
        let mut v = Self::default();
        v.set("session_id", &session.id);
        v.set("cwd", &session.cwd);
        v.set("model", &session.model);
        v.set("mode", &session.mode);
        v.set("prompt", prompt.unwrap_or_default());
        v
    }

    /// Sets `name`.
    pub fn set(&mut self, name: &str, value: &str) {
        let key = format!("{{{{{name}}}}}");
        match self.0.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => value.clone_into(&mut slot.1),
            None => self.0.push((key, value.to_owned())),
        }
    }

    fn apply(&self, s: &str) -> String {
        if !s.contains("{{") {
            return s.to_owned();
        }
        let mut out = s.to_owned();
        for (k, v) in &self.0 {
            out = out.replace(k.as_str(), v);
        }
        out
    }
}

/// `v` with every string value's placeholders filled.
pub fn fill(v: &Value, vars: &Vars) -> Value {
    match v {
        Value::String(s) => Value::String(vars.apply(s)),
        Value::Array(a) => Value::Array(a.iter().map(|x| fill(x, vars)).collect()),
        Value::Object(o) => {
            Value::Object(o.iter().map(|(k, x)| (k.clone(), fill(x, vars))).collect())
        }
        other => other.clone(),
    }
}
