//! Fuzz entry points: one function per target, each taking the fuzzer's bytes. The libFuzzer
//! binaries in `fuzz_targets/` call them (built by `fuzz/run` with sanitizer-coverage flags on
//! stable Rust, see `docs/fuzzing.md`), and `tests/it` replays every file of `corpus/<target>/`
//! and `artifacts/<target>/` through them on every `cargo test`.
//!
//! A function returns normally for any input; a panic (an assertion of an invariant below, an
//! index out of bounds, an overflow in a debug build) or a stack overflow is a finding.

mod dispatch;
mod ingest;
mod scenario;
mod wire;

pub use dispatch::dispatch;
pub use ingest::ingest;
pub use scenario::scenario;
pub use wire::wire;

use std::sync::Arc;
use std::sync::OnceLock;

use mcp_wire::{DecodeEvent, FrameDecoder};
use serde_json::Value;

/// A target's entry function.
pub type Entry = fn(&[u8]);

/// Every target, by the name of its corpus folder.
pub const TARGETS: &[(&str, Entry)] = &[
    ("wire", wire),
    ("dispatch", dispatch),
    ("ingest", ingest),
    ("server_lines", server_lines),
    ("acp", acp),
    ("scenario", scenario),
];

/// The conformance runner's reading of server lines: its bounded line decoder, then the checks
/// it applies to every stdout message ([`mcp_conformance::core::client::message_problem`] and the
/// helpers that answer server requests).
pub fn server_lines(data: &[u8]) {
    let mut decoder = FrameDecoder::new(64 * 1024);
    let mut lines = Vec::new();
    decoder.decode(data, &mut |ev| {
        if let DecodeEvent::Line(l) = ev {
            lines.push(l.to_vec());
        }
    });
    decoder.finish(&mut |ev| {
        if let DecodeEvent::Line(l) = ev {
            lines.push(l.to_vec());
        }
    });
    for line in lines {
        let Ok(msg) = serde_json::from_slice::<Value>(&line) else {
            continue;
        };
        let _ = mcp_conformance::core::client::message_problem(&msg);
        let _ = mcp_conformance::core::client::error_code(&msg);
        let _ = mcp_conformance::core::client::is_response_to(&msg, &Value::from(1));
        let _ = mcp_conformance::core::client::reply_to_server_request(&msg);
    }
}

/// One shared current-thread runtime for the async targets.
fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        #[expect(
            clippy::expect_used,
            reason = "a fuzz harness without a runtime cannot run"
        )]
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a tokio runtime")
    })
}

/// ACP decoding (acp-client): the bytes are the agent's stdout for one turn, read through the
/// public [`acp_client::run_turn`] (framing, classification of every agent message, the
/// handshake, session updates, permission requests); the agent's stdin and the events go nowhere.
pub fn acp(data: &[u8]) {
    let mut cfg = acp_client::TurnConfig::new("/", "hi");
    cfg.step_timeout = std::time::Duration::from_secs(2);
    cfg.cancel_grace = std::time::Duration::from_millis(10);
    cfg.max_line = 64 * 1024;
    let policy = Arc::new(acp_client::GenericPolicy);
    runtime().block_on(async {
        let (_keep, cancel) = tokio::sync::watch::channel(false);
        let _ = acp_client::run_turn(
            data,
            tokio::io::sink(),
            tokio::io::sink(),
            &cfg,
            policy.as_ref(),
            cancel,
        )
        .await;
    });
}
