//! The answers to tracked `tools/call` and `resources/read` requests: the mutations that alter a
//! tool result (TOOL-4, RUN-11, OUT-1) or a work snapshot and resource errors (META-WORK-*).

use serde_json::{Value, json};

use crate::mutation::Mutation;
use crate::proxy::{Proxy, WORK_URI, edit_snapshot, error_code, mirror_view, set_text};

impl Proxy {
    pub(crate) fn tool_answer(&self, m: &mut Value) -> bool {
        if let Some(result) = m.get_mut("result").and_then(Value::as_object_mut) {
            if self.is(Mutation::NoStructuredContent) {
                return result.remove("structuredContent").is_some();
            }
            if self.is(Mutation::MissingIsError) {
                return result.remove("isError").is_some();
            }
            if let Some(Value::Bool(b)) = result.get("isError").cloned() {
                if self.is(Mutation::IsErrorString) {
                    result.insert("isError".into(), json!(b.to_string()));
                    return true;
                }
                if self.is(Mutation::IsErrorNumber) {
                    result.insert("isError".into(), json!(u8::from(b)));
                    return true;
                }
            }
        }
        if self.is(Mutation::IserrorForProtocolError)
            && error_code(m) == Some(-32602)
            && let Some(obj) = m.as_object_mut()
        {
            let message = obj
                .remove("error")
                .and_then(|e| e.get("message").cloned())
                .unwrap_or_else(|| json!("unknown tool"));
            let text = message.as_str().unwrap_or("unknown tool").to_owned();
            obj.insert(
                "result".into(),
                json!({"content": [{"type": "text", "text": text}], "isError": true}),
            );
            return true;
        }
        let Some(result) = m.get_mut("result") else {
            return false;
        };
        if self.is(Mutation::TextMirrorMismatch) {
            let inner = result
                .get("structuredContent")
                .and_then(|s| s.get("result"))
                .cloned();
            if let Some(inner) = inner {
                set_text(result, &inner.to_string());
                return true;
            }
        }
        if self.is(Mutation::TextDropsFinalScalar) {
            let mut text = mirror_view(result);
            let fin = text
                .get_mut("result")
                .and_then(|r| r.get_mut("final"))
                .and_then(Value::as_object_mut);
            if let Some(fin) = fin
                && let Some(first) = fin.keys().next().cloned()
            {
                fin.remove(&first);
                set_text(result, &text.to_string());
                return true;
            }
        }
        if self.is(Mutation::NativeErrorDropped)
            || self.is(Mutation::ListWithoutAcquiredBy)
            || self.is(Mutation::StderrTailDropped)
        {
            let mut edited = false;
            if let Some(inner) = result
                .get_mut("structuredContent")
                .and_then(|s| s.get_mut("result"))
            {
                if self.is(Mutation::NativeErrorDropped)
                    && inner.get("native_error").is_some_and(|e| !e.is_null())
                {
                    inner["native_error"] = Value::Null;
                    edited = true;
                }
                if self.is(Mutation::StderrTailDropped)
                    && let Some(obj) = inner.as_object_mut()
                {
                    edited |= obj.remove("stderr_tail").is_some();
                }
                if self.is(Mutation::ListWithoutAcquiredBy)
                    && let Some(runs) = inner.get_mut("runs").and_then(Value::as_array_mut)
                {
                    for run in runs.iter_mut().filter_map(Value::as_object_mut) {
                        edited |= run.remove("acquired_by").is_some();
                    }
                }
            }
            if edited {
                let mirror = mirror_view(result).to_string();
                set_text(result, &mirror);
            }
            return edited;
        }
        if self.is(Mutation::SucceededWithIsError) {
            let inner = result
                .get_mut("structuredContent")
                .and_then(|s| s.get_mut("result"));
            if let Some(inner) = inner
                && inner.get("state") == Some(&json!("succeeded"))
            {
                inner["is_error"] = json!(true);
                // TOOL-4 stays true: the text mirrors the altered structuredContent.
                let mirror = mirror_view(result).to_string();
                set_text(result, &mirror);
                return true;
            }
        }
        false
    }

    pub(crate) fn resource_answer(&self, uri: &str, m: &mut Value) -> bool {
        if uri != WORK_URI {
            if self.is(Mutation::UnknownResourceEmpty)
                && let Some(obj) = m.as_object_mut()
                && obj.remove("error").is_some()
            {
                obj.insert("result".into(), json!({"contents": []}));
                return true;
            }
            if self.is(Mutation::UnknownResourceWrongCode)
                && let Some(error) = m.get_mut("error").and_then(Value::as_object_mut)
            {
                error.insert("code".into(), json!(-32603));
                return true;
            }
            return false;
        }
        let refused = [
            (Mutation::WorkResourceUnreadable, -32603, "Internal error"),
            (Mutation::WorkResourceNotFound, -32002, "Resource not found"),
        ];
        if let Some((_, code, message)) = refused.iter().find(|(mu, ..)| self.is(*mu))
            && let Some(obj) = m.as_object_mut()
        {
            obj.remove("result");
            obj.insert(
                "error".into(),
                json!({"code": code, "message": message, "data": {"uri": uri}}),
            );
            return true;
        }
        if error_code(m) == Some(-32000) {
            let last = m
                .get("error")
                .and_then(|e| e.get("data"))
                .and_then(|d| d.get("last_revision"))
                .and_then(Value::as_u64);
            if last.is_some() {
                self.state().refused_revision = last;
            }
            return false;
        }
        let Some(result) = m.get_mut("result") else {
            return false;
        };
        if self.is(Mutation::SnapshotRevisionRegress) {
            let refused = self.state().refused_revision.take();
            if let Some(last) = refused {
                return edit_snapshot(result, |snap| {
                    snap["revision"] = json!(last.saturating_sub(1));
                });
            }
        }
        if self.is(Mutation::SnapshotEntryWithoutKind) {
            return edit_snapshot(result, |snap| {
                if let Some(work) = snap.get_mut("work").and_then(Value::as_array_mut) {
                    for entry in work.iter_mut().filter_map(Value::as_object_mut) {
                        entry.remove("kind");
                    }
                }
            });
        }
        if self.is(Mutation::AcquiredByRebind) {
            let latest = self.state().last_invocation.clone();
            if let Some(latest) = latest {
                return edit_snapshot(result, |snap| {
                    if let Some(work) = snap.get_mut("work").and_then(Value::as_array_mut) {
                        for entry in work.iter_mut().filter(|e| e.get("acquired_by").is_some()) {
                            entry["acquired_by"] = json!(latest);
                        }
                    }
                });
            }
        }
        false
    }
}
