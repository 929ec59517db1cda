//! Recordings: JSON Lines of `{"dir", "ms", "msg"}` rows (`docs/recording.schema.json`,
//! `recordings/README.md`). Reading them ([`Recording`]), following one while it is written
//! ([`Tail`]).
//!
//! Row kinds, by direction:
//! - `c2s` / `s2c`: `{"msg": …}` a JSON-RPC message from the client (host) / the server (or ACP
//!   agent); also `{"raw": …}` (a line that was not JSON) and `{"oversized": {"len", …}}` (a line
//!   over the frame bound: never held whole, see [`crate::writer`]).
//! - `n2a`: native rows of the reference adapter's recordings: `{"msg"}`, `{"raw"}`,
//!   `{"oversized": {"len", "type"}}`, `{"stderr"}` and `{"exit": {"code", "signal"}}`, which closes
//!   one native run.
//! - `c2a` / `a2c`: the ACP lines the reference adapter exchanged with its agent.
//! - `meta`: a header (first row): what the recording shows and how it was made.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::{Error, Result};

/// One row's payload.
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    /// A JSON message or event.
    Msg(Value),
    /// A line that was not JSON, as text.
    Raw(String),
    /// A line too long to hold: its length and (native side) its top-level `type`.
    Oversized {
        /// Bytes in the line, without its newline.
        len: u64,
        /// The top-level `type` a streaming scan found (native rows only).
        ty: Option<String>,
    },
    /// Native stderr text.
    Stderr(String),
    /// The native process ended: exit code, or the signal that killed it.
    Exit {
        /// Its exit code.
        code: Option<i64>,
        /// The signal that ended it.
        signal: Option<i64>,
    },
    /// Anything else (kept for the transcript, never interpreted).
    Other(Value),
}

/// One row.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// `c2s`, `s2c`, `n2a`, `meta`, …
    pub dir: String,
    /// Milliseconds since the recording started.
    pub ms: u64,
    /// The payload.
    pub body: Body,
    /// The row as written.
    pub value: Value,
}

impl Row {
    /// Parses one row.
    pub fn parse(v: Value) -> Result<Self, String> {
        let dir = v
            .get("dir")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("row without \"dir\": {v}"))?
            .to_owned();
        let ms = v.get("ms").and_then(Value::as_u64).unwrap_or(0);
        let body = if let Some(m) = v.get("msg") {
            Body::Msg(m.clone())
        } else if let Some(r) = v.get("raw") {
            Body::Raw(r.as_str().unwrap_or_default().to_owned())
        } else if let Some(o) = v.get("oversized") {
            Body::Oversized {
                len: o.get("len").and_then(Value::as_u64).unwrap_or(0),
                ty: o.get("type").and_then(Value::as_str).map(str::to_owned),
            }
        } else if let Some(s) = v.get("stderr") {
            Body::Stderr(s.as_str().unwrap_or_default().to_owned())
        } else if let Some(e) = v.get("exit") {
            Body::Exit {
                code: e.get("code").and_then(Value::as_i64),
                signal: e.get("signal").and_then(Value::as_i64),
            }
        } else {
            Body::Other(v.clone())
        };
        Ok(Self {
            dir,
            ms,
            body,
            value: v,
        })
    }

    /// A `{"dir", "ms", "msg"}` row.
    #[must_use]
    pub fn msg_row(dir: &str, ms: u64, msg: Value) -> Self {
        let value = serde_json::json!({"dir": dir, "ms": ms, "msg": msg});
        Self {
            dir: dir.to_owned(),
            ms,
            body: Body::Msg(msg),
            value,
        }
    }

    /// A native row the adapter's replay reproduces and paces on: everything but stderr (whose
    /// chunking depends on pipe timing).
    #[must_use]
    pub fn is_native_output(&self) -> bool {
        self.dir == "n2a" && !matches!(self.body, Body::Stderr(_) | Body::Other(_))
    }

    /// A line exchanged with an ACP agent (`c2a` or `a2c`).
    #[must_use]
    pub fn is_agent_wire(&self) -> bool {
        self.dir == "c2a" || self.dir == "a2c"
    }

    /// A native exit row.
    #[must_use]
    pub fn is_exit(&self) -> bool {
        self.dir == "n2a" && matches!(self.body, Body::Exit { .. })
    }

    /// The JSON message of a `msg` row.
    #[must_use]
    pub fn msg(&self) -> Option<&Value> {
        match &self.body {
            Body::Msg(m) => Some(m),
            _ => None,
        }
    }
}

