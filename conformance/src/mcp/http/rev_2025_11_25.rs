//! The Streamable HTTP rules MCP 2025-11-25 added or changed ("Transports", Streamable HTTP),
//! graded on a session of that revision: `skip` ("revision not supported") when the run does not
//! grade it or the server answers `initialize` proposing it with another date. A case about a
//! rule the revision added names the revision in its id (`…/2025-11-25`); a case whose rule it
//! changed is an instance `ID@2025-11-25` of the 2025-06-18 case.

use serde_json::{Value, json};

use super::cases::{
    FOREIGN_ORIGIN, ORIGIN_CASE, foreign_initialize, grade_answer, message_problems, ping,
};
use super::{ANSWER_CASE, Case, HttpCtx, Session, describe};
use crate::core::case::case;
use crate::core::http::{Body, HttpRequest, HttpResponse, SseEnd, SseEvent, Stop};
use crate::core::model::{Check, CheckResult, Level};
use crate::mcp::revision::Revision;

/// How many times a stream closed before its response is resumed before the case gives up: a
/// server that closes every resumed stream again without answering would poll for ever.
const MAX_RESUMPTIONS: usize = 4;

/// The cases of 2025-11-25.
pub const CASES: &[Case] = &[
    case!("transport/http/post/answer@2025-11-25", "HTTP-2", Level::Must, Server,
        "On a 2025-11-25 session a POSTed request's response arrives in its SSE stream or, when \
         the server closes the connection after an event with an ID, on the stream resumed by \
         GET with Last-Event-ID",
        answer_polled[]),
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

// HTTP-2, 2025-11-25: "After the server has sent an SSE event with an event ID to the client, the
// server MAY close the connection (without terminating the SSE stream) at any time"; the client
// then resumes: "it SHOULD issue an HTTP GET to the MCP endpoint, and include the Last-Event-ID
// header", after waiting the `retry` milliseconds the server gave ("The client MUST respect the
// retry field"). The request's response must still arrive, on the resumed stream. A server that
// answers in the POST's own stream or as JSON is graded as on 2025-06-18.
async fn answer_polled(ctx: HttpCtx) -> CheckResult {
    let session = ctx.session_on(Revision::R2025_11_25).await?;
    let id = json!(1);
    let resp = ctx.send(HttpCtx::post_in(&session, &ping(1))).await?;
    let closed_early = matches!(
        &resp.body,
        Body::Sse {
            end: SseEnd::Closed,
            ..
        }
    ) && resp.status == 200
        && resp.response_to(&id).is_none();
    let cursor = closed_early.then(|| resumable(&resp)).flatten();
    let Some(mut cursor) = cursor else {
        // Answered in the POST's own stream or as JSON (or not at all): as on 2025-06-18, whose
        // case grades the same defect once when it has it too.
        return match grade_answer(&resp, &id, "ping") {
            Ok(()) => Ok(Check::Pass),
            Err(finding) => Err(Check::blocked(ANSWER_CASE, finding)),
        };
    };
    let mut last = resp;
    for _ in 0..MAX_RESUMPTIONS {
        let (event_id, retry) = cursor.clone();
        wait_retry(&ctx, retry).await;
        let resumed = ctx.send(resume(&session, &event_id, &id)).await?;
        if resumed.status != 200 || resumed.media_type().as_deref() != Some("text/event-stream") {
            return Err(Check::fail(
                format!(
                    "GET with Last-Event-ID: {event_id} resuming the stream of ping: 200 \
                     text/event-stream"
                ),
                describe(&resumed),
            ));
        }
        if let Some(problem) = message_problems(&resumed.body).into_iter().next() {
            return Err(Check::fail(
                "the resumed stream carrying JSON-RPC 2.0 messages only",
                problem,
            ));
        }
        if resumed.response_to(&id).is_some() {
            return Ok(Check::Pass);
        }
        if !matches!(
            &resumed.body,
            Body::Sse {
                end: SseEnd::Closed,
                ..
            }
        ) {
            return Err(Check::fail(
                "the resumed stream carrying the response to ping",
                describe(&resumed),
            ));
        }
        // Closed again without the response: polled once more from its newest event ID.
        if let Some(newer) = resumable(&resumed) {
            cursor = (newer.0, newer.1.or(retry));
        }
        last = resumed;
    }
    Err(Check::fail(
        format!("the response to ping within {MAX_RESUMPTIONS} resumptions of its stream"),
        describe(&last),
    ))
}

/// The last event ID of a closed stream and the `retry` it gave, when it can be resumed.
fn resumable(resp: &HttpResponse) -> Option<(String, Option<u64>)> {
    let Body::Sse { events, .. } = &resp.body else {
        return None;
    };
    let id = events
        .iter()
        .rev()
        .find_map(|e| e.id.clone())
        .filter(|id| !id.is_empty())?;
    let retry = events.iter().rev().find_map(|e| e.retry);
    Some((id, retry))
}

/// Waits the `retry` the server gave before reconnecting, never past the case's deadline (the
/// resumption then finds no time and fails as such).
async fn wait_retry(ctx: &HttpCtx, retry: Option<u64>) {
    let Some(ms) = retry else {
        return;
    };
    let until = std::time::Instant::now() + std::time::Duration::from_millis(ms);
    let until = until.min(ctx.client.deadline());
    tokio::time::sleep_until(tokio::time::Instant::from_std(until)).await;
}

/// GET resuming the session's stream after `last_event_id`, read to the response to `id`.
fn resume(session: &Session, last_event_id: &str, id: &Value) -> HttpRequest {
    let mut req = HttpRequest::bodiless(hyper::Method::GET, Stop::AtResponse(id.clone()))
        .header("accept", "text/event-stream")
        .header("last-event-id", last_event_id)
        .header("mcp-protocol-version", &session.version);
    if let Some(sid) = &session.id {
        req = req.header("mcp-session-id", sid);
    }
    req
}
