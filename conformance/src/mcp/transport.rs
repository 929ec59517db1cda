//! Which MCP cases apply to which transport. Every case runs over stdio (a server the runner
//! starts) and over Streamable HTTP (`--url`: a session of the endpoint, through the one
//! [`crate::core::client::Client`]), except the ones listed in [`STDIO_ONLY`]: their rule is
//! about stdio itself (stdout, stdin EOF, signals to the process, the framing of lines, a
//! connection's era that outlives one request). Over
//! HTTP they are reported `skip` with [`crate::core::client::NOT_OVER_HTTP`] and why, so the
//! report and the coverage still name them; the transport's own cases (HTTP-1..10,
//! [`crate::mcp::http::cases`]) run over HTTP only.

use crate::core::model::Check;

/// The cases whose rule is stdio's own, each with why (contract ids).
pub const STDIO_ONLY: &[(&str, &str)] = &[
    (
        "lifecycle/stdout/protocol-only",
        "T1 is about stdout lines; over HTTP each body's messages are graded under HTTP-2",
    ),
    (
        "lifecycle/shutdown/stdin-eof",
        "T8: stdin EOF; an HTTP session ends by DELETE (HTTP-5)",
    ),
    (
        "lifecycle/shutdown/sigterm",
        "T8: a signal to the server's process, which the runner did not start",
    ),
    (
        "jsonrpc/oversized/answered",
        "T6 bounds a line of stdio's framing",
    ),
    (
        "jsonrpc/oversized/memory-bounded",
        "T6 bounds a line of stdio's framing, measured on the server's process",
    ),
    (
        "liveness/after-oversized",
        "T4 after a 64 MiB line of stdio's framing",
    ),
    (
        "lifecycle/2026-07-28/initialize-refused",
        "MCP 2026-07-28 streamable-http: every POST names its own revision in its \
         MCP-Protocol-Version header, so no connection is modern for initialize to be refused \
         on (a POST without the header opens a handshake session; initialize with it is a \
         method 2026-07-28 does not define: 404 with -32601)",
    ),
    (
        "runs/eof/cancels-runs",
        "T8: stdin EOF of the server's process",
    ),
    (
        "runs/sigterm/cancels-runs",
        "T8: a signal to the server's process",
    ),
];

/// Why case `id` (an instance `ID@DATE` or `ID@FAMILY` counts as its case) does not apply over
/// Streamable HTTP, when it does not.
#[must_use]
pub fn stdio_only(id: &str) -> Option<&'static str> {
    let base = id.split('@').next().unwrap_or(id);
    STDIO_ONLY
        .iter()
        .find(|(case, _)| *case == base)
        .map(|(_, why)| *why)
}

/// The skip a stdio-only case gets over Streamable HTTP.
#[must_use]
pub fn skip_over_http(id: &str) -> Option<Check> {
    stdio_only(id).map(|why| Check::skip(format!("{}: {why}", crate::core::client::NOT_OVER_HTTP)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_stdio_only_case_is_in_the_catalogue() {
        let all = crate::mcp::catalogue::all();
        for (id, _) in STDIO_ONLY {
            assert!(all.iter().any(|c| c.id == *id), "{id}");
        }
        assert!(stdio_only("runs/eof/cancels-runs@cursor").is_some());
        assert!(stdio_only("tools/list/shape").is_none());
    }
}
