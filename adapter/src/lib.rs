//! `claude-mcp-adapter`: the reference stdio MCP server that runs Claude Code's print mode.
//!
//! This crate is the binary and its wiring; the parts are crates of their own, each behind a
//! boundary the compiler enforces (see `docs/architecture.md`):
//! - `cmk-mcp-server`: the MCP protocol surface over stdio (lifecycle, dispatch, the tools).
//! - `cmk-engine`: the provider-neutral run engine (run table, driver, outcome rules, the
//!   `Provider` trait); it depends on no provider.
//! - `cmk-provider-claude`, `cmk-provider-cursor`: the native CLIs, over `cmk-native` (their
//!   pinned command contracts, version check and drift check).
//! - `cmk-supervisor`: the private per-run supervisor process (SUP-1..4), which is this binary
//!   re-run with a hidden subcommand.
//!
//! Here: [`providers`], the one table that names the providers, [`cli_projection`], the
//! one-shot `cli run` projection (CLI-1), and [`cli_tree_cmd`], the maintainer's `cli-tree
//! check` / `cli-tree refresh` with flags derived from the same table.

pub mod cli_projection;
pub mod cli_tree_cmd;
pub mod providers;
