//! Integration tests of the built adapter binary, driven over stdio (one test binary per crate).
//!
//! - `support`: a raw stdio MCP session against the built binary (shared by all modules).
//! - `protocol`: T, TOOL and META rules that need no run.
//! - `runs`: the run engine against fake-claude scenarios (RUN, NAT, BND, OUT).
//! - `cursor`: the `cursor.run…` tools against fake-cursor-agent (PROV-2, ACP-1..12).
//! - `supervision`: process-group containment (SUP), including SIGKILL of the adapter.
//! - `real_claude`: the same tools against the real claude 2.1.328 and the Messages API stand-in.
//! - `replay`: every golden recording in `recordings/` replayed, one named test each.
//! - `fidelity`: fake-claude's built-in scenarios agree in shape with real streams.
//! - `hosts`: the host matrix: real MCP hosts (TS SDK, Inspector CLI, Python SDK, Claude Code)
//!   complete the core sequence in both name projections.
//! - `model`: authenticated model execution against the real service (opt-in, `#[ignore]`d,
//!   never in CI; docs/model-runs.md).
//! - `evidence`: docs/evidence.md is the generated coverage of contract ids by evidence class.

mod cursor;
mod evidence;
mod fidelity;
mod hosts;
mod model;
mod protocol;
mod real_claude;
mod replay;
mod runs;
mod supervision;
mod support;
mod tools;
