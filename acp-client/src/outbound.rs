//! Typed params of everything the client sends (ACP-2, ACP-3, ACP-4, ACP-7), serialised to the
//! exact shapes of the ACP v1 schema (`tests/it/schema.rs` validates them against
//! `schema-v1-stable.json`).
//!
//! The `agent-client-protocol-schema` crate was evaluated for this and not used: its decoders are
//! strict where real agents are not (an unknown `sessionUpdate` variant fails the whole
//! notification), and its `ClientCapabilities` serialises an extra `auth` capability that ACP-2
//! does not send. Receiving stays on `serde_json::Value` ([`crate::inbound`]).

use serde::Serialize;
use serde_json::Value;

use crate::config::ClientInfo;

/// The protocol version this client speaks.
pub const PROTOCOL_VERSION: u64 = 1;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct InitializeParams<'a> {
    pub protocol_version: u64,
    pub client_capabilities: ClientCapabilities,
    pub client_info: &'a ClientInfo,
}

/// ACP-2: nothing is advertised: no file system, no terminal.
#[derive(Serialize)]
pub(crate) struct ClientCapabilities {
    pub fs: FsCapabilities,
    pub terminal: bool,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FsCapabilities {
    pub read_text_file: bool,
    pub write_text_file: bool,
}

impl<'a> InitializeParams<'a> {
    pub(crate) fn new(client_info: &'a ClientInfo) -> Self {
        Self {
            protocol_version: PROTOCOL_VERSION,
            client_capabilities: ClientCapabilities {
                fs: FsCapabilities {
                    read_text_file: false,
                    write_text_file: false,
                },
                terminal: false,
            },
            client_info,
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct NewSessionParams<'a> {
    pub cwd: &'a str,
    /// Always empty: the client brings no MCP servers.
    pub mcp_servers: [Value; 0],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct LoadSessionParams<'a> {
    pub session_id: &'a str,
    pub cwd: &'a str,
    pub mcp_servers: [Value; 0],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SetModeParams<'a> {
    pub session_id: &'a str,
    pub mode_id: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PromptParams<'a> {
    pub session_id: &'a str,
    pub prompt: [TextBlock<'a>; 1],
}

#[derive(Serialize)]
pub(crate) struct TextBlock<'a> {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub text: &'a str,
}

impl<'a> TextBlock<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        Self { kind: "text", text }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CancelParams<'a> {
    pub session_id: &'a str,
}

/// The result of `session/request_permission`.
#[derive(Serialize)]
pub(crate) struct PermissionResult<'a> {
    pub outcome: PermissionOutcome<'a>,
}

#[derive(Serialize)]
#[serde(tag = "outcome", rename_all = "camelCase")]
pub(crate) enum PermissionOutcome<'a> {
    Selected {
        #[serde(rename = "optionId")]
        option_id: &'a str,
    },
    Cancelled,
}

/// Serialises params that cannot fail to serialise (plain structs of strings and bools).
pub(crate) fn to_value(params: impl Serialize) -> Value {
    serde_json::to_value(params).unwrap_or(Value::Null)
}
