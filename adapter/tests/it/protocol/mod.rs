//! Protocol tests: T, TOOL and META rules, each a real stdio session against the built binary.

mod batches;
mod framing;
mod interop;
mod jsonrpc;
mod lifecycle;
mod meta;
mod resources;
mod tools;
