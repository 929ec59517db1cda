//! Integration tests of the built adapter binary, driven over stdio (one test binary per crate).
//!
//! - `support`: a raw stdio MCP session against the built binary (shared by all modules).
//! - `protocol`: T, TOOL and META rules that need no run.
//! - `runs`: the run engine against fake-claude scenarios (RUN, NAT, BND, OUT).
//! - `supervision`: process-group containment (SUP), including SIGKILL of the adapter.

mod protocol;
mod runs;
mod supervision;
mod support;
