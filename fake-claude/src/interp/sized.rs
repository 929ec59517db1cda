//! Lines of an exact size for the bounds of the adapter contract (BND-1: 1 MiB per stdout line,
//! BND-3: 128 KiB per final event), and floods of valid lines for throughput tests.

use serde_json::{Map, Value};

use super::placeholders::Vars;

/// Builds a valid JSON object of exactly `bytes` bytes (no newline): `fields` (placeholders
/// filled) with the string at JSON pointer `pad` grown with `x`, and `"type": kind` as the LAST
/// key, where the real CLI puts `type` late in a result (BND-3 needs a streaming scan to see it).
pub fn sized_line(
    bytes: usize,
    kind: &str,
    fields: &Map<String, Value>,
    pad: &str,
    vars: &Vars,
) -> Result<Vec<u8>, String> {
    let mut obj = match vars.fill_value(&Value::Object(fields.clone())) {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    obj.shift_remove("type");
    let mut value = Value::Object(obj);
    if value.pointer(pad).is_none() {
        // Create a top-level pad field when the pointer names one that is not there yet.
        let key = pad.trim_start_matches('/');
        if key.contains('/') {
            return Err(format!(
                "line pad pointer {pad:?} does not exist in the fields"
            ));
        }
        if let Some(m) = value.as_object_mut() {
            m.insert(
                key.replace("~1", "/").replace("~0", "~"),
                Value::String(String::new()),
            );
        }
    }
    if let Some(m) = value.as_object_mut() {
        m.insert("type".to_owned(), Value::String(kind.to_owned()));
    }
    let base = serde_json::to_vec(&value).map_err(|e| e.to_string())?.len();
    let grow = bytes.checked_sub(base).ok_or_else(|| {
        format!("line of {bytes} bytes is smaller than its fields ({base} bytes)")
    })?;
    match value.pointer_mut(pad) {
        Some(Value::String(s)) => s.push_str(&"x".repeat(grow)),
        _ => return Err(format!("line pad pointer {pad:?} must name a string")),
    }
    let line = serde_json::to_vec(&value).map_err(|e| e.to_string())?;
    if line.len() != bytes {
        return Err(format!(
            "internal: built {} bytes instead of {bytes}",
            line.len()
        ));
    }
    Ok(line)
}

/// How many MiB a flood writes: env `var` when it holds a number, else `default_mib`.
pub fn flood_mib(var: &str, default_mib: f64) -> f64 {
    std::env::var(var)
        .ok()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|m| m.is_finite() && *m >= 0.0)
        .unwrap_or(default_mib)
}

/// The bytes of a flood, produced as large buffers of whole copies of one line; `write` gets
/// each buffer and returns false to stop early (stdout gone).
pub fn flood(line: &[u8], mib: f64, mut write: impl FnMut(&[u8]) -> bool) {
    const BUFFER: usize = 1 << 20;
    if line.is_empty() {
        return;
    }
    // Lines needed to reach the size, rounded up to whole lines.
    let target = (mib * f64::from(1u32 << 20)).ceil();
    let lines_total = (target / line.len() as f64).ceil() as usize;
    let per_buffer = (BUFFER / line.len()).max(1);
    let buffer = line.repeat(per_buffer);
    let mut left = lines_total;
    while left > 0 {
        let n = left.min(per_buffer);
        if !write(&buffer[..n * line.len()]) {
            return;
        }
        left -= n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sized_lines_are_exact_and_end_with_type() {
        let mut fields = Map::new();
        fields.insert("subtype".into(), "success".into());
        fields.insert("result".into(), "".into());
        let line = sized_line(200_000, "result", &fields, "/result", &Vars::default()).unwrap();
        assert_eq!(line.len(), 200_000);
        assert!(line.ends_with(br#","type":"result"}"#));
        let v: Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(v["subtype"], "success");
    }

    #[test]
    fn floods_write_whole_lines_up_to_the_size() {
        let mut total = 0;
        flood(b"0123456789\n", 1.0, |b| {
            assert_eq!(b.len() % 11, 0);
            total += b.len();
            true
        });
        assert!((1 << 20..(1 << 20) + 11).contains(&total));
    }
}
