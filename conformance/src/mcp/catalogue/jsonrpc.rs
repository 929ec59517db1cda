//! Base JSON-RPC over stdio: ids, unknown methods, malformed and invalid input, batches per
//! negotiated version, oversized frames (contract T3, T3a, T4, T5, T6).

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::support::{ensure, grade_error_answer, send_bad_line, show};
use crate::core::case::case;
use crate::core::checks::reorder_window;
use crate::core::client::{Client, Frame, error_code, is_response_to};
use crate::core::model::{Check, CheckResult, Level};
use crate::mcp::ctx::Ctx;
use crate::mcp::gate::Case;
use crate::mcp::profile::{Levels, Profile};

/// The size of the oversized line (T6): far above any sane bound.
pub const HUGE_LINE_BYTES: usize = 64 * 1024 * 1024;
/// The largest growth of the server's resident memory allowed while the huge line streams in:
/// a bounded reader may hold its frame bound (the reference adapter's default is 4 MiB) plus
/// allocator slack; a server that buffers the line grows by tens of MiB.
pub const MAX_RSS_GROWTH_KIB: u64 = 12 * 1024;

/// The cases of this section.
pub const CASES: &[Case] = &[
    case!(
        "jsonrpc/ids/zero",
        "T3a",
        Levels::all(Level::Must),
        Server,
        "Request id 0 is echoed exactly",
        echo_id["0"]
    ),
    case!(
        "jsonrpc/ids/negative",
        "T3a",
        Levels::all(Level::Must),
        Server,
        "A negative request id is echoed exactly",
        echo_id["-7"]
    ),
    case!(
        "jsonrpc/ids/string",
        "T3a",
        Levels::all(Level::Must),
        Server,
        "A string request id is echoed exactly",
        echo_id["\"req-\\u00e9-1\""]
    ),
    case!(
        "jsonrpc/ids/empty-string",
        "T3a",
        Levels::all(Level::Must),
        Server,
        "An empty string request id is echoed exactly",
        echo_id["\"\""]
    ),
    case!(
        "jsonrpc/ids/i64-max",
        "T3a",
        Levels::CONTRACT_MUST,
        Server,
        "Request id 9223372036854775807 is echoed exactly",
        echo_id["9223372036854775807"]
    ),
    case!(
        "jsonrpc/ids/i64-min",
        "T3a",
        Levels::CONTRACT_MUST,
        Server,
        "Request id -9223372036854775808 is echoed exactly",
        echo_id["-9223372036854775808"]
    ),
    case!(
        "jsonrpc/ids/u64-max",
        "T3a",
        Levels::CONTRACT_MUST,
        Server,
        "Request id 18446744073709551615 is echoed exactly",
        echo_id["18446744073709551615"]
    ),
    case!("jsonrpc/response-ids", "JSON-RPC 2.0 §5", Levels::all(Level::Must), Crosscut,
        "Every response of every case carries the id of a request the runner sent on that connection, and answers it once",
        ids_echoed[]),
    case!("jsonrpc/unknown-method",
        "T3 (\"Anything else: -32601\"); JSON-RPC 2.0 §5.1 defines -32601 \"Method not found\" with no MUST, §5 \"the Server MUST reply with a Response\"",
        Levels::CONTRACT_MUST, Server,
        "An unknown method is answered -32601 with the request's id (outside provider another error code warns; no answer fails)",
        unknown_method[]),
    case!("jsonrpc/unknown-notification", "T3", Levels::all(Level::Must), CrosscutProbe,
        "No notification of any case gets an answer, an unknown one included, and the server keeps serving",
        unknown_notification[]),
    case!("jsonrpc/malformed/parse-error", "T4", Levels::CONTRACT_MUST, Server,
        "A line that is not JSON is answered -32700 with id null",
        bad_line[b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"\n", -32700, "null"]),
    case!("jsonrpc/malformed/invalid-utf8", "T4", Levels::KIT_ONLY, Server,
        "A line that is not UTF-8 is answered -32700 with id null",
        bad_line[b"{\"jsonrpc\":\"2.0\",\"id\":64017,\"method\":\"\xff\xfe\"}\n", -32700, "null"]),
    case!("jsonrpc/invalid/not-an-object", "T4", Levels::CONTRACT_MUST, Server,
        "A JSON scalar is answered -32600 with id null", bad_line[b"42\n", -32600, "null"]),
    case!("jsonrpc/invalid/wrong-version", "T4", Levels::CONTRACT_MUST, Server,
        "\"jsonrpc\": \"1.0\" is answered -32600 with the request's id",
        bad_line[b"{\"jsonrpc\":\"1.0\",\"id\":71,\"method\":\"ping\"}\n", -32600, "71"]),
    case!("jsonrpc/invalid/method-not-string", "T4", Levels::CONTRACT_MUST, Server,
        "A non-string method is answered -32600 with the request's id",
        bad_line[b"{\"jsonrpc\":\"2.0\",\"id\":72,\"method\":5}\n", -32600, "72"]),
    case!("jsonrpc/invalid/params-not-structured", "T4", Levels::CONTRACT_MUST, Server,
        "Scalar params are answered -32600 with the request's id",
        bad_line[b"{\"jsonrpc\":\"2.0\",\"id\":73,\"method\":\"ping\",\"params\":3}\n", -32600, "73"]),
    case!("jsonrpc/invalid/null-id", "T4", Levels::CONTRACT_MUST, Server,
        "A request with id null (MCP forbids it) is answered -32600 with id null",
        bad_line[b"{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}\n", -32600, "null"]),
    case!("jsonrpc/batch/2025-03-26", "T5", Levels::all(Level::Must), Server,
        "Under 2025-03-26 a batch is accepted and answered as a batch of results (that revision requires it)",
        batch_accepted[]),
    case!(
        "jsonrpc/batch/rejected-2025-06-18",
        "T5 (\"under the other dates a batch is answered -32600\": the kit's rule; MCP 2025-06-18 has no batch and says nothing of one)",
        Levels::KIT_ONLY,
        Server,
        "Under 2025-06-18 a batch is answered -32600 (outside provider, a batch answer or none is info)",
        batch_rejected["2025-06-18"]
    ),
    case!(
        "jsonrpc/batch/rejected-2024-11-05",
        "T5 (\"under the other dates a batch is answered -32600\": the kit's rule; MCP 2024-11-05 has no batch and says nothing of one)",
        Levels::KIT_ONLY,
        Server,
        "Under 2024-11-05 a batch is answered -32600 (outside provider, a batch answer or none is info)",
        batch_rejected["2024-11-05"]
    ),
    case!("jsonrpc/batch/empty", "T4", Levels::CONTRACT_MUST, Server,
        "An empty array is answered -32600 with id null (JSON-RPC 2.0 §6)",
        bad_line[b"[]\n", -32600, "null"]),
    case!("jsonrpc/oversized/answered", "T6", Levels::KIT_ONLY, Server,
        "A 64 MiB line is discarded and answered -32600 with id null",
        oversized_answered[], 6; cost_ms 700),
    case!("jsonrpc/oversized/memory-bounded", "T6", Levels::KIT_ONLY, Server,
        "Resident memory of the server grows by at most 12 MiB while a 64 MiB line streams in",
        oversized_memory[], 6; cost_ms 700),
];

