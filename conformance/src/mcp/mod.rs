//! The MCP gate (`mcp-conformance`) on the runner core: profiles and levels ([`profile`]), the
//! catalogue (one file per section, [`catalogue`]), the discovery session ([`discovery`]), the
//! tool roles and families it finds ([`roles`]), the target ([`target`]), the case context
//! ([`ctx`]), the cross-cutting rules ([`watch`]), the listing ([`listing`]), and the MCP
//! revisions: the model ([`revision`]) and which ones a server supports ([`revision_probe`]);
//! which cases run over which transport ([`transport`]; Streamable HTTP's own cases: [`http`]).

pub mod catalogue;
pub mod ctx;
pub mod discovery;
pub mod gate;
pub mod http;
pub mod listing;
pub mod profile;
pub mod revision;
pub mod revision_probe;
pub mod roles;
pub mod run;
pub mod target;
pub mod tool_result;
pub mod transport;
pub mod watch;
