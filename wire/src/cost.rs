//! What a frame may cost while it is parsed (C-T6a): a cheap pre-scan that bounds the JSON tree
//! serde would build, before it is built.
//!
//! A frame within the byte bound can still expand a lot when parsed: every JSON value becomes a
//! `serde_json::Value` (80 bytes with `preserve_order`), every object entry an `IndexMap` bucket
//! and index slot, and growing vectors briefly hold old and new storage. Two bytes of `0,` are
//! well over a hundred bytes of tree. [`scan`] counts, in one pass over the bytes and without
//! allocating, an upper bound on the values a parse would build and the deepest nesting;
//! [`check`] refuses a frame whose largest tree would exceed a budget, so no tree is ever built
//! for it (`-32600`, like an oversized frame, T6).
//!
//! For a top-level array (a batch, T5) the bound that matters is its largest element: the
//! dispatcher builds one element at a time ([`for_each_element`]), so a batch of many small
//! requests costs one small tree at a time, not the sum.
//!
//! The scan does not validate JSON: a frame it lets through is still parsed by serde_json, which
//! rejects invalid JSON (`-32700`) and nesting deeper than its recursion limit (128) without
//! touching the stack further, so deep nesting never overflows it.

use serde::de::{DeserializeSeed, SeqAccess, Visitor};
use serde_json::Value;

use crate::message::{ErrorObject, ParseError};

/// Upper bound on the bytes one parsed value costs while its tree is built, measured on
/// serde_json 1 with `preserve_order` (`wire/tests/it/cost.rs` checks it for the costliest shapes,
/// counting a reallocation as old and new storage at once): the worst seen is an array of
/// one-element arrays (`[[0],[0],…]`, about 206 bytes per counted value: 80-byte `Value`s in
/// vectors that grow by doubling). Keys count as values in [`Shape::values`].
pub const VALUE_COST: u64 = 240;

/// Smallest tree budget whatever the frame bound: a tiny `--max-frame-bytes` still lets an
/// ordinary `initialize` (a few dozen values) through.
pub const MIN_TREE_BUDGET: u64 = 256 * 1024;

/// What the scan learned about a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Shape {
    /// Upper bound on the JSON values (object keys included) a parse of the whole frame builds.
    pub values: u64,
    /// For a top-level array: upper bound on the values of its largest element (the array
    /// itself not counted). Otherwise equal to `values`.
    pub largest_tree: u64,
    /// Deepest nesting of arrays and objects seen.
    pub depth: u64,
    /// Whether the first byte that is not JSON whitespace is `[` (a batch).
    pub batch: bool,
    /// The frame's length: its strings, copied into the tree, take at most this many bytes.
    pub bytes: u64,
}

impl Shape {
    /// Upper bound on the bytes of the largest tree built at once: its values, and its strings
    /// (at most the frame's bytes).
    #[must_use]
    pub fn tree_bytes(&self) -> u64 {
        self.largest_tree
            .saturating_mul(VALUE_COST)
            .saturating_add(self.bytes)
    }
}

/// The frame would cost more than the budget while parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "frame too costly to parse: up to {values} JSON values ({tree_bytes} bytes of tree) exceed the \
     budget of {budget} bytes"
)]
pub struct TooCostly {
    /// Upper bound on the values of the largest tree.
    pub values: u64,
    /// Upper bound on its bytes.
    pub tree_bytes: u64,
    /// The budget.
    pub budget: u64,
}

/// The tree budget for a frame bound: three times the bound (at least [`MIN_TREE_BUDGET`]), so
/// the frame and its tree together stay within four times the bound (C-T6a).
#[must_use]
pub fn tree_budget(max_frame_bytes: usize) -> u64 {
    (max_frame_bytes as u64)
        .saturating_mul(3)
        .max(MIN_TREE_BUDGET)
}

