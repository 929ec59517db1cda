//! What every provider of a native agent CLI shares, and nothing the engine needs: the pinned
//! command contract ([`cli_tree`], one format and loader for every CLI, NAT-1, ACP-9), the run
//! tools' options derived from it ([`options`]), the version assertion, the environment scrub
//! and the supervised start ([`binary`], NAT-2, NAT-8), the canonical tool vocabulary
//! ([`tool_vocabulary`], TOOLCALL-2) and the maintainer's drift check of a tree against an
//! installed CLI ([`drift`]), and what a provider registers with the binary ([`registration`]).

#![warn(unreachable_pub)]

pub mod binary;
pub mod cli_tree;
pub mod drift;
pub mod options;
pub mod refresh;
pub mod registration;
pub mod tool_vocabulary;
