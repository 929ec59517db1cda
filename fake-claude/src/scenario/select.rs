//! Which scenario runs, first match wins: the prompt's first line `fake-claude:scenario=NAME` (a
//! runner that controls only the prompt picks one this way), else env `FAKE_CLAUDE_SCENARIO`
//! (a built-in name or a file path), else the built-in `success`.

use super::builtin;
use super::model::{Scenario, ScenarioError};

/// The prompt line prefix that selects a scenario.
pub const PROMPT_PREFIX: &str = "fake-claude:scenario=";
/// The env variable that selects a scenario.
pub const ENV_SCENARIO: &str = "FAKE_CLAUDE_SCENARIO";
/// The scenario used when nothing selects one.
pub const DEFAULT: &str = "success";

/// The scenario name carried by the prompt's first line, if any.
pub fn from_prompt(prompt: &str) -> Option<&str> {
    let first = prompt.split('\n').next().unwrap_or_default().trim();
    first.strip_prefix(PROMPT_PREFIX).map(str::trim)
}

/// Picks and loads the scenario for this invocation.
pub fn select(prompt: Option<&str>) -> Result<Scenario, ScenarioError> {
    if let Some(name) = prompt.and_then(from_prompt) {
        return load(name, "the prompt's first line");
    }
    if let Ok(name) = std::env::var(ENV_SCENARIO)
        && !name.is_empty()
    {
        return load(&name, ENV_SCENARIO);
    }
    load(DEFAULT, "default")
}

/// A built-in name, else a path to a scenario file (anything with a `/` or ending in `.json`).
pub fn load(name: &str, via: &'static str) -> Result<Scenario, ScenarioError> {
    if let Some(text) = builtin::text(name) {
        return Scenario::parse(name, text);
    }
    if name.contains('/') || name.ends_with(".json") {
        let text = std::fs::read_to_string(name).map_err(|source| ScenarioError::Io {
            path: name.to_owned(),
            source,
        })?;
        return Scenario::parse(name, &text);
    }
    Err(ScenarioError::Unknown {
        name: name.to_owned(),
        via,
        known: builtin::names().join(", "),
    })
}
