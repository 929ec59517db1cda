//! The request metadata headers of MCP 2026-07-28's Streamable HTTP (basic/transports/
//! streamable-http, "Request Metadata"): "Every POST request to the MCP endpoint MUST include an
//! `MCP-Protocol-Version` header", whose value "MUST match the
//! `io.modelcontextprotocol/protocolVersion` field carried in the request body's `_meta`", and
//! the standard request headers `Mcp-Method` (all requests) and `Mcp-Name` (`params.name` of
//! `tools/call` and `prompts/get`, `params.uri` of `resources/read`), "REQUIRED for
//! compliance". A server routes a POST on them before it reads the body (the Python SDK 2.3.0
//! sends a POST without `MCP-Protocol-Version` to its handshake transport), so a client of the
//! stateless era that leaves them out is not speaking that era over HTTP.
//!
//! The headers mirror the body the case wrote, so a case that sends a wrong envelope gets the
//! server's answer to that envelope, not to a header the runner made up.

use serde_json::Value;

/// The `_meta` key of the per-request protocol version.
const PROTOCOL_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";

/// The headers mirroring `sent` for a POST on a stateless-era link, and the revision they name:
/// the body's own `_meta` protocol version, else `era` (the revision of the link's first
/// enveloped message). `None` when neither names one (not a stateless-era message).
pub(super) fn mirror(
    sent: Option<&Value>,
    era: Option<&str>,
) -> Option<(String, Vec<(&'static str, String)>)> {
    let params = sent.and_then(|m| m.get("params"));
    let own = params
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get(PROTOCOL_VERSION_KEY))
        .and_then(Value::as_str)
        .filter(|v| plain(v));
    let version = own.or(era)?.to_owned();
    let mut headers = vec![("mcp-protocol-version", version.clone())];
    let method = sent.and_then(|m| m.get("method")).and_then(Value::as_str);
    if let Some(method) = method.filter(|m| plain(m)) {
        headers.push(("mcp-method", method.to_owned()));
    }
    let field = match method {
        Some("tools/call" | "prompts/get") => "name",
        Some("resources/read") => "uri",
        _ => "",
    };
    if let Some(name) = params.and_then(|p| p.get(field)).and_then(Value::as_str) {
        headers.push(("mcp-name", encoded(name)));
    }
    Some((version, headers))
}

/// Whether `v` is a plain header value: visible ASCII and inner spaces, no edge whitespace.
fn plain(v: &str) -> bool {
    !v.is_empty() && v.trim() == v && v.bytes().all(|b| b == b' ' || b.is_ascii_graphic())
}

/// `Mcp-Name`'s value: as is when plain, else "Base64 encoding of the UTF-8 representation"
/// as `=?base64?…?=` (also for a plain value that matches that sentinel pattern).
fn encoded(v: &str) -> String {
    let sentinel = v.starts_with("=?base64?") && v.ends_with("?=");
    if plain(v) && !sentinel {
        v.to_owned()
    } else {
        format!("=?base64?{}?=", base64(v.as_bytes()))
    }
}

/// Standard base64 (RFC 4648 §4, padded).
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                let sextet = (n >> (18 - 6 * i)) & 0x3f;
                out.push(char::from(ALPHABET[sextet as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn env(method: &str, params: Value) -> Value {
        let mut p = params;
        p["_meta"] = json!({PROTOCOL_VERSION_KEY: "2026-07-28"});
        json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": p})
    }

    #[test]
    fn an_enveloped_request_carries_its_version_method_and_name() {
        let call = env("tools/call", json!({"name": "add", "arguments": {}}));
        let (v, h) = mirror(Some(&call), None).expect("an enveloped request");
        assert_eq!(v, "2026-07-28");
        assert_eq!(
            h,
            [
                ("mcp-protocol-version", "2026-07-28".to_owned()),
                ("mcp-method", "tools/call".to_owned()),
                ("mcp-name", "add".to_owned()),
            ]
        );
        let read = env("resources/read", json!({"uri": "probe://greeting"}));
        let (_, h) = mirror(Some(&read), None).expect("an enveloped request");
        assert!(h.contains(&("mcp-name", "probe://greeting".to_owned())));
        let list = env("tools/list", json!({}));
        let (_, h) = mirror(Some(&list), None).expect("an enveloped request");
        assert!(h.iter().all(|(n, _)| *n != "mcp-name"), "{h:?}");
    }

    #[test]
    fn a_bare_request_takes_the_links_era_or_none() {
        let bare = json!({"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {}});
        assert_eq!(mirror(Some(&bare), None), None);
        let (v, h) = mirror(Some(&bare), Some("2026-07-28")).expect("the link's era");
        assert_eq!(v, "2026-07-28");
        assert!(h.contains(&("mcp-method", "initialize".to_owned())));
        // The body's own envelope wins, so the header matches the body.
        let other = {
            let mut m = env("tools/list", json!({}));
            m["params"]["_meta"][PROTOCOL_VERSION_KEY] = json!("2099-01-01");
            m
        };
        let (v, _) = mirror(Some(&other), Some("2026-07-28")).expect("enveloped");
        assert_eq!(v, "2099-01-01");
    }

    #[test]
    fn a_name_that_is_no_plain_header_value_is_base64_encoded() {
        // The specification's own examples.
        assert_eq!(encoded("us-west1"), "us-west1");
        assert_eq!(encoded("Hello, 世界"), "=?base64?SGVsbG8sIOS4lueVjA==?=");
        assert_eq!(encoded(" padded "), "=?base64?IHBhZGRlZCA=?=");
        assert_eq!(encoded("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
        assert_eq!(
            encoded("=?base64?literal?="),
            "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="
        );
    }
}
