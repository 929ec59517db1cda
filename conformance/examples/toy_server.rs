//! A tiny stdio MCP server for the runner's own tests and as a demonstration of what the runner
//! grades: one `echo` tool, no resources, bounded frames (T6) and exact error answers (T4).
//! Flags make it misbehave on purpose: `--drop-malformed` drops bad lines silently (as the
//! TypeScript and Python SDK servers do), `--hang-initialize` never answers `initialize`,
//! `--exit-at-start` exits at once, `--exit-leaving-child` exits at once leaving a child that
//! holds stdout open, `--hang-method M` never answers M after initialize.
//! `--ping-flood` never reads its stdin and sends the client ping requests for ever.
//! `--flood` answers a ping after initialize with an endless stream of notifications instead
//! (32 small ones, then 1 MiB each: a server that floods its client).
//! `--null-id-for-invalid` answers invalid requests -32600 with id null even when their id
//! can be read (JSON-RPC 2.0 §5's "e.g. Invalid Request" taken literally).
//! `--batches-always` answers batches under every revision (JSON-RPC 2.0 §6), not only 2025-03-26.
//! `--empty-resource` lists one resource whose read returns no contents (legal, if odd).
//! `--wrong-id-method M` answers M (after initialize, or `initialize` itself) with another id
//! than the request's; `--huge-wrong-id-method M` answers M (after initialize) under the valid
//! integer id 18446744073709551616, one above u64 (written as raw text).
//! `--invalid-args-protocol-error` answers wrong-typed `echo` arguments -32602 instead of an
//! `isError` result (what MCP 2025-06-18 allows, TOOL-3 forbids). `--ping-client` pings the client before answering `initialize` and writes a line that is not
//! JSON-RPC (a T1 violation the runner reports) unless the client answers with the empty result
//! MCP requires (basic/utilities/ping).
//! One-defect flags, one per defect class the gate must catch: `--log-on-call` writes a text log line on stdout on each
//! `tools/call` (T1); `--oversized-log-on-call` writes a 17 MiB text line there instead (over the
//! runner's keep limit); `--acting-tool FILE` lists `schedule_task`, a tool without
//! `readOnlyHint` that creates FILE whenever it is called, valid arguments or not (a server with
//! real side effects that acts before it validates), and `--no-echo` leaves the read-only `echo`
//! out; `--panic-on-sigterm` dies of its own panic (status 101) on SIGTERM; `--huge-initialize`
//! answers `initialize` with a 17 MiB line; `--exit-on-method M` exits with status 3 on M after
//! initialize; `--hang-initialize-unless-first DIR` answers `initialize` only in the first server
//! started with that DIR (the runner's discovery session), a server too slow to start for every
//! case; `--batch-answers-notification` answers a batch's notification element too.
//! `--no-read-only-hint` lists `echo` without `readOnlyHint: true` (a server that marks no tool
//! read-only, so outside the provider profile the runner calls none).
//! Grade levels: `--unknown-method-code N` answers every unknown method (`server/discover`
//! included) with error code N instead of -32601; `--discover-code N` does so for
//! `server/discover` only; `--missing-proposal-code N` answers an `initialize` without
//! `protocolVersion` with error code N, and `--drop-missing-proposal` never answers it (what
//! `rust-mcp-filesystem` does) while answering everything else; `--drop-batches` leaves batches unanswered under the
//! revisions without batches (2024-11-05, 2025-06-18).
//! Revisions: `--versions A,B` supports exactly those handshake dates (echoed; any other
//! proposal is answered with the last of them); `--answer-version DATE` answers every
//! `initialize` with DATE, whatever was proposed. `--defect-2025-11-25 KIND` adds one tool to
//! the listing of a 2025-11-25 connection only: `name` one named `bad name, here` (SEP-986),
//! `schema` one whose inputSchema has no `$schema` and is draft-07 (`items` an array), not
//! valid 2020-12 (SEP-1613); `draft-07` the same schema naming draft-07 in `$schema` (clean).
//! `echo` declares an `outputSchema` (`{text: string}`) and answers with `structuredContent`;
//! `--output-schema-mismatch` makes that `{text: <the length>}`, a number where its schema says
//! string (MCP server/tools: structured results conform to the declared schema).
//! `--is-error-string` writes every tool result's `isError` as a string (`"false"`, `"true"`),
//! not a boolean; `--answer-notifications` answers every notification (`notifications/initialized`
//! included) with a -32601 error under id null (JSON-RPC 2.0 §4.1: notifications are never
//! answered).
//! Load (the gate's verdicts must not depend on `--jobs` or a busy machine): `--slow-start-ms N`
//! reads nothing for N ms after it starts (a server importing its packages);
//! `--answer-negative-ids-late MS` writes the answer to a request with a negative integer id only
//! after the next answer it writes, MS ms later (a server answering concurrently: JSON-RPC
//! orders no responses); `--slow-discover-ms N` reads nothing for N ms before it answers
//! `server/discover` (to the
//! runner, the silence of an instance that starts slower than discovery's did); `--lock-file PATH`
//! keeps shared state in PATH: every instance holds a shared `flock` on it while it serves, and
//! on stdin EOF takes it exclusively (compacting the store needs every other instance gone),
//! so it exits only once no other instance is alive, and lingers `--linger-ms MS` (default 300)
//! holding the lock before it exits 0.

