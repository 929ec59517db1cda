//! The canonical form the maker writes (`BLESS=1`): `mcp_replay::canonical`, the one
//! implementation (what it replaces and why is documented there).

/// The canonical form of the rows `claude-mcp-adapter --record` wrote (JSON Lines, no header).
#[must_use]
pub fn canonical(recorded: &str) -> String {
    mcp_replay::canonical::canonical(recorded).unwrap_or_else(|e| panic!("recorded rows: {e}"))
}
