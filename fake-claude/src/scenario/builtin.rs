//! The scenarios shipped in `fake-claude/scenarios/`, embedded at build time (see build.rs).

include!(concat!(env!("OUT_DIR"), "/builtin_scenarios.rs"));

/// The JSON text of the built-in scenario `name`.
pub fn text(name: &str) -> Option<&'static str> {
    BUILTIN.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// Built-in names, sorted, for error messages.
pub fn names() -> Vec<&'static str> {
    BUILTIN.iter().map(|(n, _)| *n).collect()
}

/// The JSON text of the built-in fragment `name` (`scenarios/fragments/NAME.json`).
pub fn fragment(name: &str) -> Option<&'static str> {
    FRAGMENTS.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}
