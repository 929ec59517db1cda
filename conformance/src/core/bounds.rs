//! The runner's own bounds on what a peer sends, shared by the stdio reader and the Streamable
//! HTTP client (a leaf: both use it, it uses neither).

/// The runner's own bound on one line from the server: large enough for any sane listing,
/// small enough that a flooding server cannot grow the runner (a longer line is counted, not held).
pub const MAX_SERVER_LINE: usize = 16 * 1024 * 1024;
