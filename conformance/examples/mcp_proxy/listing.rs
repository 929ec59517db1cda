//! Listings as the proxy re-exports them: the gateway's stripping of connection-local
//! declarations and its renaming of tools (META-CONN-1), and the mutations of listed tools and
//! resources (META-RISK-*, META-WORK-*, META-CONT-*, TOOL-2).

use serde_json::{Value, json};

use crate::mutation::Mutation;
use crate::proxy::{CONT_KEY, Proxy, RISK_KEY, WORK_KEY, WORK_URI, meta, tool_is};

impl Proxy {
    /// Rewrites listings by their shape (whatever request they answer, so a request the proxy
    /// did not track still gets the gateway's stripping): `tools` and `resources` arrays.
    pub(crate) fn listing(&self, result: &mut Value) -> bool {
        let mut changed = false;
        if let Some(tools) = result.get_mut("tools").and_then(Value::as_array_mut) {
            for tool in tools.iter_mut() {
                changed |= self.tool(tool);
            }
        }
        if let Some(resources) = result.get_mut("resources").and_then(Value::as_array_mut) {
            let hide = self.gateway || self.is(Mutation::WorkResourceUnlisted);
            let before = resources.len();
            if hide {
                resources.retain(|r| r.get("uri").and_then(Value::as_str) != Some(WORK_URI));
            }
            changed |= resources.len() != before;
        }
        changed
    }

    /// Rewrites one listed tool.
    fn tool(&self, tool: &mut Value) -> bool {
        let Some(name) = tool.get("name").and_then(Value::as_str).map(str::to_owned) else {
            return false;
        };
        let Some(obj) = tool.as_object_mut() else {
            return false;
        };
        let mut changed = false;
        if self.strip_output_schemas {
            changed |= obj.remove("outputSchema").is_some();
        }
        if self.gateway {
            let keep_cont = self.is(Mutation::GatewayKeepsCancelContinuation)
                && tool_is(&name, "claude.run.cancel");
            if let Some(meta) = meta(obj) {
                changed |= meta.remove(WORK_KEY).is_some();
                if !keep_cont {
                    changed |= meta.remove(CONT_KEY).is_some();
                }
            }
            if let Some(prefix) = &self.prefix {
                obj.insert("name".into(), json!(format!("{prefix}{name}")));
                changed = true;
            } else if self.hex_names {
                obj.insert("name".into(), json!(hex_name(&name)));
                changed = true;
            }
        }
        let Some(mutation) = self.mutation else {
            return changed;
        };
        match mutation {
            Mutation::WrongRisk if tool_is(&name, "claude.run.cancel") => {
                if let Some(m) = meta(obj) {
                    m.insert(RISK_KEY.into(), json!("read-only"));
                    changed = true;
                }
            }
            Mutation::MissingRisk if tool_is(&name, "claude.run.list") => {
                if let Some(m) = meta(obj) {
                    changed |= m.remove(RISK_KEY).is_some();
                }
            }
            Mutation::ReadonlyHintOnFullShell if tool_is(&name, "claude.run") => {
                let annotations = obj.entry("annotations").or_insert_with(|| json!({}));
                if let Some(a) = annotations.as_object_mut() {
                    a.insert("readOnlyHint".into(), json!(true));
                    changed = true;
                }
            }
            Mutation::MissingWorkUri if tool_is(&name, "claude.run.events") => {
                if let Some(w) = meta(obj)
                    .and_then(|m| m.get_mut(WORK_KEY))
                    .and_then(Value::as_object_mut)
                {
                    changed |= w.remove("uri").is_some();
                }
            }
            Mutation::ContinuationBadPointer if tool_is(&name, "claude.run.cancel") => {
                if let Some(c) = meta(obj)
                    .and_then(|m| m.get_mut(CONT_KEY))
                    .and_then(Value::as_object_mut)
                {
                    c.insert("id_pointer".into(), json!("/id"));
                    changed = true;
                }
            }
            Mutation::SchemaNotClosed if tool_is(&name, "claude.run.list") => {
                if let Some(schema) = obj.get_mut("inputSchema").and_then(Value::as_object_mut) {
                    changed |= schema.remove("additionalProperties").is_some();
                }
            }
            Mutation::ContinuationOnList if tool_is(&name, "claude.run.list") => {
                if let Some(m) = meta(obj) {
                    m.insert(
                        CONT_KEY.into(),
                        json!({"format_version": 1, "kind": "claude.run", "id_pointer": "/run_id"}),
                    );
                    changed = true;
                }
            }
            _ => {}
        }
        changed
    }
}

/// The opaque name `--hex-names` lists a tool under.
pub(crate) fn hex_name(name: &str) -> String {
    let mut out = String::with_capacity(1 + 2 * name.len());
    out.push('x');
    for b in name.bytes() {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// The upstream name of an opaque name, `None` when it is not one.
pub(crate) fn unhex_name(opaque: &str) -> Option<String> {
    let hex = opaque.strip_prefix('x')?;
    if hex.len() % 2 != 0 {
        return None;
    }
    let bytes = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect::<Option<Vec<u8>>>()?;
    String::from_utf8(bytes).ok()
}