use std::io::{BufWriter, Read, Write};
use std::os::fd::AsRawFd as _;

use mcp_wire::{
    DecodeEvent, ErrorObject, FrameDecoder, Inbound, Message, error_response, parse_inbound,
    response,
};
use serde_json::{Value, json};

const MAX_FRAME: usize = 1024 * 1024;
const VERSIONS: [&str; 3] = ["2024-11-05", "2025-03-26", "2025-06-18"];

struct Server {
    drop_malformed: bool,
    /// A method never answered (after initialize): a hung server for timeout tests.
    hang_method: Option<String>,
    /// A method answered with a wrong id (after initialize).
    wrong_id_method: Option<String>,
    /// A method answered under an integer id above u64 (after initialize).
    huge_wrong_id_method: Option<String>,
    hang_initialize: bool,
    ping_client: bool,
    invalid_args_protocol_error: bool,
    empty_resource: bool,
    batches_always: bool,
    null_id_for_invalid: bool,
    flood: bool,
    log_on_call: bool,
    oversized_log_on_call: bool,
    /// `--acting-tool FILE`: the file `schedule_task` creates when called.
    acting_tool: Option<String>,
    no_echo: bool,
    /// `--no-read-only-hint`: `echo` is listed without `readOnlyHint: true`.
    no_read_only_hint: bool,
    output_schema_mismatch: bool,
    huge_initialize: bool,
    exit_on_method: Option<String>,
    batch_answers_notification: bool,
    is_error_string: bool,
    answer_notifications: bool,
    /// `--unknown-method-code N`: the error code of every unknown method.
    unknown_method_code: Option<i64>,
    /// `--discover-code N`: the error code of `server/discover`.
    discover_code: Option<i64>,
    /// `--slow-discover-ms N`: reads nothing more for N ms before answering `server/discover`.
    slow_discover_ms: Option<u64>,
    /// `--missing-proposal-code N`: the error code of an `initialize` without a proposal.
    missing_proposal_code: Option<i64>,
    drop_missing_proposal: bool,
    drop_batches: bool,
    /// Raw lines to write before the next replies (the T1 defects).
    before: Vec<Vec<u8>>,
    /// Set when `--flood` starts: the main loop writes notifications for ever.
    flooding: bool,
    /// `--versions A,B`: the handshake dates it supports (echoed); any other proposal is
    /// answered with the last (newest) of them, as the SDKs do.
    versions: Vec<String>,
    /// `--answer-version DATE`: answers every `initialize` with DATE (a date no revision
    /// defines, for the T2 defect).
    answer_version: Option<String>,
    /// `--defect-2025-11-25 KIND`: the tool added to a 2025-11-25 connection's listing.
    defect_2025_11_25: Option<String>,
    version: Option<String>,
}

