//! The names the computer-mcp contract (`docs/contract.md`) fixes, spelled once for both sides:
//! the seven tool roles (TOOL-1) and the fields of a run's result (RUN-4). The adapter's engine
//! and the black-box conformance gate both depend on this crate and on nothing of each other's.
//!
//! Only names live here, never a rule's verdict: what each role must declare (its risk,
//! META-RISK-2; whether it continues a run, META-CONT-1) is stated by the adapter's catalogue and
//! expected, separately, by the gate (`conformance/src/mcp/roles.rs`), because a judge must not
//! be the code under test. The names themselves are held to `docs/contract.md`'s text by this
//! crate's tests.

/// The seven tool roles (TOOL-1), named by their suffix after `<namespace>.run`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    /// `<ns>.run`: run and wait (RUN-1).
    Run,
    /// `<ns>.run.start`: start, return a handle (RUN-2).
    Start,
    /// `<ns>.run.list` (RUN-3).
    List,
    /// `<ns>.run.result` (RUN-4).
    Result,
    /// `<ns>.run.events` (RUN-5).
    Events,
    /// `<ns>.run.cancel` (RUN-6).
    Cancel,
    /// `<ns>.run.release` (RUN-7).
    Release,
}

impl Role {
    /// Every role, in listing (and contract) order.
    pub const ALL: [Role; 7] = [
        Role::Run,
        Role::Start,
        Role::List,
        Role::Result,
        Role::Events,
        Role::Cancel,
        Role::Release,
    ];

    /// The dotted suffix after `<ns>.run` (`""`, `".start"`, …).
    #[must_use]
    pub fn suffix(self) -> &'static str {
        match self {
            Role::Run => "",
            Role::Start => ".start",
            Role::List => ".list",
            Role::Result => ".result",
            Role::Events => ".events",
            Role::Cancel => ".cancel",
            Role::Release => ".release",
        }
    }
}

/// The fields of a run's result, in RUN-4's order (`claude.run`, `claude.run.result` and a
/// settled `claude.run.start` answer carry all of them).
pub const RESULT_FIELDS: [&str; 19] = [
    "run_id",
    "state",
    "completed",
    "is_error",
    "native_session_id",
    "final",
    "native_error",
    "error",
    "cleanup_confirmed",
    "cleanup_error",
    "exit_code",
    "signal",
    "events_total",
    "events_dropped",
    "stderr_tail",
    "tool_calls",
    "permission_denials",
    "loop_guard",
    "structured",
];

#[cfg(test)]
mod tests {
    use super::*;

    /// RUN-4's shape as `docs/contract.md` writes it: `{run_id, state, …}`.
    fn contract_shape() -> Vec<String> {
        let text = include_str!("../../docs/contract.md");
        let start = text.find("- **RUN-4**").expect("RUN-4 in the contract");
        let rest = &text[start..];
        let open = rest.find('{').expect("RUN-4's shape") + 1;
        let close = rest[open..].find('}').expect("RUN-4's shape closes") + open;
        rest[open..close]
            .split(',')
            .map(|f| f.trim().trim_matches('`').to_owned())
            .collect()
    }

    #[test]
    fn the_result_fields_are_run_4s_in_its_order() {
        assert_eq!(contract_shape(), RESULT_FIELDS);
    }

    #[test]
    fn the_roles_are_tool_1s_seven_suffixes() {
        let dotted: Vec<String> = Role::ALL
            .iter()
            .map(|r| format!("claude.run{}", r.suffix()))
            .collect();
        let text = include_str!("../../docs/contract.md");
        for name in &dotted {
            assert!(
                text.contains(&format!("`{name}`")),
                "{name} is in the contract"
            );
        }
        let mut unique = dotted.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), 7);
    }
}
