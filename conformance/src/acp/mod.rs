//! ACP (Agent Client Protocol) conformance. [`client`]: client mode, the runner plays a scripted
//! agent that the client under test launches, and grades what the client sent on the wire.

pub mod client;