async fn echo_id(ctx: Ctx, id_text: &'static str) -> CheckResult {
    let mut c = ctx.session().await?;
    let line = format!("{{\"jsonrpc\":\"2.0\",\"id\":{id_text},\"method\":\"ping\"}}\n");
    let sent = Instant::now();
    c.send_raw(line.as_bytes()).await?;
    // Compare the id's text as written, so precision loss (2^53) shows.
    let id: Value = serde_json::from_str(id_text).map_err(|e| Check::Error(e.to_string()))?;
    let probe = json!("probe-after-id");
    c.send(&mcp_wire::request(&probe, "ping", None)).await?;
    match c.response_to(&probe, "a ping sent after the id test").await {
        Ok(_) => {}
        // The probe came back under another id too: the server does not echo ids at all,
        // whatever their value. That is the id rule's finding (graded on every other case's
        // exchanges), so this case is blocked by it; it fails only when the id rule holds
        // elsewhere (a server that mislabels only these pings).
        Err(crate::core::client::ClientError::Timeout {
            foreign_id: true,
            unmatched,
            ..
        }) => {
            return Err(Check::blocked(
                crate::core::watch::ID_RULE_CASE,
                Check::Violation {
                    expected: format!(
                        "a ping result with id {id_text} (JSON-RPC 2.0 §5: a response carries \
                         the request's id)"
                    ),
                    actual: format!("answers under other ids: {}", unmatched.join(" | ")),
                },
            ));
        }
        Err(e) => return Err(e.into()),
    }
    let window = reorder_window(sent.elapsed());
    let answered = |frames: &[Frame]| {
        frames.iter().any(|f| {
            f.json()
                .is_some_and(|m| is_response_to(m, &id) && m.get("result").is_some())
        })
    };
    let mut frames = c.take_seen();
    // The verdict only looks for the answer: once it is here, a late frame cannot change it.
    if answered(&frames) {
        return Ok(Check::Pass);
    }
    let other_answer = |m: &Value| {
        m.get("method").is_none()
            && (m.get("result").is_some() || m.get("error").is_some())
            && m.get("id").is_some_and(|i| !i.is_null() && *i != probe)
    };
    // JSON-RPC orders no responses: a server answering concurrently (the C# SDK) may answer
    // the probe first and this ping a moment later, longer on a loaded machine. Unless an
    // answer under another id already came (graded below at once), the ping is dropped only
    // when the reorder window after the probe's answer passes without its answer.
    if !frames.iter().filter_map(Frame::json).any(other_answer) {
        match c
            .response_within(&id, "the ping with the id under test", window)
            .await
        {
            Ok(m) => frames.push(Frame::Json(m)),
            Err(crate::core::client::ClientError::Timeout { .. }) => {}
            Err(e) => return Err(e.into()),
        }
        frames.extend(c.take_seen());
        if answered(&frames) {
            return Ok(Check::Pass);
        }
    }
    let others: Vec<String> = frames
        .iter()
        .filter_map(|f| f.json())
        .filter(|m| m.get("method").is_none())
        .map(show)
        .collect();
    // An answer under another id (not the probe's, not null) is no precision question of T3a:
    // JSON-RPC 2.0 §5 makes the id of a response "the same as the value of the id member in
    // the Request Object", a MUST in every profile.
    let foreign = frames
        .iter()
        .filter_map(Frame::json)
        .find(|m| other_answer(m));
    if let Some(m) = foreign {
        return Err(Check::Violation {
            expected: format!(
                "a ping result with id {id_text} (JSON-RPC 2.0 §5: a response carries the \
                 request's id)"
            ),
            actual: format!("an answer under another id: {}", show(m)),
        });
    }
    Err(Check::fail(
        format!("a ping result with id {id_text}"),
        if others.is_empty() {
            format!(
                "no answer to the request within {} ms of the answer to a ping sent after it \
                 (dropped)",
                window.as_millis()
            )
        } else {
            others.join(" | ")
        },
    ))
}

