//! The JSON-RPC errors this server answers with, built in one place (T3, T4, T5, T6, META-WORK-5).
//!
//! The generic codes and shapes live in `mcp_wire`; this file adds the MCP-level choices.

use mcp_wire::{ErrorObject, code};
use serde_json::{Value, json};

use cmk_engine::SnapshotRefused;

/// MCP's "resource not found" code (the MCP specification, resources: `-32002`).
pub(crate) const RESOURCE_NOT_FOUND: i64 = -32002;

/// T3: a request other than `ping` (and `initialize`) before `initialize`.
#[must_use]
pub(crate) fn not_initialized() -> ErrorObject {
    ErrorObject::new(code::INVALID_REQUEST, "not initialized")
}

/// A second `initialize` on the same connection (see the module docs of `crate`).
#[must_use]
pub(crate) fn already_initialized() -> ErrorObject {
    ErrorObject::new(code::INVALID_REQUEST, "already initialized")
}

/// T5: `initialize` as an element of a batch.
#[must_use]
pub(crate) fn initialize_in_batch() -> ErrorObject {
    ErrorObject::invalid_request("initialize cannot be part of a batch")
}

/// T5: a batch while `2025-03-26` is not the negotiated version.
#[must_use]
pub(crate) fn batch_not_supported(version: Option<&str>) -> ErrorObject {
    let detail = match version {
        Some(v) => format!("batches are not part of protocol version {v}"),
        None => "batches are only accepted after initialize negotiated 2025-03-26".to_owned(),
    };
    ErrorObject::invalid_request(detail)
}

/// T5: `[]` (JSON-RPC 2.0: an empty array is an invalid request).
#[must_use]
pub(crate) fn empty_batch() -> ErrorObject {
    ErrorObject::invalid_request("empty batch")
}

/// C-T5: a batch of more elements than the bound; none of it runs.
#[must_use]
pub(crate) fn batch_too_large(len: usize, bound: usize) -> ErrorObject {
    ErrorObject::invalid_request(format!(
        "batch of {len} elements exceeds the bound of {bound}; nothing in it was executed"
    ))
}

/// C-T5: a request of a batch whose answers already reached their bound: it was not executed.
/// `-32603` (internal error): the request is valid, the server declined to run it.
#[must_use]
pub(crate) fn batch_answer_full(bound: usize) -> ErrorObject {
    // Short: a batch may hold tens of thousands of these.
    ErrorObject::new(
        code::INTERNAL_ERROR,
        format!("not executed: the batch's answers reached {bound} bytes"),
    )
}

/// T6: a line longer than the frame bound.
#[must_use]
pub(crate) fn oversized_frame(len: u64, bound: usize) -> ErrorObject {
    ErrorObject::invalid_request(format!(
        "frame of {len} bytes exceeds the bound of {bound} bytes"
    ))
}

/// `-32602` for a cursor this server never issued.
#[must_use]
pub(crate) fn unknown_cursor() -> ErrorObject {
    ErrorObject::invalid_params("unknown cursor")
}

/// `-32602`: tools/call naming a tool that does not exist (TOOL-3); `listed` is the name this
/// server lists for it under the other spelling (`claude_run` for `claude.run`), if any.
#[must_use]
pub(crate) fn unknown_tool(name: &str, listed: Option<&str>) -> ErrorObject {
    match listed {
        Some(l) => ErrorObject::invalid_params(format!(
            "unknown tool {name:?}; did you mean {l:?}? (this server spells tool names as \
             tools/list shows them, see --tool-names)"
        )),
        None => ErrorObject::invalid_params(format!("unknown tool {name:?}")),
    }
}

/// `-32002` with the uri in `data` (MCP resources).
#[must_use]
pub(crate) fn resource_not_found(uri: &str) -> ErrorObject {
    ErrorObject::new(RESOURCE_NOT_FOUND, "resource not found").with_data(json!({"uri": uri}))
}

/// META-WORK-5: the snapshot cannot be proven complete and host-bound.
#[must_use]
pub(crate) fn snapshot_refused(r: &SnapshotRefused, names: cmk_engine::ToolNames) -> ErrorObject {
    use crate::catalogue::{ToolKind, tool_name};
    let ids: Vec<&str> = r.unbound.iter().map(|(id, _, _)| id.as_str()).collect();
    let mut kinds: Vec<&str> = r.unbound.iter().map(|(_, k, _)| k.as_str()).collect();
    kinds.sort_unstable();
    kinds.dedup();
    let release: Vec<String> = kinds
        .iter()
        .map(|k| tool_name(k.trim_end_matches(".run"), ToolKind::Release, names))
        .collect();
    let message = format!(
        "work snapshot refused: {} run(s) created without a work invocation are retained ({}); \
         the snapshot cannot prove who holds them. Release each once it has settled ({}), or \
         start runs with the `{}` _meta key set to a UUID so they are bound",
        r.unbound_runs,
        ids.join(", "),
        release.join(", "),
        crate::catalogue::META_WORK_INVOCATION
    );
    let unbound: Vec<Value> = r
        .unbound
        .iter()
        .map(|(id, kind, state)| json!({"run_id": id, "kind": kind, "state": state.as_str()}))
        .collect();
    ErrorObject::new(code::SERVER_ERROR, message).with_data(json!({
        "unbound_runs": r.unbound_runs,
        "last_revision": r.last_revision,
        "unbound": unbound
    }))
}