/// Counts values and nesting in one pass, without allocating. Strings are skipped with `memchr`.
/// The counts are upper bounds for valid JSON: every value is the frame's first, an array or
/// object, or follows a `,` or a `:`, all of which are counted.
#[must_use]
pub fn scan(frame: &[u8]) -> Shape {
    let batch = frame
        .iter()
        .find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        .is_some_and(|&b| b == b'[');
    let mut values: u64 = 1;
    let mut depth: u64 = 0;
    let mut max_depth: u64 = 0;
    // In a batch: values of the current element, and the most of any element.
    let mut element: u64 = 0;
    let mut largest: u64 = 0;
    let mut i = 0;
    while i < frame.len() {
        let b = frame[i];
        i += 1;
        match b {
            b'"' => {
                // Skip to the closing quote, hopping over escapes.
                loop {
                    match memchr::memchr2(b'"', b'\\', &frame[i.min(frame.len())..]) {
                        None => {
                            i = frame.len();
                            break;
                        }
                        Some(j) => {
                            let at = i + j;
                            if frame[at] == b'\\' {
                                i = at + 2;
                            } else {
                                i = at + 1;
                                break;
                            }
                        }
                    }
                }
            }
            b'[' | b'{' => {
                values += 1;
                element += 1;
                depth += 1;
                max_depth = max_depth.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            b',' if batch && depth == 1 => {
                values += 1;
                largest = largest.max(element + 1);
                element = 0;
            }
            b',' | b':' => {
                values += 1;
                element += 1;
            }
            _ => {}
        }
    }
    let largest_tree = if batch {
        // The outer `[` was counted into the first element: harmless over-count by one.
        largest.max(element + 1)
    } else {
        values
    };
    Shape {
        values,
        largest_tree,
        depth: max_depth,
        batch,
        bytes: frame.len() as u64,
    }
}

/// [`scan`], then refuses a frame whose largest tree would exceed `budget` bytes.
pub fn check(frame: &[u8], budget: u64) -> Result<Shape, TooCostly> {
    let shape = scan(frame);
    let tree_bytes = shape.tree_bytes();
    if tree_bytes > budget {
        return Err(TooCostly {
            values: shape.largest_tree,
            tree_bytes,
            budget,
        });
    }
    Ok(shape)
}

/// An inbound frame parsed within its cost bound: one JSON value, or a batch of `len` elements
/// whose values are not built yet (build them with [`for_each_element`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Parsed {
    /// A single JSON value.
    Single(Value),
    /// A JSON array of `len` elements, validated but not built.
    Batch {
        /// Its element count.
        len: usize,
    },
}

/// Why a frame was not parsed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FrameError {
    /// Invalid UTF-8 or JSON (`-32700`, T4).
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// Within the byte bound but too costly to build (`-32600`, C-T6a).
    #[error(transparent)]
    TooCostly(#[from] TooCostly),
}

impl FrameError {
    /// The error to answer with (its id is always `null`: no id was read).
    #[must_use]
    pub fn error(&self) -> ErrorObject {
        match self {
            FrameError::Parse(e) => e.error(),
            FrameError::TooCostly(e) => ErrorObject::invalid_request(e),
        }
    }
}

/// Decodes one frame within the cost bound of `max_frame_bytes` ([`tree_budget`], C-T6a): invalid
/// UTF-8 is `-32700`; a frame whose tree would exceed the budget is refused before anything is
/// built (`-32600`); invalid JSON (and nesting past serde_json's recursion limit) is `-32700`. An
/// array is validated and counted by building its elements one at a time and dropping each
/// (T5, C-T5).
pub fn parse_frame(frame: &[u8], max_frame_bytes: usize) -> Result<Parsed, FrameError> {
    let text = std::str::from_utf8(frame).map_err(|e| ParseError(format!("invalid UTF-8: {e}")))?;
    let shape = check(frame, tree_budget(max_frame_bytes))?;
    let invalid = |e: serde_json::Error| ParseError(format!("invalid JSON: {e}"));
    if shape.batch {
        // Validated by building each element and dropping it at once: the same deserializer
        // the dispatcher then runs, so the batch builds exactly when it validated, one element
        // in memory at a time. (`IgnoredAny` was weaker: the `wire` fuzz target found a batch
        // it accepted whose element serde cannot build, a number out of range, and one nested
        // past the recursion limit; built lazily, the elements before it would have run.)
        let len = for_each_element(frame, &mut drop).map_err(invalid)?;
        return Ok(Parsed::Batch { len });
    }
    Ok(serde_json::from_str(text)
        .map(Parsed::Single)
        .map_err(invalid)?)
}

