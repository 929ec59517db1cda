//! support tests.
