//! A streaming scanner of a JSON line's object keys with bounded state (BND-1, BND-3).
//!
//! A line over the 1 MiB line bound is never held, yet what it is must still be known: the
//! adapter learns a claude event's top-level `type` (written near the END of a result), the ACP
//! client whether a `session/update` is an `agent_message_chunk` (`sessionUpdate` may come after
//! the `content` it carries). [`PathScan`] is fed the line in pieces (the decoder's oversized
//! chunks, or a whole line) and watches a few key paths (`["type"]`,
//! `["params", "update", "sessionUpdate"]`) through nested objects. It remembers only: whether it
//! is inside a string, the depth of containers off the watched paths (a counter), one set of
//! still-matching paths per object level on a watched path (at most [`MAX_DEPTH`]), the current
//! key ([`KEY_CAP`] bytes at most) and the string value being captured ([`VALUE_CAP`] bytes at
//! most). Strings that merely contain a watched key, and the same key elsewhere, are skipped.
//! Like serde_json's map, a repeated key keeps its last value, so the scan and a later full parse
//! agree.
//!
//! The scan is not a validator: on broken JSON it reports what it saw, which is what lets a
//! truncated `{"type":"result",…` be recognised as a malformed final (OUT-2).

/// Longest key kept (longer keys are none of the ones watched).
pub const KEY_CAP: usize = 64;
/// Longest captured string value; longer values are reported as absent.
pub const VALUE_CAP: usize = 256;
/// Most paths one scanner watches.
pub const MAX_PATHS: usize = 8;
/// Longest watched path (object levels followed).
pub const MAX_DEPTH: usize = 8;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum St {
    /// Before the first non-blank byte.
    Start,
    /// Inside a followed object, expecting a key or `}`.
    ExpectKey,
    /// Inside a key string.
    InKey,
    /// After a key, expecting `:`.
    AfterKey,
    /// After `:`, expecting a value.
    ExpectValue,
    /// Inside a string value of a followed object.
    InValue,
    /// Inside a scalar value (number, literal) of a followed object.
    InScalar,
    /// Inside a container off the watched paths (`depth` > 0).
    Nested,
    /// After a value, expecting `,` or `}`.
    AfterValue,
    /// The top-level value ended, or it was not an object.
    Done,
}

/// What the scan learned about one watched path.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Found {
    /// The path's key was seen (its `:` read), whatever came after.
    pub seen: bool,
    /// A value other than `null` was seen at the path at least once (an ended string or scalar,
    /// or the start of an object or array).
    pub non_null: bool,
    /// The last value at the path, when it was a string of at most [`VALUE_CAP`] bytes (a later
    /// value of another kind replaces it with `None`).
    pub string: Option<String>,
}

/// What the scan learned about the line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scanned {
    /// The line starts (after blanks) with `{`.
    pub is_object: bool,
    /// The top-level object was closed: the line was not cut short.
    pub closed: bool,
    /// One entry per watched path, in the order given.
    pub found: Vec<Found>,
}

