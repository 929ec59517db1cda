//! `cursor-agent --version`: the pinned line of the repository's `cursor-cli-tree.json` (ACP-9),
//! embedded at build time so the binary answers like the pinned build from any directory.

const CLI_TREE: &str = include_str!("../../cursor-cli-tree.json");

/// `version.line` of the pinned cursor-cli-tree.json (`2026.10.01-e373342`).
pub fn pinned_line() -> String {
    serde_json::from_str::<serde_json::Value>(CLI_TREE)
        .ok()
        .and_then(|v| v.pointer("/version/line")?.as_str().map(str::to_owned))
        .unwrap_or_default()
}
