//! Test support for the claude-mcp-kit workspace: a local Messages API stand-in that drives the
//! real `claude` with no account ([`standin`]), pinned installs of real peers in a cache outside
//! the repository ([`prereq`]), command builders for the real CLI ([`claude`]), and the helpers
//! every crate's tests share: the native argv ([`argv`]), golden files and one meaning of `BLESS`
//! ([`golden`]), processes and process groups seen through `/proc` ([`procs`]), and the probe
//! that `SIGKILL`s the tool that spawned it, for the containment tests of C-SUP-5
//! ([`parent_kill`]).

pub mod argv;
pub mod claude;
pub mod evidence;
pub mod golden;
pub mod listen;
pub mod modcycles;
pub mod parent_kill;
pub mod prereq;
pub mod procs;
pub mod standin;
