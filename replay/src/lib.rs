//! `mcp-replay`: golden-recording regression runs for any stdio MCP server, ACP agent or host.
//!
//! - [`proxy`] records a live session between a host and a server, byte for byte, into a
//!   recording (`docs/recording.schema.json`);
//! - [`player`] replays a recording's client side against a server and compares every server
//!   message after normalisation ([`rules`]), each difference a unified diff ([`compare`]); a
//!   caller whose server leaves evidence beyond its stdout adds its own waits, preparation and
//!   transcript rows through a [`pacer::Pacer`];
//! - [`server`] serves a recording's server side to a host under test, ids rewritten to the
//!   host's, an unexpected request a reported difference;
//! - [`report`] renders outcomes as text, JSON or JUnit; [`safe_file`] creates recordings
//!   `0600`, never through a link, and writes blessed goldens atomically.
//!
//! The reference adapter's own golden replays are [`player::run_with`] runs with the adapter's
//! pacer (`adapter/tests/it/replay/pacer.rs`: the native rows and agent lines of its `--record`
//! file, the fake-claude scenario or fake-cursor-agent replay file written before each run, the
//! settle grace after a native exit); its `BLESS` maker writes them in the [`canonical`] form.
//! There is no other replay player in the repository.

pub mod canonical;
pub mod child;
pub mod compare;
pub mod error;
pub mod observe;
pub mod pacer;
pub mod player;
pub mod proxy;
pub mod recording;
pub mod report;
pub mod rules;
pub mod safe_file;
pub mod server;
pub mod transcript;
pub mod writer;

pub use error::{Error, Result};
