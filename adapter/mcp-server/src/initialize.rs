//! `initialize` (T2, T3): version negotiation, capabilities and server identity.

use serde_json::{Value, json};

use crate::errors;
use crate::server::{Handled, Server, params_object};

/// Versions answered with the same date (T2).
pub(crate) const SUPPORTED: [&str; 3] = ["2024-11-05", "2025-03-26", "2025-06-18"];
/// The answer to any other proposal (older, newer, malformed or missing), never an echo (T2).
pub(crate) const PREFERRED: &str = "2025-06-18";
/// The one version under which JSON-RPC batches are accepted (T5).
pub(crate) const BATCH_VERSION: &str = "2025-03-26";

/// What to answer a proposal with (T2).
#[must_use]
pub(crate) fn negotiate(proposal: Option<&Value>) -> &'static str {
    let proposed = proposal.and_then(Value::as_str);
    SUPPORTED
        .into_iter()
        .find(|v| Some(*v) == proposed)
        .unwrap_or(PREFERRED)
}

/// Answers `initialize`. A second `initialize` on the connection is `-32600` "already
/// initialized" and changes nothing: the negotiated version (which decides batch handling, T5)
/// holds for the whole connection.
pub(crate) fn handle(server: &mut Server, _id: &Value, params: Option<Value>) -> Handled {
    if server.version.is_some() {
        return Err(errors::already_initialized()).into();
    }
    let params = match params_object(params) {
        Ok(p) => p,
        Err(e) => return Err(e).into(),
    };
    let version = negotiate(params.get("protocolVersion"));
    server.version = Some(version);
    Ok(json!({
        "protocolVersion": version,
        "capabilities": {
            "tools": {"listChanged": false},
            "resources": {"subscribe": false, "listChanged": false}
        },
        "serverInfo": {
            "name": "claude-mcp-adapter",
            "title": server.catalogue.server_title(),
            "version": env!("CARGO_PKG_VERSION")
        },
        "instructions": server.catalogue.instructions()
    }))
    .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn supported_dates_are_echoed_and_nothing_else() {
        for v in SUPPORTED {
            assert_eq!(negotiate(Some(&json!(v))), v);
        }
        for other in [
            json!("2025-11-25"),
            json!("1999-01-01"),
            json!(20250618),
            json!(null),
        ] {
            assert_eq!(negotiate(Some(&other)), PREFERRED);
        }
        assert_eq!(negotiate(None), PREFERRED);
    }
}
