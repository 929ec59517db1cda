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

use crate::acp::gate::AcpCase;

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
