//! An order: what a supervisor starts. Its job ([`crate::protocol::Command::Start`], right after
//! the descriptor frame) and, after a version check's `cleanup` report, the run
//! ([`crate::protocol::Command::Run`]) are each such a line followed by these bytes (C-SUP-1).
//!
//! Argv strings and environment entries are arbitrary bytes (no NUL: `execve` could not pass
//! one anyway), and a prompt alone may be 128 KiB, so the order is not a JSON line: it is a
//! length-prefixed binary encoding, bounded by [`MAX_ORDER_BYTES`] on both sides. Layout
//! (integers little-endian): `u8` stdin (0 = `/dev/null`, 1 = the pipe), `u64` grace in ms, then
//! the byte strings program, cwd, `u32` argument count and the arguments, `u32` environment count
//! and each key and value; every byte string is a `u32` length and its bytes.

use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::PathBuf;
use std::time::Duration;

use crate::{SpawnSpec, StdinMode};

/// Most bytes an order may take. Linux passes at most a few MiB of argv and environment
/// together (`ARG_MAX`, a quarter of the stack limit), so a larger order could not run anyway.
pub(crate) const MAX_ORDER_BYTES: usize = 16 * 1024 * 1024;

/// Encodes `spec`; `Err` when it exceeds [`MAX_ORDER_BYTES`].
pub(crate) fn encode(spec: &SpawnSpec) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(256);
    out.push(match spec.stdin {
        StdinMode::Null => 0,
        StdinMode::Pipe => 1,
    });
    let grace_ms = u64::try_from(spec.grace.as_millis()).unwrap_or(u64::MAX);
    out.extend_from_slice(&grace_ms.to_le_bytes());
    let put = |out: &mut Vec<u8>, b: &[u8]| -> Result<(), String> {
        let len = u32::try_from(b.len()).map_err(|_| "an order string exceeds 4 GiB")?;
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(b);
        if out.len() > MAX_ORDER_BYTES {
            return Err(format!(
                "the run's argv and environment exceed {MAX_ORDER_BYTES} bytes"
            ));
        }
        Ok(())
    };
    put(&mut out, spec.program.as_os_str().as_bytes())?;
    put(&mut out, spec.cwd.as_os_str().as_bytes())?;
    let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX).to_le_bytes();
    out.extend_from_slice(&count(spec.args.len()));
    for a in &spec.args {
        put(&mut out, a.as_bytes())?;
    }
    out.extend_from_slice(&count(spec.env.len()));
    for (k, v) in &spec.env {
        put(&mut out, k.as_bytes())?;
        put(&mut out, v.as_bytes())?;
    }
    Ok(out)
}

/// Decodes an order (the supervisor's side); `Err` says what is wrong with it.
pub(crate) fn decode(bytes: &[u8]) -> Result<SpawnSpec, String> {
    let mut r = Reader { bytes, at: 0 };
    let stdin = match r.take(1)?[0] {
        0 => StdinMode::Null,
        1 => StdinMode::Pipe,
        other => return Err(format!("unknown stdin mode {other} in the run order")),
    };
    let grace = Duration::from_millis(r.u64()?);
    let program = PathBuf::from(r.string()?);
    let cwd = PathBuf::from(r.string()?);
    let n = r.u32()?;
    let mut args = Vec::new();
    for _ in 0..n {
        args.push(r.string()?);
    }
    let n = r.u32()?;
    let mut env = Vec::new();
    for _ in 0..n {
        env.push((r.string()?, r.string()?));
    }
    if r.at != bytes.len() {
        return Err("trailing bytes after the run order".into());
    }
    Ok(SpawnSpec {
        program,
        args,
        cwd,
        env,
        grace,
        stdin,
    })
}

/// A cursor over the order's bytes; every read is checked against the end.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or("the run order ends early")?;
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }

    fn u32(&mut self) -> Result<u32, String> {
        let mut b = [0u8; 4];
        b.copy_from_slice(self.take(4)?);
        Ok(u32::from_le_bytes(b))
    }

    fn u64(&mut self) -> Result<u64, String> {
        let mut b = [0u8; 8];
        b.copy_from_slice(self.take(8)?);
        Ok(u64::from_le_bytes(b))
    }

    fn string(&mut self) -> Result<OsString, String> {
        let n = usize::try_from(self.u32()?).map_err(|e| e.to_string())?;
        Ok(OsString::from_vec(self.take(n)?.to_vec()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> SpawnSpec {
        SpawnSpec {
            program: "/usr/bin/claude".into(),
            args: vec![
                "-p".into(),
                "--".into(),
                OsString::from_vec(vec![0xff, b'x']),
            ],
            cwd: "/tmp/w d".into(),
            env: vec![("PATH".into(), "/bin".into()), ("EMPTY".into(), "".into())],
            grace: Duration::from_millis(2500),
            stdin: StdinMode::Pipe,
        }
    }

    #[test]
    fn an_order_round_trips_with_arbitrary_bytes() {
        let s = spec();
        let back = decode(&encode(&s).unwrap()).unwrap();
        assert_eq!(back.program, s.program);
        assert_eq!(back.args, s.args);
        assert_eq!(back.cwd, s.cwd);
        assert_eq!(back.env, s.env);
        assert_eq!(back.grace, s.grace);
        assert_eq!(back.stdin, s.stdin);
    }

    #[test]
    fn a_cut_or_padded_order_is_refused() {
        let bytes = encode(&spec()).unwrap();
        for cut in [0, 1, 9, bytes.len() - 1] {
            assert!(decode(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut padded = bytes.clone();
        padded.push(0);
        assert!(decode(&padded).is_err());
        let mut bad_mode = bytes;
        bad_mode[0] = 7;
        assert!(decode(&bad_mode).is_err());
    }

    #[test]
    fn an_order_over_the_bound_is_refused_when_encoded() {
        let mut s = spec();
        s.args = vec![OsString::from("x".repeat(1024 * 1024)); 17];
        assert!(encode(&s).is_err());
    }
}
