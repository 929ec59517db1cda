//! A bounded, sans-IO reader of `text/event-stream` (the WHATWG "event stream interpretation"
//! the Streamable HTTP transport cites): bytes in, whole events out. An event (its lines and
//! the line being read) larger than the bound is an error the caller reports, never a growing
//! buffer: a server cannot make the runner hold more than the bound, whatever it streams.

/// One dispatched event: its `data` lines joined with `\n`, and the fields that came with it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field, when one was given (the default type is `message`).
    pub event: Option<String>,
    /// The `id:` field, when one was given (may be empty: a priming event).
    pub id: Option<String>,
    /// The `retry:` field, when it was a number.
    pub retry: Option<u64>,
    /// The data, lines joined with `\n` (the last line's `\n` removed).
    pub data: String,
}

/// The stream broke a bound or the format.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SseError {
    /// One event (or one line of it) grew past the bound before it ended.
    #[error("an SSE event over the runner's {max} byte bound ({seen} bytes read and still going)")]
    Oversized {
        /// The bound.
        max: usize,
        /// Bytes of the event read when the bound was passed.
        seen: usize,
    },
    /// A line of the stream was not UTF-8 (the format is UTF-8 only).
    #[error("an SSE line that is not UTF-8: {0}")]
    NotUtf8(String),
}

/// The decoder: feed it chunks as they arrive, take events as they complete.
#[derive(Debug)]
pub struct SseDecoder {
    max: usize,
    /// The line being read (no terminator yet).
    line: Vec<u8>,
    /// The last byte fed was a `\r`: a `\n` right after it belongs to the same terminator.
    after_cr: bool,
    /// The event being assembled.
    event: SseEvent,
    /// Whether any field of the event being assembled was seen.
    has_data: bool,
    /// Bytes of the event being assembled so far (lines ended, with terminators).
    event_bytes: usize,
}

impl SseDecoder {
    /// A decoder that refuses any event over `max` bytes.
    #[must_use]
    pub fn new(max: usize) -> Self {
        Self {
            max,
            line: Vec::new(),
            after_cr: false,
            event: SseEvent::default(),
            has_data: false,
            event_bytes: 0,
        }
    }

    /// Feeds `bytes`; pushes each completed event onto `out`. After an error the decoder must
    /// not be fed again (the stream is abandoned).
    pub fn feed(&mut self, bytes: &[u8], out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        let mut rest = bytes;
        while !rest.is_empty() {
            if self.after_cr && rest[0] == b'\n' {
                rest = &rest[1..];
                self.after_cr = false;
                continue;
            }
            self.after_cr = false;
            match rest.iter().position(|b| *b == b'\n' || *b == b'\r') {
                None => {
                    self.grow(rest.len())?;
                    self.line.extend_from_slice(rest);
                    rest = &[];
                }
                Some(end) => {
                    self.grow(end + 1)?;
                    self.line.extend_from_slice(&rest[..end]);
                    self.after_cr = rest[end] == b'\r';
                    self.event_bytes += self.line.len() + 1;
                    let line = std::mem::take(&mut self.line);
                    self.line_done(&line, out)?;
                    rest = &rest[end + 1..];
                }
            }
        }
        Ok(())
    }

    /// Checks that `more` bytes still fit the event's bound.
    fn grow(&self, more: usize) -> Result<(), SseError> {
        let seen = self.event_bytes + self.line.len() + more;
        if seen > self.max {
            return Err(SseError::Oversized {
                max: self.max,
                seen,
            });
        }
        Ok(())
    }

    fn line_done(&mut self, line: &[u8], out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        if line.is_empty() {
            // Dispatch: an event without data is dropped, as the standard says (but its id
            // still counts for the caller: a priming event has an id and empty data).
            let event = std::mem::take(&mut self.event);
            if self.has_data || event.id.is_some() {
                out.push(event);
            }
            self.has_data = false;
            self.event_bytes = 0;
            return Ok(());
        }
        let text = std::str::from_utf8(line)
            .map_err(|_| SseError::NotUtf8(crate::core::transcript::clip_to(line, 80)))?;
        if text.starts_with(':') {
            return Ok(());
        }
        let (name, value) = match text.split_once(':') {
            Some((n, v)) => (n, v.strip_prefix(' ').unwrap_or(v)),
            None => (text, ""),
        };
        match name {
            "data" => {
                if self.has_data {
                    self.event.data.push('\n');
                }
                self.event.data.push_str(value);
                self.has_data = true;
            }
            "event" => self.event.event = Some(value.to_owned()),
            "id" if !value.contains('\0') => self.event.id = Some(value.to_owned()),
            "retry" => self.event.retry = value.parse().ok(),
            _ => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(chunks: &[&[u8]], max: usize) -> (Vec<SseEvent>, Result<(), SseError>) {
        let mut d = SseDecoder::new(max);
        let mut out = Vec::new();
        for c in chunks {
            if let Err(e) = d.feed(c, &mut out) {
                return (out, Err(e));
            }
        }
        (out, Ok(()))
    }

    #[test]
    fn events_split_anywhere_decode_the_same() {
        let stream =
            b"id: 1\ndata:\n\n: comment\nevent: message\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\n";
        let (whole, ok) = decode(&[stream], 1024);
        assert!(ok.is_ok());
        assert_eq!(whole.len(), 2);
        assert_eq!(whole[0].id.as_deref(), Some("1"));
        assert_eq!(whole[0].data, "");
        assert_eq!(whole[1].event.as_deref(), Some("message"));
        assert_eq!(whole[1].data, "{\"a\":\n1}");
        for cut in 1..stream.len() {
            let (parts, ok) = decode(&[&stream[..cut], &stream[cut..]], 1024);
            assert!(ok.is_ok());
            assert_eq!(parts, whole, "cut at {cut}");
        }
    }

    #[test]
    fn an_event_over_the_bound_is_an_error_not_a_buffer() {
        let big = vec![b'x'; 200];
        let (events, err) = decode(&[b"data: ".as_slice(), &big, &big], 256);
        assert!(events.is_empty());
        assert!(matches!(err, Err(SseError::Oversized { max: 256, .. })));
        // Many small lines of one event count too.
        let (_, err) = decode(&[b"data: 1234567890\n".as_slice(); 30], 256);
        assert!(matches!(err, Err(SseError::Oversized { .. })));
        // Many small events do not.
        let (events, err) = decode(&[b"data: 1234567890\n\n".as_slice(); 30], 256);
        assert!(err.is_ok());
        assert_eq!(events.len(), 30);
    }
}
