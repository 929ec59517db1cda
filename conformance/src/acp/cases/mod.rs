//! The agent-mode catalogue: one file per section and one registry table ([`all`]). Each case
//! cites the ACP v1 schema definition or docs page it checks and is MUST / SHOULD as they say;
//! ids never change meaning, new checks get new ids.

pub mod cancel;
pub mod capabilities;
pub mod content;
pub mod exit;
pub mod extensions;
pub mod initialize;
pub mod jsonrpc;
pub mod permission;
pub mod prompt_turn;
pub mod session;
pub mod stdout;

use serde_json::Value;

use super::AcpCase;
use crate::catalogue::support::show;
use crate::model::Check;

/// Every case, in report order.
#[must_use]
pub fn all() -> Vec<AcpCase> {
    [
        stdout::CASES,
        initialize::CASES,
        session::CASES,
        prompt_turn::CASES,
        cancel::CASES,
        permission::CASES,
        jsonrpc::CASES,
        extensions::CASES,
        exit::CASES,
        content::CASES,
        capabilities::CASES,
    ]
    .concat()
}

/// Fails with the schema's complaints unless `instance` is a `$defs/<def>`.
pub fn conforms(def: &str, instance: &Value, what: &str) -> Result<(), Check> {
    let problems = super::schema::problems(def, instance);
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
    use std::collections::HashSet;

    #[test]
    fn ids_are_unique_slugs_with_a_rule_each() {
        let mut seen = HashSet::new();
        for c in super::all() {
            assert!(seen.insert(c.id), "duplicate id {}", c.id);
            assert!(
                c.id.chars()
                    .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || "/-.".contains(ch)),
                "id {} is not a slug",
                c.id
            );
            assert!(c.id.contains('/'), "id {} has no section", c.id);
            assert!(!c.requirement.is_empty() && !c.description.is_empty());
        }
    }
}
