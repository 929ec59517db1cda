//! Logging: every log message the server writes, on any exchange of any case, is a
//! `notifications/message` of the specification's shape (MCP 2025-06-18 server/utilities/logging).
//!
//! Graded cross-cutting rather than by a case that sends `logging/setLevel`: the specification
//! lets a server log without being asked (setting a level is the client's option, "MAY"), so
//! the messages to judge are the ones any connection carries, and a setLevel probe would see
//! only those its own connection provokes.

use crate::core::case::case;
use crate::core::model::{CheckResult, Level};
use crate::mcp::ctx::Ctx;
use crate::mcp::gate::Case;
use crate::mcp::profile::Levels;

/// The cases of this section.
pub const CASES: &[Case] = &[
    case!("logging/message-shape", "MCP server/utilities/logging", Levels::all(Level::Must), Crosscut,
        "Every notifications/message of every case has a level among RFC 5424's eight (debug … emergency) and data",
        message_shape[]),
];

async fn message_shape(ctx: Ctx) -> CheckResult {
    super::support::grade_rule(
        &ctx,
        crate::mcp::watch::Rule::LogMessage,
        "notifications/message {level: debug|info|notice|warning|error|critical|alert|emergency, \
         logger?: string, data} (MCP server/utilities/logging, RFC 5424 severities)",
        "no notifications/message was read",
    )
}