/// Parses a top-level JSON array one element at a time, handing each to `each` and dropping it
/// before the next is built, so a batch costs its largest element, not the sum of them. Returns
/// the number of elements. Invalid JSON stops at the error (elements before it were handed out:
/// validate first with a pass that drops every element, as [`parse_frame`] does, when that
/// matters).
pub fn for_each_element(
    frame: &[u8],
    each: &mut dyn FnMut(Value),
) -> Result<usize, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_slice(frame);
    let n = de_seq(&mut de, each)?;
    de.end()?;
    Ok(n)
}

fn de_seq<'de, D: serde::Deserializer<'de>>(
    de: D,
    each: &mut dyn FnMut(Value),
) -> Result<usize, D::Error> {
    struct Each<'a>(&'a mut dyn FnMut(Value));
    impl<'de> Visitor<'de> for Each<'_> {
        type Value = usize;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a JSON array")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<usize, A::Error> {
            let mut n = 0;
            while let Some(v) = seq.next_element::<Value>()? {
                n += 1;
                (self.0)(v);
            }
            Ok(n)
        }
    }
    impl<'de> DeserializeSeed<'de> for Each<'_> {
        type Value = usize;
        fn deserialize<D: serde::Deserializer<'de>>(self, de: D) -> Result<usize, D::Error> {
            de.deserialize_seq(self)
        }
    }
    Each(each).deserialize(de)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_bound_the_values_of_valid_json() {
        let s = scan(br#"{"a":[1,2,{"b":"x,y:[{"}],"c":null}"#);
        // {  a  [ 1 2 { b "x" } c null  → 10 values; the scan may over-count, never under.
        assert!(s.values >= 10, "{s:?}");
        assert_eq!(s.depth, 3);
        assert!(!s.batch);
        assert_eq!(s.largest_tree, s.values);
    }

    #[test]
    fn strings_with_escaped_quotes_are_skipped_whole() {
        let s = scan(br#"["a\"[[[,,,\\",1]"#);
        assert_eq!(s.depth, 1);
        assert!(s.batch);
        // One value per element, plus the outer `[` counted into the first.
        assert_eq!(s.largest_tree, 2);
    }

    #[test]
    fn a_batch_is_bounded_by_its_largest_element() {
        let s = scan(br#" [{"a":1},{"b":[1,2,3,4]},3]"#);
        assert!(s.batch);
        // {"b":[1,2,3,4]}: object, key, array, 4 numbers = 7 values.
        assert!(s.largest_tree >= 7 && s.largest_tree < 12, "{s:?}");
        assert!(s.values > s.largest_tree);
    }

    #[test]
    fn deep_nesting_is_counted_without_recursion() {
        let mut f = vec![b'['; 1_000_000];
        f.extend(vec![b']'; 1_000_000]);
        let s = scan(&f);
        assert_eq!(s.depth, 1_000_000);
        assert!(check(&f, tree_budget(4 << 20)).is_err());
    }

    #[test]
    fn an_unterminated_string_ends_the_scan() {
        let s = scan(br#"{"a":"\"#);
        assert_eq!(s.depth, 1);
    }

    #[test]
    fn elements_are_handed_out_in_order() {
        let mut got = Vec::new();
        let n = for_each_element(br#"[1,{"a":2},"x"]"#, &mut |v| got.push(v)).expect("valid");
        assert_eq!(n, 3);
        assert_eq!(
            got,
            vec![serde_json::json!(1), serde_json::json!({"a":2}), "x".into()]
        );
        assert!(for_each_element(b"{}", &mut |_| {}).is_err());
        assert!(for_each_element(b"[1] x", &mut |_| {}).is_err());
    }
}
