//! JavaScript's `Number(string)` conversion, which claude's numeric flags use: `--max-turns ''`
//! is 0 (accepted), `--max-turns 0x10` is 16, `--max-turns 12abc` is NaN (rejected). Rust's
//! `f64::from_str` differs (it takes `inf`, `nan`, and rejects `''`), hence this file.

/// Characters `String.prototype.trim` and `Number()` strip (WhiteSpace and LineTerminator).
fn is_js_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}

/// `String.prototype.trim`.
pub fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_space)
}

/// `Number(s)`; `None` stands for NaN.
pub fn number(s: &str) -> Option<f64> {
    let t = js_trim(s);
    if t.is_empty() {
        return Some(0.0);
    }
    for (prefix, radix) in [
        ("0x", 16),
        ("0X", 16),
        ("0o", 8),
        ("0O", 8),
        ("0b", 2),
        ("0B", 2),
    ] {
        if let Some(digits) = t.strip_prefix(prefix) {
            if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
                return None;
            }
            return Some(digits.chars().fold(0.0, |acc, c| {
                acc * f64::from(radix) + f64::from(c.to_digit(radix).unwrap_or(0))
            }));
        }
    }
    let (sign, body) = match t.as_bytes()[0] {
        b'+' => (1.0, &t[1..]),
        b'-' => (-1.0, &t[1..]),
        _ => (1.0, t),
    };
    if body == "Infinity" {
        return Some(sign * f64::INFINITY);
    }
    if !is_decimal_literal(body) {
        return None;
    }
    body.parse::<f64>().ok().map(|v| sign * v)
}

/// `StrUnsignedDecimalLiteral`: digits with an optional fraction, or a bare fraction, then an
/// optional exponent.
fn is_decimal_literal(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    let int_digits = count_digits(&b[i..]);
    i += int_digits;
    let mut frac_digits = 0;
    if b.get(i) == Some(&b'.') {
        i += 1;
        frac_digits = count_digits(&b[i..]);
        i += frac_digits;
    }
    if int_digits == 0 && frac_digits == 0 {
        return false;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let exp = count_digits(&b[i..]);
        if exp == 0 {
            return false;
        }
        i += exp;
    }
    i == b.len()
}

fn count_digits(b: &[u8]) -> usize {
    b.iter().take_while(|c| c.is_ascii_digit()).count()
}

/// claude's lenient integer reader for `--max-turns` and friends: `Number()`, else a grouped
/// integer such as `1,000` or `1_000` (same separator throughout, at most 32 characters).
pub fn lenient(s: &str) -> Option<f64> {
    if let Some(n) = number(s) {
        return Some(n);
    }
    let r = js_trim(s);
    if r.encode_utf16().count() > 32 {
        return None;
    }
    let body = r.strip_prefix(['+', '-']).unwrap_or(r);
    let negative = r.starts_with('-');
    let chars: Vec<char> = body.chars().collect();
    let lead = chars.iter().take_while(|c| c.is_ascii_digit()).count();
    if !(1..=3).contains(&lead) || chars.len() == lead {
        return None;
    }
    let sep = chars[lead];
    if !matches!(sep, '_' | ',' | '\u{a0}' | '\u{202f}' | ' ') {
        return None;
    }
    let rest = &chars[lead..];
    if !rest.len().is_multiple_of(4) {
        return None;
    }
    for group in rest.chunks(4) {
        if group[0] != sep || !group[1..].iter().all(char::is_ascii_digit) {
            return None;
        }
    }
    let digits: String = chars.iter().filter(|c| c.is_ascii_digit()).collect();
    digits
        .parse::<f64>()
        .ok()
        .map(|v| if negative { -v } else { v })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_matches_javascript() {
        assert_eq!(number(""), Some(0.0));
        assert_eq!(number(" "), Some(0.0));
        assert_eq!(number("1.5"), Some(1.5));
        assert_eq!(number("0x10"), Some(16.0));
        assert_eq!(number("-5"), Some(-5.0));
        assert_eq!(number("1e-3"), Some(0.001));
        assert_eq!(number(".5"), Some(0.5));
        assert_eq!(number("5."), Some(5.0));
        assert_eq!(number("Infinity"), Some(f64::INFINITY));
        assert_eq!(number("12abc"), None);
        assert_eq!(number("NaN"), None);
        assert_eq!(number("inf"), None);
        assert_eq!(number("-0x10"), None);
        assert_eq!(number("."), None);
        assert_eq!(number("1e"), None);
    }

    #[test]
    fn lenient_accepts_grouped_integers_only() {
        assert_eq!(lenient("1,000"), Some(1000.0));
        assert_eq!(lenient("1_000_000"), Some(1_000_000.0));
        assert_eq!(lenient("1,000_000"), None);
        assert_eq!(lenient("1,00"), None);
        assert_eq!(lenient("abc"), None);
    }
}
