//! Protocol tests: T, TOOL and META rules, each a real stdio session against the built binary.
//! Those that need runs (`cancellation`, `progress`, `results`, `work`) put fake-claude first on
//! PATH and pick its scenario through the prompt (`calls`).

mod batches;
mod calls;
mod cancellation;
mod context_budget;
mod framing;
mod jsonrpc;
mod lifecycle;
mod meta;
mod output_schema;
mod portable_schemas;
mod progress;
pub(crate) mod resources;
mod results;
mod tools;
mod work;
