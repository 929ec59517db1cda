//! A bounded, sans-IO decoder for newline-delimited frames (T1, T6, BND-1).
//!
//! Bytes go in with [`FrameDecoder::decode`]; complete lines come out through a sink callback. A
//! line longer than the bound is never buffered whole: once the bound is crossed the decoder hands
//! the bytes it holds and every later byte of that line to the sink as [`DecodeEvent::OversizedChunk`]
//! and keeps nothing, then reports [`DecodeEvent::OversizedEnd`] at the newline. Callers that must
//! still learn something about an oversized line (BND-3: the top-level `type` of a native event)
//! scan those chunks with bounded state; callers that do not care drop them. Memory held by the
//! decoder is therefore at most `max_frame_bytes`, whatever the peer sends.

/// What the decoder produces for the bytes it was given.
#[derive(Debug, PartialEq, Eq)]
pub enum DecodeEvent<'a> {
    /// A complete line, without its `\n` and without one trailing `\r`. May be empty (a blank
    /// line): the caller decides whether blank lines mean anything.
    Line(&'a [u8]),
    /// The start of a line that crossed the bound has been seen: every byte of it from here on is
    /// passed as [`DecodeEvent::OversizedChunk`] and nothing is kept.
    OversizedStart,
    /// A piece of an oversized line, in order (the first piece begins at the line's first byte).
    OversizedChunk(&'a [u8]),
    /// The oversized line ended (newline or end of input). `len` counts its bytes without the
    /// newline.
    OversizedEnd {
        /// Total length of the discarded line in bytes.
        len: u64,
    },
}

/// Splits a byte stream into bounded newline-delimited frames.
#[derive(Debug)]
pub struct FrameDecoder {
    max_frame_bytes: usize,
    buf: Vec<u8>,
    /// `Some(n)` while discarding an oversized line, `n` bytes of which were seen so far.
    discarding: Option<u64>,
}

impl FrameDecoder {
    /// A decoder that accepts lines of at most `max_frame_bytes` bytes (excluding the newline).
    #[must_use]
    pub fn new(max_frame_bytes: usize) -> Self {
        Self {
            max_frame_bytes,
            buf: Vec::new(),
            discarding: None,
        }
    }

    /// The configured bound.
    #[must_use]
    pub fn max_frame_bytes(&self) -> usize {
        self.max_frame_bytes
    }

    /// Bytes currently held for an incomplete line (never more than the bound).
    #[must_use]
    pub fn buffered(&self) -> usize {
        self.buf.len()
    }

    /// Feeds `data` and calls `sink` for every event it completes, in order.
    pub fn decode(&mut self, mut data: &[u8], sink: &mut dyn FnMut(DecodeEvent<'_>)) {
        while !data.is_empty() {
            // memchr: the newline search is the hot loop of native ingest (BND-1).
            let newline = memchr::memchr(b'\n', data);
            let (piece, rest, ends_line) = match newline {
                Some(i) => (&data[..i], &data[i + 1..], true),
                None => (data, &data[data.len()..], false),
            };
            data = rest;

            if let Some(seen) = self.discarding.as_mut() {
                *seen += piece.len() as u64;
                if !piece.is_empty() {
                    sink(DecodeEvent::OversizedChunk(piece));
                }
                if ends_line {
                    let len = *seen;
                    self.discarding = None;
                    sink(DecodeEvent::OversizedEnd { len });
                }
                continue;
            }

            if self.buf.len() + piece.len() > self.max_frame_bytes {
                // T6 / BND-1: crossing the bound switches to discarding; what we held so far and
                // this piece are handed out, never kept.
                let seen = (self.buf.len() + piece.len()) as u64;
                sink(DecodeEvent::OversizedStart);
                if !self.buf.is_empty() {
                    sink(DecodeEvent::OversizedChunk(&self.buf));
                }
                if !piece.is_empty() {
                    sink(DecodeEvent::OversizedChunk(piece));
                }
                self.buf = Vec::new();
                if ends_line {
                    sink(DecodeEvent::OversizedEnd { len: seen });
                } else {
                    self.discarding = Some(seen);
                }
                continue;
            }

            if ends_line {
                if self.buf.is_empty() {
                    sink(DecodeEvent::Line(strip_cr(piece)));
                } else {
                    self.append(piece);
                    let line = std::mem::take(&mut self.buf);
                    sink(DecodeEvent::Line(strip_cr(&line)));
                    self.reuse(line);
                }
            } else {
                self.append(piece);
            }
        }
    }

    /// Ends the input: a partial last line (no newline before EOF) is delivered as a line, an
    /// oversized one as its end. Returns whether anything was pending.
    pub fn finish(&mut self, sink: &mut dyn FnMut(DecodeEvent<'_>)) -> bool {
        if let Some(len) = self.discarding.take() {
            sink(DecodeEvent::OversizedEnd { len });
            return true;
        }
        if self.buf.is_empty() {
            return false;
        }
        let line = std::mem::take(&mut self.buf);
        sink(DecodeEvent::Line(strip_cr(&line)));
        true
    }

    /// Appends to the partial line, growing the buffer geometrically but never past the bound,
    /// so the decoder's allocation (not only its length) stays within `max_frame_bytes`.
    fn append(&mut self, piece: &[u8]) {
        let needed = self.buf.len() + piece.len();
        if needed > self.buf.capacity() {
            let target = needed
                .max(self.buf.capacity().saturating_mul(2))
                .min(self.max_frame_bytes.max(needed));
            self.buf.reserve_exact(target - self.buf.len());
        }
        self.buf.extend_from_slice(piece);
    }

    /// Keeps a modest allocation around for the next line, but never the capacity of a large one.
    fn reuse(&mut self, mut line: Vec<u8>) {
        const KEEP_CAPACITY: usize = 64 * 1024;
        if line.capacity() <= KEEP_CAPACITY {
            line.clear();
            self.buf = line;
        }
    }
}

fn strip_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, Eq)]
    enum Ev {
        Line(Vec<u8>),
        Start,
        Chunk(Vec<u8>),
        End(u64),
    }

    fn run(max: usize, pieces: &[&[u8]], finish: bool) -> Vec<Ev> {
        let mut d = FrameDecoder::new(max);
        let mut out = Vec::new();
        let mut sink = |e: DecodeEvent<'_>| {
            out.push(match e {
                DecodeEvent::Line(l) => Ev::Line(l.to_vec()),
                DecodeEvent::OversizedStart => Ev::Start,
                DecodeEvent::OversizedChunk(c) => Ev::Chunk(c.to_vec()),
                DecodeEvent::OversizedEnd { len } => Ev::End(len),
            });
        };
        for p in pieces {
            d.decode(p, &mut sink);
            assert!(d.buffered() <= max, "decoder held more than the bound");
        }
        if finish {
            d.finish(&mut sink);
        }
        out
    }

    fn line(s: &str) -> Ev {
        Ev::Line(s.as_bytes().to_vec())
    }

    #[test]
    fn splits_lines_across_reads_and_strips_one_cr() {
        let ev = run(100, &[b"ab", b"c\r\nde\n\nf\r\r\n"], false);
        assert_eq!(ev, vec![line("abc"), line("de"), line(""), line("f\r")]);
    }

    #[test]
    fn partial_last_line_is_delivered_on_finish_only() {
        assert_eq!(run(100, &[b"{\"a\":1}"], false), vec![]);
        assert_eq!(run(100, &[b"{\"a\":1}"], true), vec![line("{\"a\":1}")]);
    }

    #[test]
    fn a_line_exactly_at_the_bound_is_a_line() {
        assert_eq!(run(3, &[b"abc\n"], false), vec![line("abc")]);
    }

    #[test]
    fn oversized_line_is_streamed_out_and_the_next_line_survives() {
        // T6: discard to the newline, then go on.
        let ev = run(4, &[b"abc", b"defg", b"hi\nok\n"], false);
        assert_eq!(
            ev,
            vec![
                Ev::Start,
                Ev::Chunk(b"abc".to_vec()),
                Ev::Chunk(b"defg".to_vec()),
                Ev::Chunk(b"hi".to_vec()),
                Ev::End(9),
                line("ok"),
            ]
        );
    }

    #[test]
    fn the_allocation_never_exceeds_the_bound() {
        let mut d = FrameDecoder::new(10_000);
        for _ in 0..99 {
            d.decode(&[b'x'; 100], &mut |_| {});
            assert!(d.buf.capacity() <= 10_000, "capacity {}", d.buf.capacity());
        }
        let mut got = 0;
        d.decode(b"\n", &mut |e| {
            if let DecodeEvent::Line(l) = e {
                got = l.len();
            }
        });
        assert_eq!(got, 9_900);
    }

    #[test]
    fn oversized_line_in_one_read() {
        let ev = run(2, &[b"abcdef\nx\n"], false);
        assert_eq!(
            ev,
            vec![
                Ev::Start,
                Ev::Chunk(b"abcdef".to_vec()),
                Ev::End(6),
                line("x")
            ]
        );
    }

    #[test]
    fn oversized_line_cut_by_eof_ends_on_finish() {
        let ev = run(2, &[b"abcdef"], true);
        assert_eq!(
            ev,
            vec![Ev::Start, Ev::Chunk(b"abcdef".to_vec()), Ev::End(6)]
        );
    }

    #[test]
    fn memory_stays_bounded_for_a_huge_line_fed_in_pieces() {
        let mut d = FrameDecoder::new(1024);
        let chunk = vec![b'x'; 64 * 1024];
        let mut total = 0u64;
        let mut ended = None;
        for _ in 0..160 {
            d.decode(&chunk, &mut |e| match e {
                DecodeEvent::OversizedChunk(c) => total += c.len() as u64,
                DecodeEvent::OversizedEnd { len } => ended = Some(len),
                _ => {}
            });
            assert!(d.buffered() <= 1024);
            assert!(d.buf.capacity() <= 1024);
        }
        d.decode(b"\n", &mut |e| {
            if let DecodeEvent::OversizedEnd { len } = e {
                ended = Some(len);
            }
        });
        assert_eq!(total, 160 * 64 * 1024);
        assert_eq!(ended, Some(160 * 64 * 1024));
    }
}
