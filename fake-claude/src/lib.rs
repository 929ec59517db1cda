//! fake-claude's modules as a library, so that other crates can call them: the `fake-claude`
//! binary (`src/main.rs`) is built on it, and the fuzz crate drives the scenario parser
//! ([`scenario::Scenario::parse`]). Not an API for anyone else: the modules are
//! public only so the binary and the fuzz target can reach them.

pub mod cli;
pub mod errors;
pub mod input;
pub mod interp;
pub mod invocation;
pub mod replay;
pub mod scenario;
pub mod validate;
pub mod version;