async fn ids_echoed(ctx: Ctx) -> CheckResult {
    // JSON-RPC 2.0 §5: the response's id "MUST be the same as the value of the id member in the
    // Request Object"; an answer under another id answers nothing (MCP basic: responses carry
    // the request's id). The jsonrpc/ids cases grade their own exotic ids.
    super::support::grade_rule(
        &ctx,
        crate::mcp::watch::Rule::IdEcho,
        "responses under the ids of the requests they answer (JSON-RPC 2.0 §5)",
        "no response was read",
    )
}

async fn unknown_method(ctx: Ctx) -> CheckResult {
    let mut c = ctx.session().await?;
    // No answer at all breaks JSON-RPC 2.0 §5's MUST ("When a rpc call is made, the Server MUST
    // reply with a Response"): a failure in every profile, whatever the case's level.
    let answer = c
        .request("conformance/no-such-method", None)
        .await
        .map_err(|e| match Check::from(e) {
            Check::Fail { expected, actual } => Check::Violation {
                expected: format!(
                    "{expected} (JSON-RPC 2.0 §5: the Server MUST reply with a Response)"
                ),
                actual,
            },
            other => other,
        })?;
    // An error without a message is no valid JSON-RPC message: T1 grades it, once.
    super::support::well_formed(&answer, "an unknown method")?;
    // The code: JSON-RPC 2.0 §5.1 defines -32601 "Method not found" (the method does not exist
    // / is not available) but no MUST and no MCP revision requires it; only the contract (T3)
    // does. So another code is a SHOULD deviation outside the provider profile.
    ensure(
        error_code(&answer) == Some(mcp_wire::code::METHOD_NOT_FOUND),
        if ctx.profile == Profile::Provider {
            "error -32601 (T3: \"Anything else: -32601\")"
        } else {
            "error -32601 (JSON-RPC 2.0 §5.1: \"Method not found\", the code defined for a method \
             that does not exist; no MUST requires it)"
        },
        show(&answer),
    )?;
    Ok(Check::Pass)
}

