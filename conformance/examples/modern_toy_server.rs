//! A small MCP server over stdio that speaks the stateless era (2026-07-28) the way the Python
//! SDK 2.3.0 does, for the gate's tests of that era: the first request of a connection decides
//! its era (a request carrying `params._meta["io.modelcontextprotocol/protocolVersion"]` opens a
//! modern connection, anything else a handshake one); `initialize` on a modern connection is
//! `-32022` with `data: {supported, requested}`; an enveloped request on a handshake connection
//! is `-32600`; a modern request without the envelope is `-32602`; `server/discover` answers
//! `supportedVersions`, `capabilities`, `resultType`, `cacheScope` and `ttlMs`.
//!
//! `--only-modern` refuses `initialize` as a connection's first request too (`-32022`): a server
//! of the stateless era alone. `--defect NAME` breaks exactly one rule:
//! `discover-shape` (no `supportedVersions`), `envelope-once` (only a connection's first
//! enveloped request is answered), `missing-envelope-accepted`, `initialize-no-data` (`-32022`
//! without its data), `legacy-accepts-envelope`, `stateful` (`tools/list` only after
//! `server/discover` on the connection).

use std::io::{BufRead, Write};

use serde_json::{Value, json};

const KEY: &str = "io.modelcontextprotocol/protocolVersion";
const MODERN: &str = "2026-07-28";
const HANDSHAKE: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

#[derive(PartialEq)]
enum Era {
    Undecided,
    Handshake,
    Modern,
}

struct Server {
    defect: String,
    only_modern: bool,
    era: Era,
    discovered: bool,
    modern_answered: u32,
}

fn enveloped(params: Option<&Value>) -> bool {
    params
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get(KEY))
        .is_some()
}

fn error(code: i64, message: &str, data: Option<Value>) -> Result<Value, Value> {
    let mut e = json!({"code": code, "message": message});
    if let Some(data) = data {
        e["data"] = data;
    }
    Err(e)
}

fn tools() -> Value {
    json!({"tools": [{
        "name": "add",
        "description": "Add two integers.",
        "inputSchema": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}
    }]})
}

impl Server {
    fn defect(&self, name: &str) -> bool {
        self.defect == name
    }

    fn answer(&mut self, method: &str, params: Option<&Value>) -> Result<Value, Value> {
        if self.era == Era::Undecided {
            self.era = if method != "initialize" && enveloped(params) {
                Era::Modern
            } else {
                Era::Handshake
            };
        }
        if self.only_modern && method == "initialize" {
            self.era = Era::Modern;
        }
        match self.era {
            Era::Modern => self.modern(method, params),
            _ => self.handshake(method, params),
        }
    }

    fn modern(&mut self, method: &str, params: Option<&Value>) -> Result<Value, Value> {
        if method == "initialize" {
            let requested = params.and_then(|p| p.get("protocolVersion")).cloned();
            let data = (!self.defect("initialize-no-data"))
                .then(|| json!({"supported": [MODERN], "requested": requested}));
            return error(
                -32022,
                "connection is serving the 2026-07-28 protocol; initialize is not accepted",
                data,
            );
        }
        if !enveloped(params) && !self.defect("missing-envelope-accepted") {
            return error(-32602, "params._meta must carry the envelope", None);
        }
        self.modern_answered += 1;
        if self.defect("envelope-once") && self.modern_answered > 1 {
            return error(-32603, "connection already served", None);
        }
        match method {
            "server/discover" => {
                self.discovered = true;
                let mut r = json!({
                    "supportedVersions": [MODERN],
                    "capabilities": {"tools": {}},
                    "resultType": "complete",
                    "cacheScope": "public",
                    "ttlMs": 0
                });
                if self.defect("discover-shape")
                    && let Some(m) = r.as_object_mut()
                {
                    m.remove("supportedVersions");
                }
                Ok(r)
            }
            "tools/list" if self.defect("stateful") && !self.discovered => {
                error(-32600, "discover first", None)
            }
            "tools/list" => {
                let mut r = tools();
                r["resultType"] = json!("complete");
                Ok(r)
            }
            "ping" => Ok(json!({})),
            _ => error(-32601, "method not found", None),
        }
    }

    fn handshake(&mut self, method: &str, params: Option<&Value>) -> Result<Value, Value> {
        if method != "initialize" && enveloped(params) && !self.defect("legacy-accepts-envelope") {
            return error(
                -32600,
                "this connection serves the handshake era; enveloped requests are refused",
                None,
            );
        }
        match method {
            "initialize" => {
                let asked = params
                    .and_then(|p| p.get("protocolVersion"))
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let version = if HANDSHAKE.contains(&asked) {
                    asked
                } else {
                    "2025-11-25"
                };
                Ok(json!({
                    "protocolVersion": version,
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "modern-toy", "version": "0.1.0"}
                }))
            }
            "tools/list" => Ok(tools()),
            "ping" => Ok(json!({})),
            _ => error(-32601, "method not found", None),
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let defect = args
        .iter()
        .position(|a| a == "--defect")
        .and_then(|i| args.get(i + 1))
        .cloned()
        .unwrap_or_default();
    let mut server = Server {
        defect,
        only_modern: args.iter().any(|a| a == "--only-modern"),
        era: Era::Undecided,
        discovered: false,
        modern_answered: 0,
    };
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let Ok(msg) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let (Some(id), Some(method)) = (msg.get("id"), msg.get("method").and_then(Value::as_str))
        else {
            continue;
        };
        let answer = match server.answer(method, msg.get("params")) {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err(error) => json!({"jsonrpc": "2.0", "id": id, "error": error}),
        };
        let _ = writeln!(stdout, "{answer}");
        let _ = stdout.flush();
    }
}
