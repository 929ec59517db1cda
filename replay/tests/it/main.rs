//! mcp-replay's integration tests, one binary: recording through the proxy, replaying against
//! servers (the in-repo defect server and the pinned real ones), serving to real hosts, blessing,
//! and the repository's recordings against the published schema.

mod support;

mod acp;
mod action;
mod bless;
mod defects;
mod pacer;
mod real_hosts;
mod real_servers;
mod record;
mod reports;
mod schema;
mod serve;
