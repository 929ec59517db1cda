//! Client → upstream rewriting, one complete client line at a time: the requests whose answers
//! get tracked, the gateway's renaming and unbinding of `tools/call`, and the mutations that act
//! on what the client sends (batches split, cancellations swallowed or answered, parse errors).

use std::collections::HashSet;
use std::process::Stdio;

use serde_json::{Value, json};

use crate::listing::unhex_name;
use crate::mutation::Mutation;
use crate::proxy::{
    Action, Batch, CLIENT_NOTIFICATIONS, INVOCATION_KEY, MAX_PENDING, Pending, Proxy, WORK_URI,
    error_answer, id_key, rewrite_batch, tool_is,
};

impl Proxy {
    /// One complete client line: what goes upstream (lines without their newline) and what the
    /// proxy answers the client itself.
    pub(crate) fn client_line(&self, line: &[u8]) -> (Vec<Vec<u8>>, Vec<Value>) {
        let parsed = std::str::from_utf8(line)
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(t).ok());
        let Some(value) = parsed else {
            if self.is(Mutation::DropMalformed) && !line.iter().all(u8::is_ascii_whitespace) {
                return (Vec::new(), Vec::new());
            }
            if self.is(Mutation::ParseErrorTwice) && !line.iter().all(u8::is_ascii_whitespace) {
                let own = error_answer(&Value::Null, -32700, "parse error");
                return (vec![line.to_vec()], vec![own]);
            }
            return (vec![line.to_vec()], Vec::new());
        };
        let mut to_client = Vec::new();
        match value {
            Value::Array(items) => {
                if let Some(lines) = self.split_batch(&items) {
                    return (lines, Vec::new());
                }
                match rewrite_batch(items, |item| {
                    self.client_message(item, false, &mut to_client)
                }) {
                    None => (vec![line.to_vec()], to_client),
                    Some(out) if out.is_empty() => (Vec::new(), to_client),
                    Some(out) => (vec![Value::Array(out).to_string().into_bytes()], to_client),
                }
            }
            single => match self.client_message(single, true, &mut to_client) {
                Action::Keep => (vec![line.to_vec()], to_client),
                Action::Replace(v) => (vec![v.to_string().into_bytes()], to_client),
                Action::Drop => (Vec::new(), to_client),
            },
        }
    }

    /// Mutation `batch-under-2025-06-18`: a batch of requests under 2025-06-18 is split into
    /// single lines and its answers gathered into one array (T5 forbids this).
    fn split_batch(&self, items: &[Value]) -> Option<Vec<Vec<u8>>> {
        if !self.is(Mutation::BatchUnder2025_06_18)
            || items.is_empty()
            || !items
                .iter()
                .all(|i| i.get("method").is_some_and(Value::is_string))
        {
            return None;
        }
        let mut st = self.state();
        if st.negotiated.as_deref() != Some("2025-06-18") {
            return None;
        }
        let waiting: HashSet<String> = items
            .iter()
            .filter_map(|i| i.get("id"))
            .map(id_key)
            .collect();
        if !waiting.is_empty() {
            st.batches.push(Batch {
                waiting,
                answers: Vec::new(),
            });
        }
        Some(items.iter().map(|i| i.to_string().into_bytes()).collect())
    }

    /// One client message (alone or in a batch).
    fn client_message(&self, mut m: Value, single: bool, to_client: &mut Vec<Value>) -> Action {
        let method = m.get("method").and_then(Value::as_str).map(str::to_owned);
        let Some(method) = method else {
            return Action::Keep;
        };
        let Some(id) = m.get("id").cloned() else {
            return self.client_notification(&method, &m, single, to_client);
        };
        let mut changed = false;
        let twice = match method.as_str() {
            _ if self.is(Mutation::AnsweredTwice) => true,
            "initialize" => self.is(Mutation::InitializeAnsweredTwice),
            "ping" => single && self.is(Mutation::PingAnsweredTwice),
            "tools/call" => self.is(Mutation::CallAnsweredTwice),
            "tools/list" => self.is(Mutation::ListAnsweredTwice),
            _ => false,
        };
        // An id the runner can tie to its request: an answer to `"id": null` answers a line
        // whose id could not be read, and its own cases grade how many came.
        if twice && !id.is_null() {
            self.state().twice.insert(id_key(&id));
        }
        if method == "initialize"
            && !id.is_null()
            && (self.is(Mutation::UnsolicitedNumberAnswer)
                || self.is(Mutation::UnsolicitedStringAnswer))
        {
            self.state().unsolicited.insert(id_key(&id));
        }
        if self.is(Mutation::WrongIdEcho)
            && id.as_u64().is_some_and(|n| n > i64::MAX.unsigned_abs())
        {
            // The bug: an i64 id type, saturating on the way in.
            m["id"] = json!(i64::MAX);
            changed = true;
        }
        if method == "server/discover" && self.is(Mutation::DiscoverAnswered) {
            to_client.push(json!({"jsonrpc": "2.0", "id": id, "result": {
                "supportedVersions": ["2025-06-18"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "mcp_proxy", "version": "0.1.0"}
            }}));
            return Action::Drop;
        }
        let params = m.get("params").cloned().unwrap_or(Value::Null);
        let pending = match method.as_str() {
            "initialize" => Some(Pending::Initialize {
                proposal: params
                    .get("protocolVersion")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
            }),
            // Single pings only: mutation ping-result-null leaves batches to the batch cases.
            "ping" if single => Some(Pending::Ping),
            "tools/call" => {
                if self.is(Mutation::WrongIdOnList)
                    && params
                        .get("name")
                        .and_then(Value::as_str)
                        .is_some_and(|n| tool_is(n, "claude.run.list"))
                {
                    self.state().wrong_ids.insert(id_key(&id));
                }
                if let Some(inv) = params
                    .get("_meta")
                    .and_then(|x| x.get(INVOCATION_KEY))
                    .and_then(Value::as_str)
                {
                    self.state().last_invocation = Some(inv.to_owned());
                }
                if self.is(Mutation::LeakRunProcess)
                    && let Some(prompt) = params
                        .get("arguments")
                        .and_then(|a| a.get("prompt"))
                        .and_then(Value::as_str)
                    && prompt.starts_with("fake-claude:scenario=grandchild\n")
                {
                    // The leak: a native process of the run (`claude` on PATH is the fake,
                    // argv holding the run's prompt) that nobody supervises or kills; the
                    // runner's group kill ends it after the case.
                    let hang =
                        prompt.replacen("scenario=grandchild", "scenario=hang-before-final", 1);
                    let _ = std::process::Command::new("claude")
                        .args([
                            "-p",
                            "--output-format",
                            "stream-json",
                            "--verbose",
                            "--",
                            &hang,
                        ])
                        .stdin(Stdio::null())
                        .stdout(Stdio::null())
                        .stderr(Stdio::null())
                        .spawn();
                }
                if self.gateway {
                    // An answer of the gateway's own goes out as a single message, even for an
                    // element of a batch (no runner case batches tools/call).
                    match self.gateway_call(&id, &mut m) {
                        Ok(c) => changed |= c,
                        Err(answer) => {
                            to_client.push(answer);
                            return Action::Drop;
                        }
                    }
                }
                Some(Pending::ToolsCall)
            }
            "resources/read" => {
                let uri = params
                    .get("uri")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned();
                if self.gateway && uri == WORK_URI {
                    // The upstream connection's work is not this connection's (META-CONN-1).
                    to_client.push(error_answer(&id, -32002, "resource not found"));
                    return Action::Drop;
                }
                Some(Pending::ResourcesRead { uri })
            }
            _ => None,
        };
        if let Some(p) = pending {
            let key = id_key(&m["id"]);
            let mut st = self.state();
            if st.pending.len() < MAX_PENDING {
                st.pending.insert(key, p);
            }
        }
        if changed {
            Action::Replace(m)
        } else {
            Action::Keep
        }
    }

    /// Gateway rewriting of a `tools/call`: the prefix comes off the name, and the host's work
    /// invocation stays on the host's connection. `Err` is the gateway's own answer.
    fn gateway_call(&self, id: &Value, m: &mut Value) -> Result<bool, Value> {
        let mut changed = false;
        let Some(params) = m.get_mut("params").and_then(Value::as_object_mut) else {
            return Ok(false);
        };
        if let Some(name) = params.get("name").and_then(Value::as_str) {
            let inner = match &self.prefix {
                Some(prefix) => name.strip_prefix(prefix.as_str()).map(str::to_owned),
                None if self.hex_names => unhex_name(name),
                None => Some(name.to_owned()),
            };
            // A name this gateway never listed is an unknown tool (TOOL-3).
            let Some(inner) = inner else {
                return Err(error_answer(id, -32602, &format!("unknown tool {name:?}")));
            };
            if inner != name {
                params.insert("name".into(), json!(inner));
                changed = true;
            }
        }
        if let Some(meta) = params.get_mut("_meta").and_then(Value::as_object_mut)
            && meta.remove(INVOCATION_KEY).is_some()
        {
            changed = true;
        }
        Ok(changed)
    }

    fn client_notification(
        &self,
        method: &str,
        m: &Value,
        single: bool,
        to_client: &mut Vec<Value>,
    ) -> Action {
        if method == "notifications/cancelled" {
            if self.is(Mutation::HangOnCancel) {
                return Action::Drop;
            }
            if self.is(Mutation::AnswerCancelled)
                && let Some(req) = m.get("params").and_then(|p| p.get("requestId"))
                && self.state().pending.remove(&id_key(req)).is_some()
            {
                to_client.push(error_answer(req, -32800, "request cancelled"));
            }
        }
        if single
            && (self.is(Mutation::NotificationsAnswered)
                || (self.is(Mutation::InitializedAnswered)
                    && method == "notifications/initialized")
                || (self.is(Mutation::CancelledAnswered) && method == "notifications/cancelled")
                || (self.is(Mutation::UnknownNotificationAnswered)
                    && !CLIENT_NOTIFICATIONS.contains(&method)))
        {
            to_client.push(error_answer(
                &Value::Null,
                -32601,
                &format!("method not found: {method}"),
            ));
        }
        Action::Keep
    }
}
