//! ACP (Agent Client Protocol) on the runner core: the `acp-conformance` binary's catalogue,
//! driver and case context. Agent mode (`-- AGENT_COMMAND…`) starts a fresh agent per case in
//! its own process group, plays the client (serving `fs/*` and `terminal/*` in a scratch
//! directory when it advertises them, answering permission requests by `kind`), and grades the
//! agent against the ACP v1 schema (`assets/acp-schema-v1-stable.json`) and the protocol docs.
//!
//! Shared with `mcp-conformance` through [`crate::core`]: the case type and the scheduler
//! (`--jobs`), the raw client (bounded frames, transcripts), process containment, grading,
//! baseline and exit status, and the report writers (pretty, JSON with `protocol: "acp"`,
//! JUnit).
//!
//! Client mode (`--client`, [`client`]): the runner plays a scripted agent that the client under
//! test launches, and grades what the client sent; its cases are the same case type, run by the
//! same scheduler, graded and reported with [`gate::AcpProfile::Client`].

pub mod cases;
pub mod client;
pub mod ctx;
pub mod driver;
pub mod gate;
pub mod responder;
pub mod schema;
pub mod terminal;
pub mod watch;

use crate::acp::gate::AcpCase;

/// Every agent-mode case, in report order.
#[must_use]
pub fn all() -> Vec<AcpCase> {
    cases::all()
}

/// The cases whose id matches any of `globs` (all when empty), in catalogue order, with the
/// cross-cutting cases added: a `--case` shard keeps the id rule on the exchanges it makes.
#[must_use]
pub fn select_with_crosscut(catalogue: &[AcpCase], globs: &[String]) -> Vec<AcpCase> {
    let selected = select(catalogue, globs);
    catalogue
        .iter()
        .filter(|c| selected.iter().any(|s| s.id == c.id) || c.needs.crosscut())
        .copied()
        .collect()
}

/// The cases whose id matches any of `globs` (all when empty), in catalogue order.
#[must_use]
pub fn select(catalogue: &[AcpCase], globs: &[String]) -> Vec<AcpCase> {
    crate::core::select::select(catalogue, globs, |_| true)
}

/// The Markdown catalogue table of `docs/acp-conformance.md` (checked by a test).
#[must_use]
pub fn markdown(cases: &[AcpCase]) -> String {
    use std::fmt::Write as _;
    let mut out = String::from("| Case id | Level | Rule | What it checks |\n|---|---|---|---|\n");
    for c in cases {
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} |",
            c.id,
            c.levels.name(),
            c.requirement.replace('|', "\\|"),
            c.description.replace('|', "\\|")
        );
    }
    out
}
