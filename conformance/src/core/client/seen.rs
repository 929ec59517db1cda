//! The frames a client read while waiting for something else, kept in arrival order for the
//! case to take later, bounded so a flooding server cannot grow the runner.

use std::collections::VecDeque;

use super::message::Frame;

/// Bytes and frames kept for the case to read later (`Client::take_seen`); beyond them the
/// oldest unread frames are dropped (a flooding server cannot grow the runner either).
pub(super) const SEEN_BYTES: usize = 16 * 1024 * 1024;
/// See [`SEEN_BYTES`].
pub(super) const MAX_SEEN: usize = 4096;

/// Frames read while waiting for something else, in arrival order, bounded by [`SEEN_BYTES`]
/// and [`MAX_SEEN`].
#[derive(Debug, Default)]
pub(super) struct Seen {
    frames: VecDeque<(Frame, usize)>,
    bytes: usize,
    dropped: u64,
}

impl Seen {
    /// Keeps `frame`; returns whether older frames had to be dropped for it (first time only).
    pub(super) fn push(&mut self, frame: Frame, size: usize) -> bool {
        self.frames.push_back((frame, size));
        self.bytes += size;
        let before = self.dropped;
        while (self.bytes > SEEN_BYTES || self.frames.len() > MAX_SEEN) && self.frames.len() > 1 {
            if let Some((_, n)) = self.frames.pop_front() {
                self.bytes -= n;
                self.dropped += 1;
            }
        }
        before == 0 && self.dropped > 0
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = &Frame> {
        self.frames.iter().map(|(f, _)| f)
    }

    pub(super) fn remove(&mut self, pos: usize) -> Option<Frame> {
        let (f, n) = self.frames.remove(pos)?;
        self.bytes -= n;
        Some(f)
    }

    pub(super) fn drain(&mut self) -> Vec<Frame> {
        self.bytes = 0;
        self.frames.drain(..).map(|(f, _)| f).collect()
    }
}
