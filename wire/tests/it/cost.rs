//! C-T6a: a frame within the bound costs at most four times the bound while parsed, whatever its
//! shape; deep nesting is an error, never a stack overflow.

use mcp_wire::cost::{self, VALUE_COST};
use mcp_wire::{FrameError, Parsed, parse_frame};

use crate::alloc::{Meter, exclusive};

/// The adapter's default `--max-frame-bytes`.
const BOUND: usize = 4 * 1024 * 1024;

/// `n` copies of `element`, comma-separated, inside `open`…`close`.
fn repeated(open: &str, element: &str, n: usize, close: &str) -> Vec<u8> {
    let mut f = Vec::with_capacity(open.len() + n * (element.len() + 1) + close.len());
    f.extend_from_slice(open.as_bytes());
    for i in 0..n {
        if i > 0 {
            f.push(b',');
        }
        f.extend_from_slice(element.as_bytes());
    }
    f.extend_from_slice(close.as_bytes());
    f
}

/// A request whose params hold `n` copies of `element` in an array.
fn request_with(element: &str, n: usize) -> Vec<u8> {
    repeated(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"a":["#,
        element,
        n,
        "]}}",
    )
}

/// Peak bytes allocated while `parse_frame` handles `frame` (the frame itself is already live).
fn parse_peak(frame: &[u8], bound: usize) -> (usize, Result<Parsed, FrameError>) {
    let meter = Meter::start();
    let parsed = parse_frame(frame, bound);
    let peak = meter.peak_above_start();
    (peak, parsed)
}

#[test]
fn value_cost_bounds_every_shape_of_tiny_elements() {
    let _one = exclusive();
    // The constant the budget rests on: measured, per value the scan counts, for the shapes
    // that cost most per byte.
    for element in [
        "0",
        "{}",
        "[]",
        "\"\"",
        "{\"a\":0}",
        "[0]",
        "null",
        "{\"\":{}}",
        "[[0,0]]",
        "[{}]",
        "0.5",
        "{\"a\":[]}",
        "{\"a\":0,\"b\":0}",
    ] {
        let frame = request_with(element, 20_000);
        let values = cost::scan(&frame).values;
        let meter = Meter::start();
        let v: serde_json::Value = serde_json::from_slice(&frame).expect("valid JSON");
        let peak = meter.peak_above_start();
        drop(v);
        let per_value = peak as f64 / values as f64;
        assert!(
            per_value <= VALUE_COST as f64,
            "{element}: {per_value:.1} bytes per counted value > VALUE_COST {VALUE_COST}"
        );
    }
}

#[test]
fn a_frame_of_tiny_elements_at_the_bound_stays_within_four_times_the_bound() {
    let _one = exclusive();
    // C-T6a: 4 MiB of `0,` (two million values) is refused before a tree is built.
    let n = (BOUND - 100) / 2;
    let frame = request_with("0", n);
    assert!(frame.len() <= BOUND);
    let (peak, parsed) = parse_peak(&frame, BOUND);
    assert!(
        matches!(parsed, Err(FrameError::TooCostly(_))),
        "{parsed:?}"
    );
    assert_eq!(
        parsed.unwrap_err().error().code,
        mcp_wire::code::INVALID_REQUEST
    );
    assert!(peak <= BOUND, "refusal allocated {peak} bytes");

    // The most tiny elements the budget admits, padded to the bound with one long string: the
    // frame is at the bound and its tree is built.
    let budget = cost::tree_budget(BOUND);
    // The budget covers the values and the strings (at most the frame's bytes).
    let mut admitted = ((budget - BOUND as u64) / VALUE_COST) as usize - 16;
    let frame = loop {
        let mut f = request_with("0", admitted);
        let pad = BOUND - f.len() - r#","p":"""#.len();
        f.truncate(f.len() - 1);
        f.extend_from_slice(br#","p":""#);
        f.extend(std::iter::repeat_n(b'x', pad));
        f.extend_from_slice(b"\"}");
        if cost::check(&f, budget).is_ok() {
            break f;
        }
        admitted -= 16;
    };
    assert_eq!(frame.len(), BOUND);
    let (peak, parsed) = parse_peak(&frame, BOUND);
    assert!(matches!(parsed, Ok(Parsed::Single(_))), "{parsed:?}");
    let total = peak + frame.len();
    assert!(
        total <= 4 * BOUND,
        "frame + tree peaked at {total} bytes, over 4 x {BOUND}"
    );
}

#[test]
fn a_batch_of_tiny_elements_at_the_bound_is_built_one_element_at_a_time() {
    let _one = exclusive();
    // T5 / C-T5: only counted by parse_frame; its elements are built one by one.
    let frame = repeated(
        "[",
        r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
        100_000,
        "]",
    );
    assert!(frame.len() <= BOUND);
    let (peak, parsed) = parse_peak(&frame, BOUND);
    assert_eq!(parsed, Ok(Parsed::Batch { len: 100_000 }));
    assert!(peak < 64 * 1024, "counting allocated {peak} bytes");
    let meter = Meter::start();
    let mut seen = 0;
    let n = cost::for_each_element(&frame, &mut |v| {
        assert!(v.is_object());
        seen += 1;
    })
    .expect("valid");
    let peak = meter.peak_above_start();
    assert_eq!((n, seen), (100_000, 100_000));
    assert!(
        peak < 64 * 1024,
        "one element at a time peaked at {peak} bytes"
    );
}

#[test]
fn a_million_nested_arrays_within_the_bound_are_an_error_not_a_stack_overflow() {
    let _one = exclusive();
    for (open, close) in [(b'[', b']'), (b'{', b'}')] {
        let mut frame = vec![open; 1_000_000];
        frame.extend(vec![close; 1_000_000]);
        assert!(frame.len() <= BOUND);
        let parsed = parse_frame(&frame, BOUND);
        assert!(parsed.is_err(), "{parsed:?}");
    }
    // Nesting deeper than serde_json's recursion limit but cheap enough for the budget: a parse
    // error from the limit (no recursion past it).
    let mut frame = r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":"#
        .as_bytes()
        .to_vec();
    frame.extend(vec![b'['; 1000]);
    frame.extend(vec![b']'; 1000]);
    frame.extend_from_slice(b"}}");
    let parsed = parse_frame(&frame, BOUND);
    assert!(matches!(parsed, Err(FrameError::Parse(_))), "{parsed:?}");
    // A batch whose last element nests past the limit is refused whole, before any element is
    // built (its first element would otherwise run before the failure).
    let mut frame = br#"[{"jsonrpc":"2.0","id":1,"method":"ping"},"#.to_vec();
    frame.extend(vec![b'['; 127]);
    frame.extend(vec![b']'; 128]);
    assert!(matches!(
        parse_frame(&frame, BOUND),
        Err(FrameError::Parse(_))
    ));
    let mut frame = br#"[{"jsonrpc":"2.0","id":1,"method":"ping"},"#.to_vec();
    frame.extend(vec![b'['; 126]);
    frame.extend(vec![b']'; 127]);
    assert_eq!(parse_frame(&frame, BOUND), Ok(Parsed::Batch { len: 2 }));
    assert_eq!(cost::for_each_element(&frame, &mut |_| {}).ok(), Some(2));
    let mut batch = vec![b'['; 500_000];
    batch.extend(vec![b']'; 500_000]);
    assert!(parse_frame(&batch, BOUND).is_err());
}

#[test]
fn ordinary_frames_parse_as_before() {
    let _one = exclusive();
    let p = parse_frame(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, 1024);
    assert!(matches!(p, Ok(Parsed::Single(_))));
    assert_eq!(
        parse_frame(br#" [1,2]"#, 1024),
        Ok(Parsed::Batch { len: 2 })
    );
    let bad = parse_frame(b"{nope", 1024).unwrap_err();
    assert_eq!(bad.error().code, mcp_wire::code::PARSE_ERROR);
    let bad = parse_frame(b"\xff", 1024).unwrap_err();
    assert_eq!(bad.error().code, mcp_wire::code::PARSE_ERROR);
}