/// The scanner. Memory: a few hundred bytes whatever the input.
#[derive(Debug, Clone)]
pub struct PathScan {
    paths: &'static [&'static [&'static str]],
    st: St,
    /// Followed object levels open (1 = inside the top-level object).
    level: usize,
    /// Per followed level: the paths whose keys so far lead to this object.
    masks: [u8; MAX_DEPTH],
    /// Paths whose key at this level is the current key.
    want: u8,
    /// Depth inside containers off the watched paths while `st == Nested`.
    depth: u64,
    in_string: bool,
    escape: bool,
    key: Vec<u8>,
    key_overflow: bool,
    value: Vec<u8>,
    value_overflow: bool,
    scalar_null: bool,
    out: Scanned,
}

impl PathScan {
    /// A scanner at the start of a line, watching `paths` (each a list of object keys from the
    /// top level).
    ///
    /// # Panics
    ///
    /// With more than [`MAX_PATHS`] paths, or a path empty or longer than [`MAX_DEPTH`] (a
    /// programming error, never input-derived).
    #[must_use]
    pub fn new(paths: &'static [&'static [&'static str]]) -> Self {
        assert!(paths.len() <= MAX_PATHS, "at most {MAX_PATHS} paths");
        assert!(
            paths.iter().all(|p| (1..=MAX_DEPTH).contains(&p.len())),
            "each path has 1..={MAX_DEPTH} keys"
        );
        Self {
            paths,
            st: St::Start,
            level: 0,
            masks: [0; MAX_DEPTH],
            want: 0,
            depth: 0,
            in_string: false,
            escape: false,
            key: Vec::with_capacity(KEY_CAP),
            key_overflow: false,
            value: Vec::new(),
            value_overflow: false,
            scalar_null: false,
            out: Scanned {
                is_object: false,
                closed: false,
                found: vec![Found::default(); paths.len()],
            },
        }
    }

    /// Scans a whole line at once.
    #[must_use]
    pub fn line(paths: &'static [&'static [&'static str]], bytes: &[u8]) -> Scanned {
        let mut s = Self::new(paths);
        s.feed(bytes);
        s.finish()
    }

    /// What was seen so far (the line may be cut short: broken JSON reports what it had).
    #[must_use]
    pub fn finish(self) -> Scanned {
        self.out
    }

    /// Bytes held for the key and the captured value (the bound the scanner keeps).
    #[must_use]
    pub fn held_capacity(&self) -> usize {
        self.key.capacity() + self.value.capacity()
    }

    /// Feeds the next piece of the line.
    pub fn feed(&mut self, data: &[u8]) {
        let mut i = 0;
        let n = data.len();
        while i < n {
            match self.st {
                St::Done => return,
                St::Nested => {
                    if self.in_string {
                        if self.escape {
                            self.escape = false;
                            i += 1;
                            continue;
                        }
                        let Some(k) = find2(&data[i..], b'"', b'\\') else {
                            return;
                        };
                        i += k;
                        if data[i] == b'\\' {
                            self.escape = true;
                        } else {
                            self.in_string = false;
                        }
                        i += 1;
                    } else {
                        let Some(k) = find_structural(&data[i..]) else {
                            return;
                        };
                        i += k;
                        match data[i] {
                            b'"' => self.in_string = true,
                            b'{' | b'[' => self.depth += 1,
                            _ => {
                                self.depth -= 1;
                                if self.depth == 0 {
                                    self.st = St::AfterValue;
                                }
                            }
                        }
                        i += 1;
                    }
                }
                St::InKey | St::InValue => {
                    let capture = self.st == St::InKey || self.leaves() != 0;
                    if self.escape {
                        self.escape = false;
                        if capture {
                            self.extend_captured(&data[i..=i]);
                        }
                        i += 1;
                        continue;
                    }
                    let Some(k) = find2(&data[i..], b'"', b'\\') else {
                        if capture {
                            self.extend_captured(&data[i..]);
                        }
                        return;
                    };
                    if capture {
                        self.extend_captured(&data[i..i + k]);
                    }
                    i += k;
                    if data[i] == b'\\' {
                        self.escape = true;
                        if capture {
                            self.extend_captured(b"\\");
                        }
                    } else {
                        self.end_string();
                    }
                    i += 1;
                }
                _ => {
                    let b = data[i];
                    i += 1;
                    self.structural(b);
                }
            }
        }
    }

    /// The watched paths that end at the current key.
    fn leaves(&self) -> u8 {
        self.select(self.want, |len, level| len == level)
    }

    /// The watched paths that go on below the current key.
    fn descending(&self) -> u8 {
        self.select(self.want, |len, level| len > level)
    }

    fn select(&self, mask: u8, keep: impl Fn(usize, usize) -> bool) -> u8 {
        let mut out = 0;
        for (i, p) in self.paths.iter().enumerate() {
            if mask & (1 << i) != 0 && keep(p.len(), self.level) {
                out |= 1 << i;
            }
        }
        out
    }

    /// Applies `f` to the result of every path that ends at the current key.
    fn each_leaf(&mut self, f: impl Fn(&mut Found)) {
        let leaves = self.leaves();
        for (i, found) in self.out.found.iter_mut().enumerate() {
            if leaves & (1 << i) != 0 {
                f(found);
            }
        }
    }

    /// One byte outside any string, in a followed object.
    fn structural(&mut self, b: u8) {
        let blank = matches!(b, b' ' | b'\t' | b'\r' | b'\n');
        match self.st {
            St::Start => {
                if blank {
                } else if b == b'{' {
                    self.out.is_object = true;
                    self.masks[0] = u8::MAX;
                    self.level = 1;
                    self.st = St::ExpectKey;
                } else {
                    self.st = St::Done;
                }
            }
            St::ExpectKey => match b {
                b'"' => {
                    self.key.clear();
                    self.key_overflow = false;
                    self.st = St::InKey;
                }
                b'}' => self.close(),
                _ => {}
            },
            St::AfterKey => {
                if b == b':' {
                    self.want = self.classify_key();
                    self.each_leaf(|f| f.seen = true);
                    self.st = St::ExpectValue;
                }
            }
            St::ExpectValue => match b {
                _ if blank => {}
                b'"' => {
                    self.value.clear();
                    self.value_overflow = false;
                    self.st = St::InValue;
                }
                b'{' | b'[' => {
                    self.each_leaf(|f| {
                        f.non_null = true;
                        f.string = None;
                    });
                    let down = self.descending();
                    if b == b'{' && down != 0 && self.level < MAX_DEPTH {
                        self.masks[self.level] = down;
                        self.level += 1;
                        self.st = St::ExpectKey;
                    } else {
                        self.depth = 1;
                        self.st = St::Nested;
                    }
                }
                b',' => self.st = St::ExpectKey,
                b'}' => self.close(),
                _ => {
                    self.scalar_null = b == b'n';
                    self.st = St::InScalar;
                }
            },
            St::InScalar => match b {
                b',' => {
                    self.end_scalar();
                    self.st = St::ExpectKey;
                }
                b'}' => {
                    self.end_scalar();
                    self.close();
                }
                _ if blank => {
                    self.end_scalar();
                    self.st = St::AfterValue;
                }
                _ => {}
            },
            St::AfterValue => match b {
                b',' => self.st = St::ExpectKey,
                b'}' => self.close(),
                _ => {}
            },
            St::InKey | St::InValue | St::Nested | St::Done => {}
        }
    }

    /// `}` of a followed object: back to its parent's value, or the line's end.
    fn close(&mut self) {
        self.level -= 1;
        self.want = 0;
        if self.level == 0 {
            self.out.closed = true;
            self.st = St::Done;
        } else {
            self.st = St::AfterValue;
        }
    }

    fn end_scalar(&mut self) {
        // A non-string value replaces an earlier string one (the last key wins).
        let non_null = !self.scalar_null;
        self.each_leaf(|f| {
            f.non_null |= non_null;
            f.string = None;
        });
    }

    fn end_string(&mut self) {
        match self.st {
            St::InKey => self.st = St::AfterKey,
            St::InValue => {
                if self.leaves() != 0 {
                    let v = if self.value_overflow {
                        None
                    } else {
                        unescape(&self.value)
                    };
                    self.each_leaf(|f| {
                        f.non_null = true;
                        f.string.clone_from(&v);
                    });
                }
                self.st = St::AfterValue;
            }
            _ => {}
        }
    }

    /// The paths (among those leading to this object) whose key at this level is the current key.
    fn classify_key(&self) -> u8 {
        let mask = self.masks[self.level - 1];
        if self.key_overflow || mask == 0 {
            return 0;
        }
        let key: &[u8] = &self.key;
        let decoded;
        let key = if key.contains(&b'\\') {
            match unescape(key) {
                Some(k) => {
                    decoded = k;
                    decoded.as_bytes()
                }
                None => return 0,
            }
        } else {
            key
        };
        let mut out = 0;
        for (i, p) in self.paths.iter().enumerate() {
            if mask & (1 << i) != 0 && p.get(self.level - 1).map(|k| k.as_bytes()) == Some(key) {
                out |= 1 << i;
            }
        }
        out
    }

    fn extend_captured(&mut self, bytes: &[u8]) {
        let (buf, overflow, cap) = if self.st == St::InKey {
            (&mut self.key, &mut self.key_overflow, KEY_CAP)
        } else {
            (&mut self.value, &mut self.value_overflow, VALUE_CAP)
        };
        if *overflow {
            return;
        }
        if buf.len() + bytes.len() > cap {
            *overflow = true;
            buf.clear();
        } else {
            buf.extend_from_slice(bytes);
        }
    }
}

/// Decodes the body of a JSON string (escapes included) as serde_json would.
fn unescape(body: &[u8]) -> Option<String> {
    if !body.contains(&b'\\') {
        return std::str::from_utf8(body).ok().map(str::to_owned);
    }
    let mut quoted = Vec::with_capacity(body.len() + 2);
    quoted.push(b'"');
    quoted.extend_from_slice(body);
    quoted.push(b'"');
    serde_json::from_slice::<String>(&quoted).ok()
}

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// Marks (high bit) the bytes of `w` equal to `b`. The lowest mark is exact; marks above a true
/// match may be spurious, so only the first one is used.
#[inline]
fn eq_mask(w: u64, b: u8) -> u64 {
    let x = w ^ (LO * u64::from(b));
    x.wrapping_sub(LO) & !x & HI
}

#[inline]
fn word(chunk: &[u8]) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(chunk);
    u64::from_le_bytes(a)
}

/// First index of `a` or `b` (strings are most of a stream's bytes, so this is the hot loop):
/// `memchr2`, vectorised (SSE2/AVX2 chosen at run time on x86_64, NEON on aarch64).
#[inline]
fn find2(s: &[u8], a: u8, b: u8) -> Option<usize> {
    memchr::memchr2(a, b, s)
}

/// First `"`, `{`, `}`, `[` or `]`. Setting bit 5 folds `[`/`]` onto `{`/`}`; the one other byte
/// that folds onto the three (0x02 onto `"`) is ruled out exactly afterwards.
fn find_structural(s: &[u8]) -> Option<usize> {
    let is = |c: u8| matches!(c, b'"' | b'{' | b'}' | b'[' | b']');
    let mut i = 0;
    while i + 8 <= s.len() {
        let w = word(&s[i..i + 8]) | (LO * 0x20);
        let m = eq_mask(w, b'"') | eq_mask(w, b'{') | eq_mask(w, b'}');
        if m == 0 {
            i += 8;
            continue;
        }
        let k = i + (m.trailing_zeros() / 8) as usize;
        if is(s[k]) {
            return Some(k);
        }
        // The only look-alike is the control byte 0x02 (folds onto `"`): step past it.
        i = k + 1;
    }
    s[i..].iter().position(|&c| is(c)).map(|p| i + p)
}

#[cfg(test)]
#[path = "scan_tests.rs"]
mod tests;
