//! The wire layer shared by the adapter and the conformance runner: JSON-RPC 2.0 messages and the
//! bounded newline-delimited codec that MCP's stdio transport uses.
//!
//! It is deliberately sans-IO and depends on serde only (no tokio), so the conformance runner can
//! share the exact framing and classification rules without ever linking the adapter. Owning this
//! layer is the point of the product: negotiation, frame bounds and malformed input are graded by
//! the runner and must be answered exactly by the adapter (T1, T4, T5, T6 of the contract).

pub mod codec;
pub mod cost;
pub mod message;
pub mod scan;

pub use codec::{DecodeEvent, FrameDecoder};
pub use cost::{FrameError, Parsed, parse_frame};
pub use message::{
    ErrorObject, Inbound, Incoming, Invalid, Message, ParseError, code, encode, error_response,
    notification, parse_inbound, request, response,
};
pub use scan::{Found, PathScan, Scanned};
