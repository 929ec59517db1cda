//! Target `wire`: the bounded line codec and JSON-RPC classification (T1, T4, T5, T6, C-T6a).

use mcp_wire::cost::{self, for_each_element};
use mcp_wire::{DecodeEvent, FrameDecoder, FrameError, Parsed, message, parse_frame};
use serde_json::Value;

/// The first byte picks the frame bound (1..=505 bytes) and the read size (1..=22 bytes); the
/// rest is the stream. Invariants: the decoder never holds more than its bound; every array
/// `parse_frame` validated builds element by element to the same count; the cost scan never
/// under-counts the values serde builds.
pub fn wire(data: &[u8]) {
    let Some((&ctl, stream)) = data.split_first() else {
        return;
    };
    let bound = 1 + usize::from(ctl & 0x3f) * 8;
    let read = 1 + usize::from(ctl >> 6) * 7;
    let mut decoder = FrameDecoder::new(bound);
    let mut lines: Vec<Vec<u8>> = Vec::new();
    let mut sink = |ev: DecodeEvent<'_>| {
        if let DecodeEvent::Line(l) = ev {
            assert!(l.len() <= bound, "a line over the bound was delivered");
            lines.push(l.to_vec());
        }
    };
    for piece in stream.chunks(read) {
        decoder.decode(piece, &mut sink);
        assert!(
            decoder.buffered() <= bound,
            "the decoder held more than its bound"
        );
    }
    decoder.finish(&mut sink);
    for line in &lines {
        frame(line);
    }
    frame(stream);
}

fn frame(bytes: &[u8]) {
    let shape = cost::scan(bytes);
    match parse_frame(bytes, 4 * 1024 * 1024) {
        Ok(Parsed::Single(v)) => {
            let _ = message::classify(v);
        }
        Ok(Parsed::Batch { len }) => {
            let n = for_each_element(bytes, &mut |v| {
                let _ = message::classify(v);
            });
            assert_eq!(n.ok(), Some(len), "a validated batch did not build");
        }
        Err(FrameError::Parse(_) | FrameError::TooCostly(_)) => {}
    }
    if let Ok(v) = serde_json::from_slice::<Value>(bytes) {
        assert!(
            values(&v) <= shape.values,
            "the cost scan counted {} values, serde built {}",
            shape.values,
            values(&v)
        );
    }
    let _ = mcp_wire::parse_inbound(bytes);
}

/// Values of a tree, object keys included (as the scan counts them). Recursion is bounded by
/// serde_json's depth limit.
fn values(v: &Value) -> u64 {
    match v {
        Value::Array(a) => 1 + a.iter().map(values).sum::<u64>(),
        Value::Object(m) => 1 + m.values().map(|c| 1 + values(c)).sum::<u64>(),
        _ => 1,
    }
}
