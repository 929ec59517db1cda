//! `mcp-conformance`: a raw-stdio conformance gate for any MCP server.
//!
//! The runner speaks newline-delimited JSON-RPC to a server it starts itself, sends adversarial
//! input on purpose (malformed lines, invalid requests, batches, a 64 MiB frame), and grades every
//! answer against the MCP base protocol and the computer-mcp contract (`adapter-contract.md`: T*,
//! TOOL-*, META-*, RUN-*, BND-*, OUT-*, SUP-*). It never links the adapter it checks: framing and
//! classification come from the shared `mcp-wire` crate, and the server is just a command line.
//!
//! Flow: [`catalogue`] (one file per section, one registry table) → [`select`] (profile, `--case`,
//! baseline) → [`schedule`] (parallel cases, a fresh server per case, per-case timeout, group
//! kill) → [`client`] (raw stdio with a transcript) → [`verdict`] → [`report`].

pub mod acp;
pub mod baseline;
pub mod catalogue;
pub mod cli;
pub mod client;
pub mod discovery;
pub mod exits;
pub mod listing;
pub mod model;
pub mod pool;
pub mod process;
pub mod report;
pub mod roles;
pub mod schedule;
pub mod select;
pub mod target;
pub mod transcript;
pub mod verdict;
pub mod watch;

pub use model::{Case, Check, Level, Outcome, Profile};
