//! `ping` (T3): answered with an empty result, also before `initialize`.

use serde_json::{Value, json};

use crate::server::{Handled, Server};

/// Answers `ping`. Params, if any, are ignored (MCP's ping takes only `_meta`).
pub(crate) fn handle(_server: &mut Server, _id: &Value, _params: Option<Value>) -> Handled {
    Ok(json!({})).into()
}
