//! replay tests.
