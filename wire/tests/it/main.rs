//! Integration tests of mcp-wire: what parsing a frame costs in memory (C-T6a), measured with a
//! counting global allocator, and deep nesting (one test binary per crate).

mod alloc;
mod cost;
