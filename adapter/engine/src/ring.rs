//! The per-run event buffer and its cursors (BND-2, RUN-5).
//!
//! Native events are kept as the raw bytes of their line (parsed only when a page is served, so
//! ingest stays cheap and the byte bound is exact), at most [`MAX_EVENTS`] entries and
//! `MAX_BYTES` bytes; the oldest go first and are counted. An omitted oversized event (BND-1)
//! keeps its place in the sequence as an empty marker, so a page can say how many were omitted in
//! the range it covers. Cursors are opaque strings bound to one run: the run's random nonce and a
//! sequence number.

use std::collections::VecDeque;

use serde_json::Value;

/// Most events retained per run (BND-2).
pub const MAX_EVENTS: usize = 256;
/// Most event bytes retained per run (BND-2).
pub(crate) const MAX_BYTES: usize = 256 * 1024;

#[derive(Debug)]
enum Slot {
    Event(Box<[u8]>),
    /// An oversized event that was counted and not kept (BND-1).
    Omitted,
}

/// One page of events (RUN-5).
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    /// The events, parsed (key order kept); a line that is not JSON is a JSON string of its text.
    pub events: Vec<Value>,
    /// Where the next page starts.
    pub next_cursor: String,
    /// More events are retained after this page.
    pub has_more: bool,
    /// Events that were dropped before the requested position (or before the buffer start when
    /// no cursor was given).
    pub missed_events: u64,
    /// The cursor pointed before the oldest retained event.
    pub stale_cursor: bool,
    /// Oversized events omitted in the range this page covers.
    pub omitted_oversized: u64,
}

/// A cursor that this run never issued.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BadCursor;

/// The ring.
#[derive(Debug)]
pub struct EventRing {
    entries: VecDeque<Slot>,
    first_seq: u64,
    bytes: usize,
    dropped: u64,
    nonce: u32,
}

impl EventRing {
    /// An empty ring; `nonce` ties its cursors to one run.
    #[must_use]
    pub fn new(nonce: u32) -> Self {
        Self {
            entries: VecDeque::new(),
            first_seq: 0,
            bytes: 0,
            dropped: 0,
            nonce,
        }
    }

    /// Events dropped from the front so far (overflow; RUN-4 `events_dropped`).
    #[must_use]
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// Sequence number the next event will get.
    #[must_use]
    pub(crate) fn next_seq(&self) -> u64 {
        self.first_seq + self.entries.len() as u64
    }

    /// Bytes held.
    #[must_use]
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Appends an event's line. A line larger than the whole byte budget cannot be kept and is
    /// recorded as omitted instead (returns `false`).
    pub fn push(&mut self, line: &[u8]) -> bool {
        if line.len() > MAX_BYTES {
            self.push_omitted();
            return false;
        }
        self.make_room(line.len());
        self.bytes += line.len();
        self.entries.push_back(Slot::Event(line.into()));
        true
    }

    /// Records an omitted oversized event at this position.
    pub(crate) fn push_omitted(&mut self) {
        self.make_room(0);
        self.entries.push_back(Slot::Omitted);
    }

    fn make_room(&mut self, len: usize) {
        while self.entries.len() >= MAX_EVENTS || self.bytes + len > MAX_BYTES {
            match self.entries.pop_front() {
                Some(Slot::Event(b)) => self.bytes -= b.len(),
                Some(Slot::Omitted) => {}
                None => break,
            }
            self.first_seq += 1;
            self.dropped += 1;
        }
    }

    /// The opaque spelling of a position.
    #[must_use]
    pub fn cursor(&self, seq: u64) -> String {
        format!("c1.{:08x}.{seq:x}", self.nonce)
    }

    fn parse_cursor(&self, cursor: &str) -> Result<u64, BadCursor> {
        let rest = cursor.strip_prefix("c1.").ok_or(BadCursor)?;
        let (nonce, seq) = rest.split_once('.').ok_or(BadCursor)?;
        if nonce.len() != 8 || u32::from_str_radix(nonce, 16).ok() != Some(self.nonce) {
            return Err(BadCursor);
        }
        if seq.is_empty() || seq.len() > 16 || seq.starts_with('+') {
            return Err(BadCursor);
        }
        let seq = u64::from_str_radix(seq, 16).map_err(|_| BadCursor)?;
        if seq > self.next_seq() {
            return Err(BadCursor);
        }
        Ok(seq)
    }

    /// One page of at most `limit` events from `cursor` (or from the oldest retained event).
    pub fn page(&self, cursor: Option<&str>, limit: usize) -> Result<Page, BadCursor> {
        let (from, missed, stale) = match cursor {
            Some(c) => {
                let seq = self.parse_cursor(c)?;
                if seq < self.first_seq {
                    (self.first_seq, self.first_seq - seq, true)
                } else {
                    (seq, 0, false)
                }
            }
            None => (self.first_seq, self.first_seq, false),
        };
        let mut events = Vec::new();
        let mut omitted = 0;
        let mut seq = from;
        let end = self.next_seq();
        while seq < end && events.len() < limit {
            let idx = usize::try_from(seq - self.first_seq).unwrap_or(usize::MAX);
            match self.entries.get(idx) {
                Some(Slot::Event(b)) => events.push(parse_event(b)),
                Some(Slot::Omitted) => omitted += 1,
                None => break,
            }
            seq += 1;
        }
        // Trailing omitted markers belong to this page too, so the next one starts at an event.
        while seq < end {
            let idx = usize::try_from(seq - self.first_seq).unwrap_or(usize::MAX);
            if matches!(self.entries.get(idx), Some(Slot::Omitted)) {
                omitted += 1;
                seq += 1;
            } else {
                break;
            }
        }
        Ok(Page {
            events,
            next_cursor: self.cursor(seq),
            has_more: seq < end,
            missed_events: missed,
            stale_cursor: stale,
            omitted_oversized: omitted,
        })
    }
}

