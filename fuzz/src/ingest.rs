//! Target `ingest`: the native stream's bounded top-level scan and the ingest of a run's
//! stdout/stderr (adapter `engine::scan`, `engine::ingest`), used read-only.

use std::sync::Arc;

use cmk_engine::ingest::Ingest;
use cmk_provider_claude::scan::TopScan;
use cmk_provider_claude::stream::StreamJson;

/// The first byte picks the read size (1..=256 bytes). Invariant: the scan of a line fed in
/// pieces is the scan of the whole line (it is a streaming state machine, BND-3).
pub fn ingest(data: &[u8]) {
    let Some((&ctl, stream)) = data.split_first() else {
        return;
    };
    let read = 1 + usize::from(ctl);
    for line in stream.split(|&b| b == b'\n') {
        let whole = TopScan::line(line);
        let mut pieces = TopScan::new();
        for piece in line.chunks(read) {
            pieces.feed(piece);
        }
        assert_eq!(
            pieces.finish(),
            whole,
            "the scan depends on how the line was cut"
        );
    }
    let mut ingest = Ingest::new(1, None, Arc::new(StreamJson));
    for piece in stream.chunks(read) {
        ingest.stdout(piece);
        ingest.stderr(piece);
    }
    ingest.stdout_eof();
    let _ = ingest.stderr_tail();
    let _ = ingest.stderr_last_line();
    let _ = ingest.stream_native_error();
}
