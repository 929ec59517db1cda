//! runs tests.