async fn unknown_notification(ctx: Ctx) -> CheckResult {
    // Its own probe: an unknown notification, then a ping that must still be answered. A
    // -32601 answer with id null is the watch's (below), whichever notification it answers.
    // A server of the stateless era alone has no handshake session to probe on: the rule is
    // graded on the exchanges of the other cases.
    if !crate::mcp::revision::modern_only(&ctx.support.supported()) {
        let mut c = ctx.session().await?;
        c.notify("notifications/conformance-unknown", Some(json!({"x": 1})))
            .await?;
        let answers = send_bad_line_noop(&mut c).await?;
        ensure(
            answers.is_empty(),
            "no answer to a notification",
            answers.iter().map(show).collect::<Vec<_>>().join(" | "),
        )?;
        drop(c);
    }
    // What every other case showed, once they have all finished (GATE-LOAD-2).
    ctx.scope.settled().await;
    // T3 on every exchange of every case: notifications/initialized, notifications/cancelled
    // and this case's own are never answered.
    let expected = "no answer to any notification (T3, JSON-RPC 2.0 §4.1)";
    let graded = super::support::grade_rule(
        &ctx,
        crate::mcp::watch::Rule::NotificationAnswered,
        expected,
        "no answer with id null was read",
    );
    if matches!(&graded, Err(c) if c.is_fail()) {
        return graded;
    }
    // An error under id null that answers a notification or a pending request alike: the
    // server's, unless it is seen answering requests under id null where nothing else could be
    // answered (jsonrpc/response-ids grades that, and it explains these too).
    let (ambiguous, _) = ctx.watch.result(crate::mcp::watch::Rule::IdlessAmbiguous);
    let (id_rule, _) = ctx.watch.result(crate::mcp::watch::Rule::IdEcho);
    match ambiguous {
        Some(f) if id_rule.is_none() => Err(Check::fail(
            expected,
            format!("{} (first seen in {})", f.evidence, f.case),
        )),
        _ => graded,
    }
}

/// Pings and returns whatever else arrived (used after input that must get no answer).
async fn send_bad_line_noop(c: &mut Client) -> Result<Vec<Value>, Check> {
    Ok(send_bad_line(c, b"").await?.messages)
}

async fn bad_line(ctx: Ctx, line: &'static [u8], code: i64, id_text: &'static str) -> CheckResult {
    let mut c = ctx.session().await?;
    let id: Value = serde_json::from_str(id_text).map_err(|e| Check::Error(e.to_string()))?;
    let answers = send_bad_line(&mut c, line).await?;
    match answers.grade_error(code, &id) {
        Check::Pass => Ok(Check::Pass),
        // JSON-RPC 2.0 §5: "If there was an error in detecting the id in the Request object
        // (e.g. Parse error/Invalid Request), it MUST be Null." Reading that as allowing null
        // for every invalid request is common; only T4 asks for the request's id when it can be
        // read, so outside the provider profile a null id is reported, not warned.
        other
            if !id.is_null()
                && ctx.profile != Profile::Provider
                && grade_error_answer(&answers, code, &Value::Null) == Check::Pass =>
        {
            let (expected, actual) = match other {
                Check::Fail { expected, actual } => (expected, actual),
                _ => (
                    format!("an error response with code {code} and id {id}"),
                    String::new(),
                ),
            };
            Ok(Check::note(
                expected,
                format!("{actual} (id null: JSON-RPC 2.0 §5 allows it for an invalid request)"),
            ))
        }
        other => Err(other),
    }
}

