//! Unit tests of [`PathScan`](super::PathScan): nested paths, key order, escapes, piecewise
//! feeding at every byte boundary, bounded state (BND-1, BND-3).

use super::*;

const ACP: &[&[&str]] = &[
    &["method"],
    &["params", "update", "sessionUpdate"],
    &["params", "update", "content", "type"],
];

fn in_pieces(paths: &'static [&'static [&'static str]], line: &[u8], split: &[usize]) -> Scanned {
    let mut s = PathScan::new(paths);
    let mut at = 0;
    for &cut in split {
        s.feed(&line[at..cut]);
        at = cut;
    }
    s.feed(&line[at..]);
    s.finish()
}

fn strings(s: &Scanned) -> Vec<Option<&str>> {
    s.found.iter().map(|f| f.string.as_deref()).collect()
}

#[test]
fn a_nested_path_is_found_whatever_the_key_order() {
    for line in [
        r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}"#,
        r#"{"params":{"update":{"content":{"text":"hi","type":"text"},"sessionUpdate":"agent_message_chunk"},"sessionId":"s"},"method":"session/update","jsonrpc":"2.0"}"#,
    ] {
        let s = PathScan::line(ACP, line.as_bytes());
        assert!(s.closed && s.is_object, "{line}");
        assert_eq!(
            strings(&s),
            [
                Some("session/update"),
                Some("agent_message_chunk"),
                Some("text")
            ],
            "{line}"
        );
    }
}

#[test]
fn the_same_key_off_the_path_or_inside_strings_is_ignored() {
    let line = r#"{"update":{"sessionUpdate":"agent_message_chunk"},"params":{"x":{"update":{"sessionUpdate":"agent_message_chunk"}},"note":"\"update\":{\"sessionUpdate\":\"agent_message_chunk\"}","update":[{"sessionUpdate":"agent_message_chunk"}]},"method":{"method":"session/update"}}"#;
    let s = PathScan::line(ACP, line.as_bytes());
    assert!(s.closed);
    assert_eq!(strings(&s), [None, None, None]);
    assert!(
        s.found[0].seen && s.found[0].non_null,
        "method is an object"
    );
    assert!(!s.found[1].seen);
}

#[test]
fn escapes_in_keys_values_and_skipped_strings_are_handled() {
    let line = r#"{"params":{"update":{"content":{"text":"a \"}\" \\\" { [ \\","type":"te\u0078t"},"session\u0055pdate":"agent_message_chunk"}},"method":"session\/update"}"#;
    let parsed: serde_json::Value = serde_json::from_str(line).expect("valid JSON");
    assert_eq!(
        parsed["params"]["update"]["sessionUpdate"],
        "agent_message_chunk"
    );
    let s = PathScan::line(ACP, line.as_bytes());
    assert!(s.closed);
    assert_eq!(
        strings(&s),
        [
            Some("session/update"),
            Some("agent_message_chunk"),
            Some("text")
        ]
    );
}

#[test]
fn splitting_the_line_at_every_byte_boundary_gives_the_same_answer() {
    let line = br#"{"params":{"sessionId":"s","update":{"content":{"type":"text","text":"x \"y\" \\ {[}] \\\"z"},"n":[1,{"a":"}"}],"sessionUpdate":"agent_message_chunk"}},"method":"session/update","t":true}"#;
    let whole = PathScan::line(ACP, line);
    assert_eq!(
        strings(&whole),
        [
            Some("session/update"),
            Some("agent_message_chunk"),
            Some("text")
        ]
    );
    for a in 0..=line.len() {
        assert_eq!(in_pieces(ACP, line, &[a]), whole, "split at {a}");
        for b in a..=line.len() {
            assert_eq!(in_pieces(ACP, line, &[a, b]), whole, "split at {a}, {b}");
        }
    }
    let bytewise: Vec<usize> = (1..line.len()).collect();
    assert_eq!(in_pieces(ACP, line, &bytewise), whole);
}

#[test]
fn the_last_value_wins_like_serde_json_and_other_kinds_clear_it() {
    const P: &[&[&str]] = &[&["a", "b"]];
    let s = PathScan::line(P, br#"{"a":{"b":"x"},"a":{"b":"y"}}"#);
    assert_eq!(s.found[0].string.as_deref(), Some("y"));
    let s = PathScan::line(P, br#"{"a":{"b":"x","b":7}}"#);
    assert_eq!(s.found[0].string, None);
    assert!(s.found[0].seen && s.found[0].non_null);
    let s = PathScan::line(P, br#"{"a":{"b":null}}"#);
    assert!(s.found[0].seen && !s.found[0].non_null);
    let s = PathScan::line(P, br#"{"a":[{"b":"x"}]}"#);
    assert!(!s.found[0].seen, "arrays are not followed");
}

#[test]
fn a_cut_line_reports_what_it_saw_and_is_not_closed() {
    let s = PathScan::line(
        ACP,
        br#"{"method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"text":"abc"#,
    );
    assert!(!s.closed);
    assert_eq!(
        strings(&s),
        [Some("session/update"), Some("agent_message_chunk"), None]
    );
    assert!(!PathScan::line(ACP, b"[1]").is_object);
    assert!(!PathScan::line(ACP, b"[1]").closed);
}

#[test]
fn a_multi_mebibyte_line_keeps_the_state_small() {
    // BND-1: a 5 MiB text fed in 64 KiB chunks, the kind written after it.
    let mut s = PathScan::new(ACP);
    s.feed(br#"{"method":"session/update","params":{"update":{"content":{"type":"text","text":""#);
    let filler = vec![b'x'; 64 * 1024];
    for _ in 0..80 {
        s.feed(&filler);
        assert!(s.held_capacity() <= KEY_CAP + VALUE_CAP * 2);
    }
    s.feed(br#""},"sessionUpdate":"agent_message_chunk"}}}"#);
    let out = s.finish();
    assert!(out.closed);
    assert_eq!(out.found[1].string.as_deref(), Some("agent_message_chunk"));
}

#[test]
fn overlong_values_and_keys_are_reported_absent() {
    const P: &[&[&str]] = &[&["type"]];
    let long = "r".repeat(VALUE_CAP + 1);
    let s = PathScan::line(P, format!(r#"{{"type":"{long}"}}"#).as_bytes());
    assert!(s.found[0].seen && s.found[0].string.is_none());
    let key = "k".repeat(KEY_CAP + 1);
    let s = PathScan::line(P, format!(r#"{{"{key}":"x","type":"t"}}"#).as_bytes());
    assert_eq!(s.found[0].string.as_deref(), Some("t"));
}

#[test]
fn find_helpers_agree_with_a_naive_search() {
    let samples: [&[u8]; 5] = [
        b"abcdefghijklmnop\"",
        b"abcdefgh;;;;;;;;{",
        b"\x02\x02\x02\x02\x02\x02\x02\x02]",
        b"[",
        b"no structure here at all........",
    ];
    for s in samples {
        let naive = s
            .iter()
            .position(|c| matches!(c, b'"' | b'{' | b'}' | b'[' | b']'));
        assert_eq!(find_structural(s), naive, "{s:?}");
        let naive2 = s.iter().position(|c| matches!(c, b'"' | b'\\'));
        assert_eq!(find2(s, b'"', b'\\'), naive2);
    }
    // Every position and length around the 8- and 16-byte blocks.
    for len in 0..40 {
        for at in 0..=len {
            let mut v = vec![b'x'; len];
            if at < len {
                v[at] = b'\\';
            }
            let want = (at < len).then_some(at);
            assert_eq!(find2(&v, b'"', b'\\'), want, "len {len} at {at}");
        }
    }
}
