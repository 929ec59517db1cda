//! `mcp-conformance`: raw-stdio conformance gates for MCP servers (`mcp-conformance`) and ACP
//! agents and clients (`acp-conformance`), on one runner core.
//!
//! The runner speaks newline-delimited JSON-RPC to a peer it starts itself, sends adversarial
//! input on purpose (malformed lines, invalid requests, batches, a 64 MiB frame), and grades every
//! answer against the protocol and the computer-mcp contract (`adapter-contract.md`: T*,
//! TOOL-*, META-*, RUN-*, BND-*, OUT-*, SUP-*). It never links the adapter it checks: framing and
//! classification come from the shared `mcp-wire` crate, and the peer is just a command line.
//!
//! Three folders, layered: [`core`] knows no protocol's catalogue (the case type, the scheduler,
//! the raw client, the cross-cutting engine, grading and the report writers); [`mcp`] and
//! [`acp`] are the two gates' catalogues and contexts, each on [`core`] and never on each other.
//! Flow: a gate's catalogue → [`core::select`] → [`core::schedule`] (parallel cases, fresh peers
//! per case, per-case timeout, group kill) → [`core::client`] (raw stdio with a transcript) →
//! [`core::verdict`] → [`core::report`].

pub mod acp;
pub mod core;
pub mod mcp;

#[cfg(test)]
mod module_graph;
