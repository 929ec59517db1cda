//! Reading recordings: the row format and its reader are `mcp-replay`'s
//! (`mcp_replay::recording`; the format is in `recordings/README.md` and
//! `docs/recording.schema.json`), re-exported here so the replay modules keep their paths.

pub use mcp_replay::recording::{Body, Recording, Row, Tail};