async fn batch_accepted(ctx: Ctx) -> CheckResult {
    let (mut c, init) = ctx
        .initialized(crate::mcp::discovery::init_params(Some("2025-03-26")))
        .await?;
    let version = init
        .get("result")
        .and_then(|r| r.get("protocolVersion"))
        .and_then(Value::as_str)
        .unwrap_or("");
    if version != "2025-03-26" {
        let skip = Check::skip(format!("the server negotiated {version:?}, not 2025-03-26"));
        super::revisions::undefined_revision("2025-03-26", version, skip.clone())?;
        return Err(skip);
    }
    c.notify("notifications/initialized", None).await?;
    let batch = json!([
        {"jsonrpc": "2.0", "id": "batch-a", "method": "ping"},
        {"jsonrpc": "2.0", "method": "notifications/conformance-unknown"},
        {"jsonrpc": "2.0", "id": "batch-b", "method": "ping"}
    ]);
    let answers = send_bad_line(&mut c, &mcp_wire::encode(&batch)).await?;
    let expected =
        "one array with the ping results of batch-a and batch-b (and nothing for the notification)";
    let Some(arr) = answers.iter().find_map(Value::as_array) else {
        return Err(Check::fail(
            expected,
            if answers.is_empty() {
                "no answer: the batch was dropped silently".to_owned()
            } else {
                answers.iter().map(show).collect::<Vec<_>>().join(" | ")
            },
        ));
    };
    // Each ping answered with its result (accepting the batch), not an error entry per element.
    let has = |id: &str| {
        arr.iter()
            .any(|m| is_response_to(m, &json!(id)) && m.get("result").is_some_and(Value::is_object))
    };
    let shown = show(&Value::Array(arr.clone()));
    // An element answering the notification -32601 under id null is
    // jsonrpc/unknown-notification's finding (the watch grades it in this batch too): this case
    // grades the batch and its pings' answers, once per defect.
    let own: Vec<&Value> = arr
        .iter()
        .filter(|m| !crate::mcp::watch::answers_a_notification(m))
        .collect();
    if has("batch-a") && has("batch-b") && own.len() > 2 {
        // Say what happened: the batch was accepted, and something else answered too.
        return Err(Check::fail(
            format!("{expected} (JSON-RPC 2.0 §4.1: no reply to a notification, in a batch too)"),
            format!(
                "both pings answered, and {} more element(s): {shown}",
                own.len() - 2
            ),
        ));
    }
    ensure(
        own.len() == 2 && has("batch-a") && has("batch-b"),
        format!("{expected} (MCP 2025-03-26 basic: MUST support receiving batches)"),
        shown,
    )?;
    Ok(Check::Pass)
}

