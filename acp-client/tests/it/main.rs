//! Integration tests of `acp-client`: scripted in-memory agents over `tokio::io::duplex` for
//! every rule (ACP-1..ACP-8, BND-1, BND-3), the sent shapes against the ACP v1 schema, and two
//! real ACP agents (the TypeScript SDK's example agent, the Python SDK's echo agent).

mod cancel;
mod events;
mod handshake;
mod permissions;
mod policies;
mod real_agents;
mod routing;
mod schema;
mod support;