/// The tool `--defect-2025-11-25 KIND` lists on a 2025-11-25 connection.
fn tool_of_2025_11_25(kind: &str) -> Value {
    // `items` as an array is draft-07's tuple form; 2020-12 wants a schema there.
    let mut schema = json!({"type": "object",
        "properties": {"pair": {"type": "array", "items": [{"type": "string"}]}}});
    let name = match kind {
        "name" => {
            schema = json!({"type": "object"});
            "bad name, here"
        }
        "draft-07" => {
            schema["$schema"] = json!("http://json-schema.org/draft-07/schema#");
            "legacy_pair"
        }
        _ => "legacy_pair",
    };
    json!({"name": name, "description": "A tool of the 2025-11-25 listing",
           "annotations": {"readOnlyHint": true}, "inputSchema": schema})
}

/// The id of the toy's own ping to the client (`--ping-client`).
const CLIENT_PING_ID: &str = "toy-ping-to-client";

impl Server {
    fn handle(&mut self, msg: Message) -> Option<Value> {
        let Message::Request { id, method, params } = msg else {
            return None;
        };
        let params = params.unwrap_or(Value::Null);
        if self.version.is_some() && self.hang_method.as_deref() == Some(method.as_str()) {
            return None;
        }
        if self.version.is_some() && self.exit_on_method.as_deref() == Some(method.as_str()) {
            std::process::exit(3);
        }
        if self.version.is_some() && self.huge_wrong_id_method.as_deref() == Some(method.as_str()) {
            return Some(Value::String(
                r#"{"jsonrpc":"2.0","id":18446744073709551616,"result":{}}"#.to_owned(),
            ));
        }
        if (self.version.is_some() || method == "initialize")
            && self.wrong_id_method.as_deref() == Some(method.as_str())
        {
            return Some(response(&json!(format!("wrong-{id}")), json!({})));
        }
        let result = match method.as_str() {
            "initialize" => {
                if self.hang_initialize {
                    return None;
                }
                if self.drop_missing_proposal && params.get("protocolVersion").is_none() {
                    return None;
                }
                if let (Some(code), None) =
                    (self.missing_proposal_code, params.get("protocolVersion"))
                {
                    return Some(error_response(
                        Some(&id),
                        &ErrorObject::new(code, "protocolVersion is required"),
                    ));
                }
                let asked = params
                    .get("protocolVersion")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                let v = if let Some(fixed) = &self.answer_version {
                    fixed.clone()
                } else if self.versions.iter().any(|v| v == asked) {
                    asked.to_owned()
                } else {
                    self.versions
                        .last()
                        .cloned()
                        .unwrap_or_else(|| "2025-06-18".to_owned())
                };
                self.version = Some(v.clone());
                if self.huge_initialize {
                    // Valid JSON-RPC, but longer than any client keeps (17 MiB of serverInfo).
                    return Some(response(
                        &id,
                        json!({"protocolVersion": v, "capabilities": {"tools": {}},
                               "serverInfo": {"name": "toy-server", "version": "1.0.0",
                                              "pad": "p".repeat(17 * 1024 * 1024)}}),
                    ));
                }
                let capabilities = if self.empty_resource {
                    json!({"tools": {}, "resources": {}})
                } else {
                    json!({"tools": {}})
                };
                json!({"protocolVersion": v, "capabilities": capabilities,
                       "serverInfo": {"name": "toy-server", "version": "1.0.0"}})
            }
            "ping" if self.flood && self.version.is_some() => {
                self.flooding = true;
                return None;
            }
            "ping" => json!({}),
            // Unknown methods are -32601 before initialize too (a host's `server/discover`
            // probe falls back to initialize on it); known ones are "not initialized".
            m if self.version.is_none()
                && matches!(
                    m,
                    "tools/list" | "tools/call" | "resources/list" | "resources/read"
                ) =>
            {
                return Some(error_response(
                    Some(&id),
                    &ErrorObject::invalid_request("not initialized"),
                ));
            }
            "tools/list" => {
                if params.get("cursor").is_some() {
                    return Some(error_response(
                        Some(&id),
                        &ErrorObject::invalid_params("unknown cursor"),
                    ));
                }
                let mut tools = Vec::new();
                if !self.no_echo {
                    let annotations = if self.no_read_only_hint {
                        json!({})
                    } else {
                        json!({"readOnlyHint": true})
                    };
                    tools.push(json!({"name": "echo", "description": "Echoes text",
                        "annotations": annotations,
                        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}},
                                        "required": ["text"], "additionalProperties": false},
                        "outputSchema": {"type": "object", "properties": {"text": {"type": "string"}},
                                         "required": ["text"]}}));
                }
                if self.acting_tool.is_some() {
                    tools.push(json!({"name": "schedule_task",
                        "description": "Schedules a task that persists",
                        "inputSchema": {"type": "object", "properties": {"when": {"type": "string"}},
                                        "required": ["when"], "additionalProperties": false}}));
                }
                if self.version.as_deref() == Some("2025-11-25")
                    && let Some(kind) = &self.defect_2025_11_25
                {
                    tools.push(tool_of_2025_11_25(kind));
                }
                json!({ "tools": tools })
            }
            "resources/list" if self.empty_resource => {
                json!({"resources": [{"uri": "toy://empty", "name": "empty"}]})
            }
            "resources/read" if self.empty_resource => {
                if params.get("uri").and_then(Value::as_str) != Some("toy://empty") {
                    return Some(error_response(
                        Some(&id),
                        &ErrorObject::new(-32002, "resource not found"),
                    ));
                }
                json!({"contents": []})
            }
            "tools/call" => {
                if self.log_on_call {
                    self.before
                        .push(b"toy-server: INFO handling tools/call".to_vec());
                }
                if self.oversized_log_on_call {
                    self.before.push(vec![b'x'; 17 * 1024 * 1024]);
                }
                let name = params.get("name").and_then(Value::as_str);
                if let (Some("schedule_task"), Some(file)) = (name, &self.acting_tool) {
                    // Acts first, validates after: what the runner must never trigger unasked.
                    let _ = std::fs::write(file, b"scheduled");
                    return Some(response(
                        &id,
                        json!({"content": [{"type": "text", "text": "scheduled"}], "isError": false}),
                    ));
                }
                if name != Some("echo") || self.no_echo {
                    return Some(error_response(
                        Some(&id),
                        &ErrorObject::invalid_params("unknown tool"),
                    ));
                }
                match params
                    .get("arguments")
                    .and_then(|a| a.get("text"))
                    .and_then(Value::as_str)
                {
                    Some(t) => {
                        let structured = if self.output_schema_mismatch {
                            json!({"text": t.len()})
                        } else {
                            json!({"text": t})
                        };
                        json!({"content": [{"type": "text", "text": t}],
                               "structuredContent": structured, "isError": false})
                    }
                    None if self.invalid_args_protocol_error => {
                        return Some(error_response(
                            Some(&id),
                            &ErrorObject::invalid_params("text must be a string"),
                        ));
                    }
                    None => {
                        json!({"content": [{"type": "text", "text": "text must be a string"}], "isError": true})
                    }
                }
            }
            other => {
                if other == "server/discover"
                    && let Some(ms) = self.slow_discover_ms
                {
                    std::thread::sleep(std::time::Duration::from_millis(ms));
                }
                let code = match other {
                    "server/discover" => self.discover_code.or(self.unknown_method_code),
                    _ => self.unknown_method_code,
                };
                let error = code.map_or_else(
                    || ErrorObject::method_not_found(other),
                    |c| ErrorObject::new(c, "no such method"),
                );
                return Some(error_response(Some(&id), &error));
            }
        };
        let mut result = result;
        if self.is_error_string
            && let Some(Value::Bool(b)) = result.get("isError").cloned()
        {
            result["isError"] = json!(b.to_string());
        }
        Some(response(&id, result))
    }

    /// A response from the client: only the answer to the toy's own ping is expected.
    fn client_answer(&self, id: &Value, answer: &str) -> Vec<Value> {
        if self.ping_client && id == &json!(CLIENT_PING_ID) && answer != "{}" {
            // Written as raw text (not JSON), so the runner's T1 case shows the client's mistake.
            return vec![json!(format!(
                "toy-server: the client answered ping with {answer}"
            ))];
        }
        Vec::new()
    }

    fn frame(&mut self, line: &[u8]) -> Vec<Value> {
        match parse_inbound(line) {
            Ok(Inbound::Single(Ok(Message::Response { id, result }))) => {
                self.client_answer(&id, &result.to_string())
            }
            Ok(Inbound::Single(Ok(Message::ErrorResponse { id, error }))) => {
                self.client_answer(&id, &format!("error {}", error.code))
            }
            Ok(Inbound::Single(Ok(m @ Message::Request { .. })))
                if self.ping_client
                    && matches!(&m, Message::Request { method, .. } if method == "initialize") =>
            {
                let ping = json!({"jsonrpc": "2.0", "id": CLIENT_PING_ID, "method": "ping"});
                std::iter::once(ping).chain(self.handle(m)).collect()
            }
            Err(e) if !self.drop_malformed => vec![error_response(None, &e.error())],
            Err(_) => vec![],
            Ok(Inbound::Single(Ok(Message::Notification { method, .. })))
                if self.answer_notifications =>
            {
                vec![error_response(
                    Some(&Value::Null),
                    &ErrorObject::method_not_found(&method),
                )]
            }
            Ok(Inbound::Single(Ok(m))) => self.handle(m).into_iter().collect(),
            Ok(Inbound::Single(Err(inv))) if !self.drop_malformed => {
                let id = if self.null_id_for_invalid {
                    Value::Null
                } else {
                    inv.reply_id()
                };
                vec![error_response(Some(&id), &inv.error())]
            }
            Ok(Inbound::Batch(items))
                if (self.version.as_deref() == Some("2025-03-26") || self.batches_always)
                    && !items.is_empty() =>
            {
                let answer_notes = self.batch_answers_notification;
                let out: Vec<Value> = items
                    .into_iter()
                    .filter_map(|i| match i {
                        Ok(Message::Notification { method, .. }) if answer_notes => {
                            Some(error_response(
                                Some(&Value::Null),
                                &ErrorObject::method_not_found(&method),
                            ))
                        }
                        // A raw-text reply (the huge id) goes into the batch as the JSON it is.
                        Ok(m) => self.handle(m).map(|r| match r {
                            Value::String(t) => {
                                serde_json::from_str(&t).unwrap_or(Value::String(t))
                            }
                            other => other,
                        }),
                        Err(inv) => Some(error_response(Some(&inv.reply_id()), &inv.error())),
                    })
                    .collect();
                vec![Value::Array(out)]
            }
            Ok(Inbound::Batch(items)) if self.drop_batches && !items.is_empty() => vec![],
            Ok(_) if self.drop_malformed => vec![],
            Ok(_) => vec![error_response(
                None,
                &ErrorObject::invalid_request("batches are not accepted"),
            )],
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let has = |f: &str| args.iter().any(|a| a == f);
    if has("--exit-at-start") {
        std::process::exit(3);
    }
    if has("--ping-flood") {
        let mut out = std::io::stdout().lock();
        for i in 0u64.. {
            let ping = json!({"jsonrpc": "2.0", "id": format!("toy-ping-{i}"), "method": "ping"});
            if out
                .write_all(&mcp_wire::encode(&ping))
                .and_then(|()| out.flush())
                .is_err()
            {
                break;
            }
        }
        return;
    }
    if has("--panic-on-sigterm") {
        // SAFETY: the handler only calls async-signal-safe functions (write, _exit).
        extern "C" fn die(_: libc::c_int) {
            let msg = b"thread 'main' panicked at toy_server.rs: shutdown hook failed\n";
            // SAFETY: write(2) and _exit(2) are async-signal-safe.
            unsafe {
                libc::write(2, msg.as_ptr().cast(), msg.len());
                libc::_exit(101);
            }
        }
        // SAFETY: installing a handler that only uses async-signal-safe calls.
        unsafe {
            libc::signal(libc::SIGTERM, die as *const () as libc::sighandler_t);
        }
    }
    let value_of = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1).cloned())
    };
    let hang_unless_first = value_of("--hang-initialize-unless-first").is_some_and(|dir| {
        // The first server to create the marker is the discovery session's.
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(std::path::Path::new(&dir).join("first"))
            .is_err()
    });
    if has("--exit-leaving-child") {
        // A child inherits stdout and outlives the server: stdout stays open after it exits.
        let _ = std::process::Command::new("sleep").arg("30").spawn();
        std::process::exit(0);
    }
    let mut server = Server {
        drop_malformed: has("--drop-malformed"),
        hang_initialize: has("--hang-initialize") || hang_unless_first,
        log_on_call: has("--log-on-call"),
        oversized_log_on_call: has("--oversized-log-on-call"),
        acting_tool: value_of("--acting-tool"),
        no_echo: has("--no-echo"),
        no_read_only_hint: has("--no-read-only-hint"),
        output_schema_mismatch: has("--output-schema-mismatch"),
        huge_initialize: has("--huge-initialize"),
        exit_on_method: value_of("--exit-on-method"),
        batch_answers_notification: has("--batch-answers-notification"),
        is_error_string: has("--is-error-string"),
        answer_notifications: has("--answer-notifications"),
        unknown_method_code: value_of("--unknown-method-code").and_then(|v| v.parse().ok()),
        discover_code: value_of("--discover-code").and_then(|v| v.parse().ok()),
        slow_discover_ms: value_of("--slow-discover-ms").and_then(|v| v.parse().ok()),
        missing_proposal_code: value_of("--missing-proposal-code").and_then(|v| v.parse().ok()),
        drop_missing_proposal: has("--drop-missing-proposal"),
        drop_batches: has("--drop-batches"),
        before: Vec::new(),
        ping_client: has("--ping-client"),
        invalid_args_protocol_error: has("--invalid-args-protocol-error"),
        empty_resource: has("--empty-resource"),
        batches_always: has("--batches-always"),
        null_id_for_invalid: has("--null-id-for-invalid"),
        flood: has("--flood"),
        flooding: false,
        versions: value_of("--versions").map_or_else(
            || VERSIONS.map(str::to_owned).to_vec(),
            |list| list.split(',').map(str::to_owned).collect(),
        ),
        answer_version: value_of("--answer-version"),
        defect_2025_11_25: value_of("--defect-2025-11-25"),
        hang_method: args
            .iter()
            .position(|a| a == "--hang-method")
            .and_then(|i| args.get(i + 1).cloned()),
        wrong_id_method: args
            .iter()
            .position(|a| a == "--wrong-id-method")
            .and_then(|i| args.get(i + 1).cloned()),
        huge_wrong_id_method: args
            .iter()
            .position(|a| a == "--huge-wrong-id-method")
            .and_then(|i| args.get(i + 1).cloned()),
        version: None,
    };
    let store = value_of("--lock-file").map(|path| {
        let linger = value_of("--linger-ms").and_then(|v| v.parse().ok());
        Store::open(&path, linger.unwrap_or(300))
    });
    if let Some(ms) = value_of("--slow-start-ms").and_then(|v| v.parse().ok()) {
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
    let mut decoder = FrameDecoder::new(MAX_FRAME);
    let mut stdin = std::io::stdin().lock();
    let mut out = BufWriter::new(std::io::stdout().lock());
    let mut buf = vec![0u8; 64 * 1024];
    let late_ms: Option<u64> = value_of("--answer-negative-ids-late").and_then(|v| v.parse().ok());
    let mut held: Vec<Vec<u8>> = Vec::new();
    loop {
        let n = match stdin.read(&mut buf) {
            Ok(0) | Err(_) => {
                if let Some(store) = &store {
                    store.close();
                }
                return;
            }
            Ok(n) => n,
        };
        let mut replies = Vec::new();
        decoder.decode(&buf[..n], &mut |ev| match ev {
            DecodeEvent::Line([]) => {}
            DecodeEvent::Line(l) => replies.extend(server.frame(l)),
            DecodeEvent::OversizedEnd { .. } if !server.drop_malformed => {
                replies.push(error_response(
                    None,
                    &ErrorObject::invalid_request("frame too large"),
                ));
            }
            _ => {}
        });
        if server.flooding {
            // First more small notifications than a transcript keeps, at once whatever the
            // load (what is kept and what is counted is then settled within milliseconds),
            // then 1 MiB ones for ever.
            let small = mcp_wire::encode(&json!({"jsonrpc": "2.0",
                "method": "notifications/message", "params": {"level": "info", "data": "y"}}));
            let note =
                mcp_wire::encode(&json!({"jsonrpc": "2.0", "method": "notifications/message",
                "params": {"level": "info", "data": "y".repeat(1024 * 1024)}}));
            let mut lines = std::iter::repeat_n(&small, 32).chain(std::iter::repeat(&note));
            while lines
                .next()
                .is_some_and(|l| out.write_all(l).and_then(|()| out.flush()).is_ok())
            {}
            return;
        }
        for line in std::mem::take(&mut server.before) {
            if out
                .write_all(&line)
                .and_then(|()| out.write_all(b"\n"))
                .and_then(|()| out.flush())
                .is_err()
            {
                return;
            }
        }
        let mut wrote = false;
        for r in replies {
            // A string reply is raw text, not JSON: the toy's deliberate T1 violations.
            let bytes = match &r {
                Value::String(text) => format!("{text}\n").into_bytes(),
                other => mcp_wire::encode(other),
            };
            if late_ms.is_some() && r.get("id").and_then(Value::as_i64).is_some_and(|i| i < 0) {
                held.push(bytes);
                continue;
            }
            if out.write_all(&bytes).and_then(|()| out.flush()).is_err() {
                return;
            }
            wrote = true;
        }
        if let Some(ms) = late_ms
            && wrote
            && !held.is_empty()
        {
            std::thread::sleep(std::time::Duration::from_millis(ms));
            for bytes in held.drain(..) {
                if out.write_all(&bytes).and_then(|()| out.flush()).is_err() {
                    return;
                }
            }
        }
    }
}

/// `--lock-file`: shared state every instance holds a shared `flock` on while it serves.
struct Store {
    file: std::fs::File,
    linger_ms: u64,
}

impl Store {
    /// Opens the store and holds it shared (waiting while an instance compacts it).
    fn open(path: &str, linger_ms: u64) -> Self {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .unwrap_or_else(|e| {
                eprintln!("toy-server: cannot open the lock file {path}: {e}");
                std::process::exit(4)
            });
        // SAFETY: flock on a descriptor this process owns.
        unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_SH) };
        Self { file, linger_ms }
    }

    /// At stdin EOF: compacts the store, which needs it exclusively (every other instance
    /// gone), and lingers holding it before the exit.
    fn close(&self) {
        // SAFETY: as in `open`; the shared lock is converted (dropped, then waited for).
        unsafe { libc::flock(self.file.as_raw_fd(), libc::LOCK_EX) };
        let _ = (&self.file).write_all(format!("{} compacted\n", std::process::id()).as_bytes());
        std::thread::sleep(std::time::Duration::from_millis(self.linger_ms));
    }
}
