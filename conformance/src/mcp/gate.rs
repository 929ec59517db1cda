//! The MCP gate's place in the one case type: a check gets a [`Ctx`], levels are given per
//! profile ([`Levels`]), and a run-lifecycle case may carry the tool family it checks.

use crate::core::case::Gate;
use crate::core::model::Level;
use crate::mcp::ctx::Ctx;
use crate::mcp::profile::{Levels, Profile};
use crate::mcp::roles::Family;

/// The MCP gate (`mcp-conformance`).
#[derive(Debug, Clone, Copy)]
pub struct Mcp;

impl Gate for Mcp {
    type Ctx = Ctx;
    type Levels = Levels;
    /// The tool family a run-lifecycle case checks when the server lists several (`None`: the
    /// first family, as every other case uses).
    type Variant = Option<&'static Family>;
    type Profile = Profile;

    fn level(levels: &Levels, profile: Profile) -> Option<Level> {
        levels.get(profile)
    }
}

/// One MCP case.
pub type Case = crate::core::case::Case<Mcp>;

/// One finished MCP case before grading.
pub type Ran = crate::core::schedule::Ran<Mcp>;
