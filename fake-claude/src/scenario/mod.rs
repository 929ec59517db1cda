//! Scenarios: the data that tells the fake what to do, and how one is chosen.

pub mod builtin;
pub mod model;
mod parse;
pub mod select;

pub use model::{ForkSpec, RawBytes, Scenario, ScenarioError, Step};
