//! Test support for the claude-mcp-kit workspace: a local Messages API stand-in that drives the
//! real `claude` with no account ([`standin`]), pinned installs of real peers in a cache outside
//! the repository ([`prereq`]), and command builders for the real CLI ([`claude`]).

pub mod claude;
pub mod evidence;
pub mod prereq;
pub mod standin;