async fn batch_rejected(ctx: Ctx, version: &'static str) -> CheckResult {
    let (mut c, init) = ctx
        .initialized(crate::mcp::discovery::init_params(Some(version)))
        .await?;
    let negotiated = init
        .get("result")
        .and_then(|r| r.get("protocolVersion"))
        .and_then(Value::as_str)
        .unwrap_or("");
    if negotiated != version {
        // Batches follow the negotiated revision (T5): under another one this case says nothing.
        let skip = Check::skip(format!(
            "the server negotiated {negotiated:?}, not {version}"
        ));
        super::revisions::undefined_revision(version, negotiated, skip.clone())?;
        return Err(skip);
    }
    c.notify("notifications/initialized", None).await?;
    let batch = json!([{"jsonrpc": "2.0", "id": "batch-a", "method": "ping"}]);
    let answers = send_bad_line(&mut c, &mcp_wire::encode(&batch)).await?;
    let expected = format!("error -32600 (batches are not part of {version})");
    let single_error = answers
        .iter()
        .any(|m| error_code(m) == Some(mcp_wire::code::INVALID_REQUEST));
    if single_error {
        return Ok(Check::Pass);
    }
    let shown = if answers.is_empty() {
        "no answer: the batch was dropped silently".to_owned()
    } else {
        answers.iter().map(show).collect::<Vec<_>>().join(" | ")
    };
    // Only the contract (T5) requires the rejection: MCP's schema for these revisions has no
    // batch, but every message follows JSON-RPC 2.0, whose §6 answers a batch with an array.
    // Outside the provider profile a batch answered as one is an allowed choice, reported as
    // such; any other answer, or none, is graded at the case's level, which is `info` under
    // plain (a kit-only rule) and SHOULD for a gateway in front of a provider.
    let accepted = answers.iter().any(|m| {
        m.as_array().is_some_and(|arr| {
            arr.iter()
                .any(|r| is_response_to(r, &json!("batch-a")) && r.get("result").is_some())
        })
    });
    if accepted && ctx.profile != Profile::Provider {
        return Ok(Check::note(
            expected,
            format!("{shown} (answered as a batch, as JSON-RPC 2.0 allows)"),
        ));
    }
    Err(Check::fail(expected, shown))
}

async fn oversized_answered(ctx: Ctx) -> CheckResult {
    let mut c = ctx.session().await?;
    c.stream_huge_line(HUGE_LINE_BYTES, || {}).await?;
    let answers = send_bad_line(&mut c, b"").await?;
    // A server that buffered and parsed the line answers the ping inside it (id "huge"): graded
    // as not bounded.
    match grade_error_answer(&answers, mcp_wire::code::INVALID_REQUEST, &Value::Null) {
        Check::Pass => Ok(Check::Pass),
        other => Err(other),
    }
}

async fn oversized_memory(ctx: Ctx) -> CheckResult {
    let mut c = ctx.session().await?;
    let answer = c.request("ping", None).await?;
    super::support::result_of(&answer, "ping")?;
    let pgid = c.pid();
    let Some(before) = crate::core::process::group_rss_kib(pgid) else {
        return Err(Check::skip("cannot read the server's memory from /proc"));
    };
    let mut peak = before;
    let mut last_sample = Instant::now();
    let sample = |peak: &mut u64| {
        if let Some(now) = crate::core::process::group_rss_kib(pgid) {
            *peak = (*peak).max(now);
        }
    };
    c.stream_huge_line(HUGE_LINE_BYTES, || {
        // Sampling every piece is cheap (a few /proc reads); throttle to 5 ms anyway.
        if last_sample.elapsed() >= Duration::from_millis(5) {
            sample(&mut peak);
            last_sample = Instant::now();
        }
    })
    .await?;
    // The server may still be chewing on the tail: keep sampling until it answers a ping.
    let probe = c.send_request("ping", None).await?;
    let deadline = Instant::now() + c.remaining();
    loop {
        sample(&mut peak);
        match c
            .response_within(
                &probe,
                "ping after the huge line",
                Duration::from_millis(20),
            )
            .await
        {
            Ok(_) => break,
            Err(crate::core::client::ClientError::Timeout { .. }) if Instant::now() < deadline => {}
            Err(e) => {
                let growth = peak.saturating_sub(before);
                ctx.note(&format!("peak growth so far {growth} KiB"));
                return Err(e.into());
            }
        }
    }
    sample(&mut peak);
    let growth = peak.saturating_sub(before);
    ctx.note(&format!(
        "VmRSS before {before} KiB, peak {peak} KiB, growth {growth} KiB"
    ));
    let _: Vec<Frame> = c.take_seen();
    ensure(
        growth <= MAX_RSS_GROWTH_KIB,
        format!("growth of at most {} MiB", MAX_RSS_GROWTH_KIB / 1024),
        format!(
            "grew by {:.1} MiB (from {before} KiB to {peak} KiB)",
            growth as f64 / 1024.0
        ),
    )?;
    Ok(Check::Pass)
}
