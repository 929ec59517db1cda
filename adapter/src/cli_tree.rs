//! The pinned, partial command contract of the tested claude (NAT-1), loaded from `cli-tree.json`.

/// The raw text of the repository's cli-tree.json, embedded at build time.
pub const EMBEDDED: &str = include_str!("../../cli-tree.json");

/// The loaded command contract.
#[derive(Debug, Clone)]
pub struct CliTree {
    /// The parsed file.
    pub raw: serde_json::Value,
}

impl CliTree {
    /// Loads and validates a cli-tree document.
    pub fn parse(text: &str) -> Result<Self, serde_json::Error> {
        Ok(Self {
            raw: serde_json::from_str(text)?,
        })
    }
}
