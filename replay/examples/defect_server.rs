//! A tiny stdio MCP server for mcp-replay's tests, with switchable one-defect variants
//! (`--defect NAME`): `changed-field` (the echo tool answers its text upper-cased),
//! `extra-message` (one more log notification before the echo answer), `missing-answer` (the
//! echo call is never answered), `reordered` (the echo call's two log notifications swapped),
//! `id-change` (the echo answer carries another id). Every answer's `_meta` holds a fresh UUID
//! and the current time, which the built-in normalisation rules must absorb.

use std::io::BufRead as _;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let defect = args
        .iter()
        .position(|a| a == "--defect")
        .and_then(|i| args.get(i + 1))
        .cloned()
        .unwrap_or_default();
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    let mut counter = 0u64;
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let Ok(msg) = serde_json::from_str::<Value>(&line) else {
            let e =
                json!({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}});
            send(&mut out, &e);
            continue;
        };
        let (Some(id), Some(method)) = (msg.get("id"), msg["method"].as_str()) else {
            continue;
        };
        counter += 1;
        let meta = json!({"requestId": uuid(counter), "at": now()});
        let result = match method {
            "initialize" => json!({
                "protocolVersion": msg["params"]["protocolVersion"].as_str().unwrap_or("2025-06-18"),
                "capabilities": {"tools": {}, "resources": {}, "logging": {}},
                "serverInfo": {"name": "defect-server", "version": "1.0.0"}
            }),
            "ping" => json!({}),
            "tools/list" => json!({"tools": [
                {"name": "echo", "description": "Echoes its text", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}},
                {"name": "add", "description": "Adds two numbers", "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}}}
            ]}),
            "resources/list" => json!({"resources": [], "_meta": meta}),
            "tools/call" => match msg["params"]["name"].as_str() {
                Some("echo") => {
                    let mut text = msg["params"]["arguments"]["text"]
                        .as_str()
                        .unwrap_or_default()
                        .to_owned();
                    let mut logs = vec!["echo started", "echo done"];
                    if defect == "reordered" {
                        logs.reverse();
                    }
                    if defect == "extra-message" {
                        logs.insert(1, "surprise");
                    }
                    for l in logs {
                        send(
                            &mut out,
                            &json!({"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":l}}),
                        );
                    }
                    if defect == "missing-answer" {
                        continue;
                    }
                    if defect == "changed-field" {
                        text = text.to_uppercase();
                    }
                    let id = if defect == "id-change" {
                        json!(format!("x-{id}"))
                    } else {
                        id.clone()
                    };
                    let r = json!({"content": [{"type": "text", "text": text}], "_meta": meta});
                    send(&mut out, &json!({"jsonrpc":"2.0","id":id,"result":r}));
                    continue;
                }
                Some("add") => {
                    let a = msg["params"]["arguments"]["a"].as_f64().unwrap_or(0.0);
                    let b = msg["params"]["arguments"]["b"].as_f64().unwrap_or(0.0);
                    json!({"content": [{"type": "text", "text": format!("{}", a + b)}], "_meta": meta})
                }
                _ => {
                    let e = json!({"code": -32602, "message": "unknown tool"});
                    send(&mut out, &json!({"jsonrpc":"2.0","id":id,"error":e}));
                    continue;
                }
            },
            _ => {
                let e = json!({"code": -32601, "message": format!("method not found: {method}")});
                send(&mut out, &json!({"jsonrpc":"2.0","id":id,"error":e}));
                continue;
            }
        };
        send(&mut out, &json!({"jsonrpc":"2.0","id":id,"result":result}));
    }
}

fn send(out: &mut impl std::io::Write, v: &Value) {
    let _ = writeln!(out, "{v}");
    let _ = out.flush();
}

/// A UUID-shaped value that differs from run to run (time, pid, a counter).
fn uuid(counter: u64) -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let x = nanos ^ (u128::from(std::process::id()) << 64) ^ u128::from(counter) << 96;
    let h = format!("{x:032x}");
    format!(
        "{}-{}-4{}-8{}-{}",
        &h[0..8],
        &h[8..12],
        &h[13..16],
        &h[17..20],
        &h[20..32]
    )
}

/// The current UTC time as ISO 8601 with milliseconds.
fn now() -> String {
    let d = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    let secs = d.as_secs();
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rem = secs % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        d.subsec_millis()
    )
}
