//! supervision tests.
