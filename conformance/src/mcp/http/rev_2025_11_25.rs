//! The Streamable HTTP rules MCP 2025-11-25 added or changed ("Transports", Streamable HTTP),
//! graded on a session of that revision: `skip` ("revision not supported") when the run does not
//! grade it or the server answers `initialize` proposing it with another date. A case about a
//! rule the revision added names the revision in its id (`…/2025-11-25`); a case whose rule it
//! changed is an instance `ID@2025-11-25` of the 2025-06-18 case.

use serde_json::json;

use super::cases::{FOREIGN_ORIGIN, ORIGIN_CASE, foreign_initialize, ping};
use super::{ANSWER_CASE, Case, HttpCtx, describe};
use crate::core::case::case;
use crate::core::http::{Body, SseEnd, SseEvent};
use crate::core::model::{Check, CheckResult, Level};
use crate::mcp::revision::Revision;

/// The cases of 2025-11-25.
pub const CASES: &[Case] = &[
    case!("transport/http/origin/foreign@2025-11-25", "HTTP-8", Level::Must, Server,
        "On a 2025-11-25 session, a request with a foreign Origin gets exactly 403 Forbidden",
        foreign_origin_403[]),
    case!("transport/http/sse/priming/2025-11-25", "HTTP-10", Level::Should, Server,
        "On a 2025-11-25 session, an SSE stream answering a POST opens with a priming event: an \
         event ID and empty data",
        priming[]),
];

// HTTP-8, 2025-11-25: "If the `Origin` header is present and invalid, servers MUST respond with
// HTTP 403 Forbidden." A server that serves the foreign page fails the 2025-06-18 case already
// (one defect, one verdict): only a refusal with another status is this instance's own finding.
async fn foreign_origin_403(ctx: HttpCtx) -> CheckResult {
    let revision = Revision::R2025_11_25;
    ctx.session_on(revision).await?;
    let resp = ctx.send(foreign_initialize(revision.date())).await?;
    if resp.status == 403 {
        return Ok(Check::Pass);
    }
    let finding = Check::fail(
        format!("403 Forbidden for initialize proposing {revision} from Origin: {FOREIGN_ORIGIN}"),
        describe(&resp),
    );
    if (400..500).contains(&resp.status) {
        Err(finding)
    } else {
        Err(Check::blocked(ORIGIN_CASE, finding))
    }
}

// HTTP-10, 2025-11-25: "If the server initiates an SSE stream: The server SHOULD immediately send
// an SSE event consisting of an event ID and an empty `data` field in order to prime the client
// to reconnect (using that event ID as `Last-Event-ID`)." The stream is read within HTTP-1's
// bounds (to the response, the end, a broken bound or the case's deadline); only its first event
// is graded. An event with an ID and no `data` line primes as well (WHATWG: the ID is kept).
async fn priming(ctx: HttpCtx) -> CheckResult {
    let session = ctx.session_on(Revision::R2025_11_25).await?;
    let resp = ctx.send(HttpCtx::post_in(&session, &ping(1))).await?;
    let Body::Sse { events, end, .. } = &resp.body else {
        let skip = Check::skip(format!(
            "the server answered ping without an SSE stream ({}): the rule applies to the SSE \
             streams a server initiates",
            describe(&resp)
        ));
        // A JSON answer is the other form HTTP-2 allows; anything else is HTTP-2's finding.
        return match resp.media_type().as_deref() {
            Some("application/json") => Ok(skip),
            _ => Err(Check::blocked(ANSWER_CASE, skip)),
        };
    };
    let Some(first) = events.first() else {
        // No event at all: a stream that never ends or breaks a bound is HTTP-2's finding.
        let finding = Check::fail(
            "an SSE stream whose first event primes the client (an event ID, empty data)",
            describe(&resp),
        );
        return Err(match end {
            SseEnd::Closed | SseEnd::Answered => finding,
            _ => Check::blocked(ANSWER_CASE, finding),
        });
    };
    if primes(first) {
        return Ok(Check::Pass);
    }
    Err(Check::fail(
        "an SSE stream whose first event primes the client: an event ID and empty data",
        format!("its first event: {}", shown(first)),
    ))
}

/// Whether `event` primes a reconnection: a non-empty ID (an empty one resets the client's
/// last event ID) and no data.
fn primes(event: &SseEvent) -> bool {
    event.id.as_deref().is_some_and(|id| !id.is_empty()) && event.data.is_empty()
}

/// An event in a finding's words.
fn shown(event: &SseEvent) -> String {
    json!({"id": event.id, "event": event.event, "data": crate::core::http::show(event.data.as_bytes())})
        .to_string()
}
