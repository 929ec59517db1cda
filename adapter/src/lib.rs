//! `claude-mcp-adapter`: the reference stdio MCP server that runs Claude Code's print mode.
//!
//! The crate is a library plus a thin binary so integration tests and benchmarks can reach the
//! pieces. Layout (see `docs/architecture.md`):
//! - [`mcp`]: the MCP protocol surface (lifecycle, dispatch, tools/list, tools/call, resources).
//! - [`engine`]: the provider-neutral run engine (registry, bounds, outcome rules, the provider
//!   trait).
//! - [`providers`]: the native CLIs (claude; their pinned command contracts and drift check).
//! - [`supervisor`]: the private per-run supervisor process (SUP-1..4).
//! - [`cli_projection`]: the one-shot `cli run` projection (CLI-1).
//! - [`record`]: the wire recorder behind `--record`.
//! - [`diag`]: diagnostics on stderr that never block or panic.
//! - [`alloc`]: glibc malloc tuning so released runs' memory leaves the process.

pub mod alloc;
pub mod cli_projection;
pub mod config;
pub mod diag;
pub mod engine;
pub mod mcp;
pub mod providers;
pub mod record;
pub use cmk_supervisor as supervisor;