/// A stored line as a JSON value: parsed with key order kept (OUT-4), or, for a line that is not
/// JSON, a JSON string of its (lossy UTF-8) text so nothing the CLI wrote disappears silently.
fn parse_event(line: &[u8]) -> Value {
    serde_json::from_slice(line)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(line).into_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ev(i: usize) -> Vec<u8> {
        format!(r#"{{"type":"stream_event","i":{i}}}"#).into_bytes()
    }

    #[test]
    fn pages_walk_the_stream_in_order_with_opaque_cursors() {
        let mut r = EventRing::new(7);
        for i in 0..10 {
            r.push(&ev(i));
        }
        let p = r.page(None, 4).expect("page");
        assert_eq!(p.events.len(), 4);
        assert_eq!(p.events[0], json!({"type": "stream_event", "i": 0}));
        assert!(p.has_more);
        assert_eq!((p.missed_events, p.stale_cursor), (0, false));
        let p2 = r.page(Some(&p.next_cursor), 100).expect("page");
        assert_eq!(p2.events.len(), 6);
        assert_eq!(p2.events[0]["i"], 4);
        assert!(!p2.has_more);
        let p3 = r.page(Some(&p2.next_cursor), 100).expect("page");
        assert!(p3.events.is_empty());
        assert_eq!(p3.next_cursor, p2.next_cursor);
    }

    #[test]
    fn overflow_drops_the_oldest_and_reports_stale_cursors() {
        // BND-2, RUN-5: 300 events into a 256-event ring.
        let mut r = EventRing::new(1);
        let start = r.cursor(0);
        for i in 0..300 {
            r.push(&ev(i));
        }
        assert_eq!(r.dropped(), 44);
        let p = r.page(Some(&start), 10).expect("page");
        assert!(p.stale_cursor);
        assert_eq!(p.missed_events, 44);
        assert_eq!(p.events[0]["i"], 44);
        let fresh = r.page(None, 256).expect("page");
        assert_eq!(fresh.events.len(), 256);
        assert_eq!(fresh.missed_events, 44);
        assert!(!fresh.stale_cursor);
    }

    #[test]
    fn the_byte_budget_is_enforced() {
        let mut r = EventRing::new(1);
        let big = vec![b'x'; 100 * 1024];
        for _ in 0..5 {
            r.push(&big);
            assert!(r.bytes() <= MAX_BYTES);
        }
        assert_eq!(r.dropped(), 3);
        assert!(!r.push(&vec![b'y'; MAX_BYTES + 1]));
        let p = r.page(None, 256).expect("page");
        assert_eq!(p.omitted_oversized, 1);
    }

    #[test]
    fn omitted_markers_are_counted_in_the_page_that_covers_them() {
        let mut r = EventRing::new(1);
        r.push(&ev(0));
        r.push_omitted();
        r.push(&ev(2));
        r.push_omitted();
        let p = r.page(None, 1).expect("page");
        assert_eq!(p.events.len(), 1);
        assert_eq!(p.omitted_oversized, 1);
        let p2 = r.page(Some(&p.next_cursor), 10).expect("page");
        assert_eq!(p2.events, vec![json!({"type": "stream_event", "i": 2})]);
        assert_eq!(p2.omitted_oversized, 1);
        assert!(!p2.has_more);
    }

    #[test]
    fn foreign_or_future_cursors_are_refused() {
        let mut r = EventRing::new(1);
        r.push(&ev(0));
        let other = EventRing::new(2);
        assert_eq!(r.page(Some(&other.cursor(0)), 1), Err(BadCursor));
        assert_eq!(r.page(Some(&r.cursor(2)), 1), Err(BadCursor));
        for bad in [
            "",
            "c1.",
            "c1.00000001.",
            "c1.00000001.zz",
            "x",
            "c1.00000001.+1",
        ] {
            assert_eq!(r.page(Some(bad), 1), Err(BadCursor), "{bad:?}");
        }
        assert!(r.page(Some(&r.cursor(1)), 1).is_ok());
    }

    #[test]
    fn a_line_that_is_not_json_is_served_as_a_string() {
        let mut r = EventRing::new(1);
        r.push(b"not json {");
        let p = r.page(None, 1).expect("page");
        assert_eq!(p.events, vec![json!("not json {")]);
    }

    #[test]
    fn key_order_of_events_is_kept() {
        let mut r = EventRing::new(1);
        r.push(br#"{"z":1,"a":2,"type":"x"}"#);
        let p = r.page(None, 1).expect("page");
        assert_eq!(p.events[0].to_string(), r#"{"z":1,"a":2,"type":"x"}"#);
    }
}
