//! Inbound frame bounds (T6): an over-long line is discarded as it streams in, answered
//! `-32600` with `id: null`, and the connection goes on.

use serde_json::{Value, json};

use crate::support::{Adapter, Session, vm_rss_kib};

#[test]
fn a_line_over_the_bound_is_invalid_and_the_next_line_is_served() {
    let mut s = Adapter::new().args(["--max-frame-bytes", "1024"]).spawn();
    s.init();
    let mut line = br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":""#.to_vec();
    line.resize(5000, b'x');
    line.extend_from_slice(b"\"}}\n");
    s.send_raw(&line);
    let v = s.recv_expect();
    assert_eq!(v["error"]["code"], -32600, "{v}");
    assert_eq!(
        v["id"],
        Value::Null,
        "the id of a discarded line is never read: {v}"
    );
    assert!(s.call("ping", None).get("result").is_some());
}

#[test]
fn a_line_exactly_at_the_bound_is_served() {
    let bound = 2048;
    let mut s = Adapter::new()
        .args(["--max-frame-bytes", &bound.to_string()])
        .spawn();
    s.init();
    let head = r#"{"jsonrpc":"2.0","id":"edge","method":"ping","params":{"pad":""#;
    let tail = r#""}}"#;
    let pad = "y".repeat(bound - head.len() - tail.len());
    let line = format!("{head}{pad}{tail}");
    assert_eq!(line.len(), bound);
    s.send_raw(format!("{line}\n").as_bytes());
    let v = s.recv_expect();
    assert_eq!(v["id"], "edge", "{v}");
    assert_eq!(v["result"], json!({}));
    // One byte more is over.
    s.send_raw(format!("{line} \n").as_bytes());
    assert_eq!(s.recv_expect()["error"]["code"], -32600);
}

#[test]
fn a_10_mib_line_without_newline_does_not_grow_memory_by_the_line() {
    // T6: "discarded up to its newline without buffering it whole". The decoder may hold up to
    // one bound of prefix (it cannot know earlier that the line will be too long), so memory may
    // grow by about the bound, plus allocator slack, never by the line.
    const BOUND: usize = 1024 * 1024;
    const LINE: usize = 10 * 1024 * 1024;
    const SLACK_KIB: u64 = 2 * 1024;
    let mut s = Adapter::new()
        .args(["--max-frame-bytes", &BOUND.to_string()])
        .spawn();
    s.init();
    assert!(s.call("tools/list", None).get("result").is_some());
    let pid = s.pid();
    let base = vm_rss_kib(pid).expect("VmRSS");
    let chunk = vec![b'x'; 64 * 1024];
    s.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"pad\":\"");
    let mut peak = base;
    let mut sent = 0;
    while sent < LINE {
        s.send_raw(&chunk);
        sent += chunk.len();
        if let Some(rss) = vm_rss_kib(pid) {
            peak = peak.max(rss);
        }
    }
    // Still no newline: nothing may have been answered yet, and memory is flat.
    let growth = peak.saturating_sub(base);
    eprintln!("VmRSS base {base} KiB, peak {peak} KiB over {LINE} bytes");
    assert!(
        growth < (BOUND as u64 / 1024) + SLACK_KIB,
        "VmRSS grew by {growth} KiB while {LINE} bytes of one line arrived (bound {BOUND})"
    );
    s.send_raw(b"\"}}\n");
    let v = s.recv_expect();
    assert_eq!(v["error"]["code"], -32600, "{v}");
    assert_eq!(v["id"], Value::Null);
    let r = s.call("ping", None);
    assert_eq!(r["result"], json!({}), "{r}");
}

#[test]
fn an_oversized_line_cut_by_eof_is_answered_then_exit_zero() {
    let mut s = Adapter::new().args(["--max-frame-bytes", "1024"]).spawn();
    s.init();
    s.send_raw(&vec![b'z'; 4096]);
    s.close_stdin();
    let v = s.recv_expect();
    assert_eq!(v["error"]["code"], -32600, "{v}");
    let code = s
        .wait_exit(crate::support::TIMEOUT)
        .and_then(|st| st.code());
    assert_eq!(code, Some(0));
}

#[test]
fn the_default_bound_accepts_a_large_valid_request() {
    // 3 MiB of params is within the default 4 MiB bound.
    let mut s = Session::start();
    s.init();
    let pad = "p".repeat(3 * 1024 * 1024);
    let r = s.call("ping", Some(json!({ "pad": pad })));
    assert_eq!(r["result"], json!({}));
}
