//! real_claude tests.
