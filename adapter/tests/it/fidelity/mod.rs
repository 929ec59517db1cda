//! fidelity tests.