/// A whole recording.
#[derive(Debug, Clone)]
pub struct Recording {
    /// The file it came from.
    pub path: PathBuf,
    /// The `meta` header, `Null` when there is none.
    pub meta: Value,
    /// Every other row, in order.
    pub rows: Vec<Row>,
}

impl Recording {
    /// Reads a recording.
    pub fn load(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io("read", path, e))?;
        Self::parse(path, &text)
    }

    /// Parses recording text (`path` names it in errors).
    pub fn parse(path: &Path, text: &str) -> Result<Self> {
        let mut meta = Value::Null;
        let mut rows = Vec::new();
        for (n, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let bad = |reason: String| Error::BadRow {
                path: path.to_path_buf(),
                line: n + 1,
                reason,
            };
            let v: Value = serde_json::from_str(line).map_err(|e| bad(e.to_string()))?;
            let row = Row::parse(v).map_err(bad)?;
            if row.dir == "meta" {
                meta = row.value;
            } else {
                rows.push(row);
            }
        }
        Ok(Self {
            path: path.to_path_buf(),
            meta,
            rows,
        })
    }

    /// The rows of one direction.
    pub fn dir<'a>(&'a self, dir: &'a str) -> impl Iterator<Item = &'a Row> + 'a {
        self.rows.iter().filter(move |r| r.dir == dir)
    }

    /// The native side split into runs: each run's rows up to and including its exit row (a
    /// trailing run without an exit row is kept too). Runs of one recording never overlap.
    #[must_use]
    pub fn native_runs(&self) -> Vec<Vec<Row>> {
        let mut runs = Vec::new();
        let mut cur: Vec<Row> = Vec::new();
        for r in self.rows.iter().filter(|r| r.dir == "n2a") {
            cur.push(r.clone());
            if r.is_exit() {
                runs.push(std::mem::take(&mut cur));
            }
        }
        if !cur.is_empty() {
            runs.push(cur);
        }
        runs
    }
}

/// Follows a recording file while another process writes it: complete lines only.
#[derive(Debug)]
pub struct Tail {
    path: PathBuf,
    offset: u64,
    partial: Vec<u8>,
    /// Rows read so far.
    pub rows: Vec<Row>,
}

impl Tail {
    /// Follows `path` from its start (it may not exist yet).
    #[must_use]
    pub fn new(path: &Path) -> Self {
        Self {
            path: path.to_path_buf(),
            offset: 0,
            partial: Vec::new(),
            rows: Vec::new(),
        }
    }

    /// Reads what was appended since the last call.
    pub fn poll(&mut self) {
        let Ok(mut f) = std::fs::File::open(&self.path) else {
            return;
        };
        if f.seek(SeekFrom::Start(self.offset)).is_err() {
            return;
        }
        let mut buf = Vec::new();
        if f.read_to_end(&mut buf).is_err() {
            return;
        }
        self.offset += buf.len() as u64;
        self.partial.extend_from_slice(&buf);
        while let Some(nl) = self.partial.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = self.partial.drain(..=nl).collect();
            if let Ok(v) = serde_json::from_slice::<Value>(&line)
                && let Ok(row) = Row::parse(v)
            {
                self.rows.push(row);
            }
        }
    }

    /// Native output rows so far ([`Row::is_native_output`]).
    #[must_use]
    pub fn native_output(&self) -> usize {
        self.rows.iter().filter(|r| r.is_native_output()).count()
    }

    /// ACP wire rows so far ([`Row::is_agent_wire`]).
    #[must_use]
    pub fn agent_wire(&self) -> usize {
        self.rows.iter().filter(|r| r.is_agent_wire()).count()
    }

    /// Native exit rows so far.
    #[must_use]
    pub fn exits(&self) -> usize {
        self.rows.iter().filter(|r| r.is_exit()).count()
    }
}
