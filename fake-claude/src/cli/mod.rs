//! Reading claude's argv: the option table, the parser, and the value checks.

pub mod flags;
pub mod jsc_json;
pub mod jsnum;
pub mod options;
pub mod parse;
pub mod suggest;
pub mod values;
