//! Upstream → client rewriting, one complete upstream line at a time: answers matched to the
//! requests the proxy tracked, batches gathered back, listings passed to listing.rs, and the
//! mutations that act on messages as a whole (ids, `jsonrpc`, error messages, progress).

use serde_json::{Value, json};

use crate::mutation::Mutation;
use crate::proxy::{
    Action, Pending, Proxy, error_answer, error_code, id_key, is_call_result, is_progress,
    rewrite_batch,
};

impl Proxy {
    /// One complete upstream line: the bytes for the client (without the newline), or nothing.
    pub(crate) fn upstream_line(&self, line: &[u8]) -> Option<Vec<u8>> {
        let parsed = std::str::from_utf8(line)
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(t).ok());
        let Some(value) = parsed else {
            return Some(line.to_vec());
        };
        match value {
            Value::Array(items)
                if self.is(Mutation::BatchAnsweredWithErrors)
                    && self.state().negotiated.as_deref() == Some("2025-03-26") =>
            {
                let errors: Vec<Value> = items
                    .iter()
                    .map(|m| error_answer(&m["id"], -32600, "not accepted"))
                    .collect();
                Some(Value::Array(errors).to_string().into_bytes())
            }
            Value::Array(items) => match rewrite_batch(items, |item| self.upstream_message(item)) {
                None => Some(line.to_vec()),
                Some(out) if out.is_empty() => None,
                Some(out) => Some(Value::Array(out).to_string().into_bytes()),
            },
            single => {
                let answers = single
                    .get("method")
                    .is_none()
                    .then(|| single.get("id").map(id_key))
                    .flatten();
                let out = self.upstream_single(single, line);
                // The *-answered-twice mutations: the same answer again, at once.
                match (out, answers) {
                    (Some(bytes), Some(key)) if self.state().twice.remove(&key) => {
                        let mut again = bytes.clone();
                        again.push(b'\n');
                        again.extend_from_slice(&bytes);
                        Some(again)
                    }
                    // The unsolicited-*-answer mutations: an answer nobody asked for, once,
                    // just before initialize's (a whole line while initialize is pending).
                    (Some(bytes), Some(key)) if self.state().unsolicited.remove(&key) => {
                        let id = if self.is(Mutation::UnsolicitedStringAnswer) {
                            json!("mcp-proxy-never-sent")
                        } else {
                            json!(424_242)
                        };
                        let mut out = json!({"jsonrpc": "2.0", "id": id, "result": {}})
                            .to_string()
                            .into_bytes();
                        out.push(b'\n');
                        out.extend_from_slice(&bytes);
                        Some(out)
                    }
                    (out, _) => out,
                }
            }
        }
    }

    /// One upstream message that is no batch: the bytes for the client, or nothing.
    fn upstream_single(&self, single: Value, line: &[u8]) -> Option<Vec<u8>> {
        match self.upstream_message(single) {
            Action::Keep
                if self.is(Mutation::ProgressRepeated)
                    && line.starts_with(b"{")
                    && is_progress(line) =>
            {
                let mut twice = line.to_vec();
                twice.push(b'\n');
                twice.extend_from_slice(line);
                Some(twice)
            }
            Action::Keep if self.is(Mutation::LogOnCall) && is_call_result(line) => {
                let mut logged = b"mcp_proxy: INFO answered tools/call\n".to_vec();
                logged.extend_from_slice(line);
                Some(logged)
            }
            Action::Keep => Some(line.to_vec()),
            Action::Replace(v) => Some(v.to_string().into_bytes()),
            Action::Drop => None,
        }
    }

    fn upstream_message(&self, mut m: Value) -> Action {
        if let Some(method) = m.get("method").and_then(Value::as_str) {
            if m.get("id").is_none()
                && method == "notifications/progress"
                && self.is(Mutation::NoProgress)
            {
                return Action::Drop;
            }
            return Action::Keep;
        }
        let Some(id) = m.get("id").cloned() else {
            return Action::Keep;
        };
        let pending = self.state().pending.remove(&id_key(&id));
        let mut changed = match pending {
            Some(p) => self.answer(&p, &mut m),
            None => false,
        };
        if self.state().wrong_ids.remove(&id_key(&id)) {
            m["id"] = json!(format!("wrong-{}", id_key(&id)));
            changed = true;
        }
        if let Some(result) = m.get_mut("result") {
            changed |= self.listing(result);
        }
        if self.is(Mutation::ResponseWithoutJsonrpc)
            && let Some(obj) = m.as_object_mut()
        {
            changed |= obj.remove("jsonrpc").is_some();
        }
        if self.is(Mutation::ErrorWithoutMessage)
            && error_code(&m) == Some(-32601)
            && let Some(error) = m.get_mut("error").and_then(Value::as_object_mut)
        {
            changed |= error.remove("message").is_some();
        }
        let mut st = self.state();
        let key = id_key(&id);
        if let Some(i) = st.batches.iter().position(|b| b.waiting.contains(&key)) {
            let batch = &mut st.batches[i];
            batch.waiting.remove(&key);
            batch.answers.push(m);
            if batch.waiting.is_empty() {
                let done = st.batches.remove(i);
                return Action::Replace(Value::Array(done.answers));
            }
            return Action::Drop;
        }
        if changed {
            Action::Replace(m)
        } else {
            Action::Keep
        }
    }

    /// Rewrites the answer to a tracked request; returns whether it changed.
    fn answer(&self, pending: &Pending, m: &mut Value) -> bool {
        match pending {
            Pending::Ping => {
                if self.is(Mutation::PingResultNull) && m.get("result").is_some() {
                    m["result"] = Value::Null;
                    return true;
                }
                false
            }
            Pending::Initialize { proposal } => {
                let Some(result) = m.get_mut("result").and_then(Value::as_object_mut) else {
                    return false;
                };
                let answered = result
                    .get("protocolVersion")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                let echo = match (self.mutation, proposal.as_deref()) {
                    (Some(Mutation::EchoUnsupportedVersion), Some(p)) => {
                        answered.as_deref() != Some(p)
                    }
                    (Some(Mutation::EchoNewerVersion), Some(p)) => p == "2025-11-25",
                    _ => false,
                };
                let client_sees = if echo { proposal.clone() } else { answered };
                if echo {
                    result.insert("protocolVersion".into(), json!(proposal));
                }
                self.state().negotiated = client_sees;
                echo
            }
            Pending::ToolsCall => self.tool_answer(m),
            Pending::ResourcesRead { uri } => self.resource_answer(uri, m),
        }
    }
}
