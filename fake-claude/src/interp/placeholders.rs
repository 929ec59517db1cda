//! `{{name}}` placeholders inside scenario strings, filled from the invocation: the session id the
//! real CLI would use, the working directory, the model, the prompt, fresh UUIDs, env values.
//! Only string values are touched (never keys), so key order and types stay as scripted.

use serde_json::Value;

/// Values known for this invocation.
#[derive(Clone, Debug, Default)]
pub struct Vars {
    /// `(name, value)`; later entries shadow earlier ones (repeat indexes push `i`).
    pub fixed: Vec<(String, String)>,
}

impl Vars {
    pub fn set(&mut self, name: &str, value: impl Into<String>) {
        let value = value.into();
        match self.fixed.iter_mut().find(|(n, _)| n == name) {
            Some((_, v)) => *v = value,
            None => self.fixed.push((name.to_owned(), value)),
        }
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.fixed
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The value of one placeholder; `None` leaves `{{name}}` in place.
    fn lookup(&self, name: &str) -> Option<String> {
        match name {
            "uuid" => Some(uuid::Uuid::new_v4().to_string()),
            "timestamp" => Some(timestamp()),
            _ => match name.strip_prefix("env:") {
                Some(var) => Some(std::env::var(var).unwrap_or_default()),
                None => self.get(name).map(str::to_owned),
            },
        }
    }

    /// Fills every known `{{name}}` in `s`.
    pub fn fill(&self, s: &str) -> String {
        if !s.contains("{{") {
            return s.to_owned();
        }
        let mut out = String::with_capacity(s.len());
        let mut rest = s;
        while let Some(open) = rest.find("{{") {
            out.push_str(&rest[..open]);
            let after = &rest[open + 2..];
            match after
                .find("}}")
                .and_then(|close| self.lookup(&after[..close]).map(|v| (v, close)))
            {
                Some((value, close)) => {
                    out.push_str(&value);
                    rest = &after[close + 2..];
                }
                None => {
                    out.push_str("{{");
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        out
    }

    /// A copy of `v` with every string value filled.
    pub fn fill_value(&self, v: &Value) -> Value {
        match v {
            Value::String(s) => Value::String(self.fill(s)),
            Value::Array(items) => Value::Array(items.iter().map(|i| self.fill_value(i)).collect()),
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| (k.clone(), self.fill_value(v)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }
}

/// The current time as the real CLI writes it: `2026-11-30T02:34:39.617Z`.
fn timestamp() -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let secs = now.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(i64::try_from(days).unwrap_or(0));
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        now.subsec_millis()
    )
}

/// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = u32::try_from(doy - (153 * mp + 2) / 5 + 1).unwrap_or(1);
    let m = u32::try_from(if mp < 10 { mp + 3 } else { mp - 9 }).unwrap_or(1);
    (era * 400 + yoe + i64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_known_and_keeps_unknown_placeholders() {
        let mut v = Vars::default();
        v.set("session_id", "abc");
        assert_eq!(v.fill("id={{session_id}} x={{nope}}"), "id=abc x={{nope}}");
        assert_ne!(v.fill("{{uuid}}"), v.fill("{{uuid}}"));
    }

    #[test]
    fn dates_are_gregorian() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_787), (2026, 11, 30));
    }
}
