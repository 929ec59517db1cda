//! `notifications/cancelled` (T7), acting on the in-flight `claude.run` calls
//! ([`crate::inflight`]).
//!
//! A cancellation naming a waiting call's id cancels the run (RUN-6 semantics: the run stays
//! readable as `cancelled`) and tells the waiting call to drop its response, since MCP receivers
//! SHOULD NOT answer a cancelled request. Ids of unknown, finished or non-`claude.run` requests
//! are ignored: every other request is answered before the next frame is read, so there is
//! nothing left to cancel.

use serde_json::Value;

use crate::server::Server;

/// Handles `notifications/cancelled` (T7).
pub(crate) fn handle(server: &mut Server, params: Option<Value>) {
    let Some(request_id) = params.as_ref().and_then(|p| p.get("requestId")) else {
        return;
    };
    if let Some(run_id) = server.inflight.cancel(request_id)
        && let Err(e) = server.engine.cancel(&run_id)
    {
        cmk_engine::diag::emit(format!(
            "claude-mcp-adapter: cancelling run {run_id} for request {request_id}: {}",
            e.message
        ));
    }
}
