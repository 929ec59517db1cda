//! protocol tests.
