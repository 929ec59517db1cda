//! The `(Did you mean --verbose?)` line claude appends to an unknown long option, reproduced from
//! its parser: optimal-string-alignment distance at most 3 (ties at the best distance all kept),
//! similarity above 0.4, candidates of two characters or more, sorted with `localeCompare`.

use std::cmp::Ordering;

const MAX_DISTANCE: usize = 3;
const MIN_SIMILARITY: f64 = 0.4;

/// The suffix for `error: unknown option '<flag>'`, or `""`.
pub fn suggestion(flag: &str, candidates: &[&str]) -> String {
    let prefix = if flag.starts_with("--") { "--" } else { "" };
    let word: Vec<char> = flag[prefix.len()..].chars().collect();
    let mut best = MAX_DISTANCE;
    let mut similar: Vec<String> = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for &candidate in candidates {
        if seen.contains(&candidate) {
            continue;
        }
        seen.push(candidate);
        let stripped: Vec<char> = candidate.chars().skip(prefix.len()).collect();
        let distance = osa_distance(&word, &stripped);
        let longest = word.len().max(stripped.len());
        if stripped.len() < 2 || distance > best {
            continue;
        }
        let similarity = (longest - distance) as f64 / longest as f64;
        if similarity <= MIN_SIMILARITY {
            continue;
        }
        if distance < best {
            best = distance;
            similar.clear();
        }
        similar.push(stripped.into_iter().collect());
    }
    if similar.is_empty() {
        return String::new();
    }
    similar.sort_by(|a, b| locale_compare(a, b));
    let list: Vec<String> = similar.iter().map(|s| format!("{prefix}{s}")).collect();
    let one_of = if list.len() > 1 { "one of " } else { "" };
    format!("\n(Did you mean {one_of}{}?)", list.join(", "))
}

/// Levenshtein distance with adjacent transpositions (optimal string alignment).
fn osa_distance(a: &[char], b: &[char]) -> usize {
    let (n, m) = (a.len(), b.len());
    let mut d = vec![vec![0usize; m + 1]; n + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=n {
        for j in 1..=m {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[n][m]
}

/// An approximation of ICU root collation for flag names: punctuation before digits before
/// letters, letters compared case-insensitively first, lower case before upper case on a tie.
fn locale_compare(a: &str, b: &str) -> Ordering {
    fn primary(c: char) -> (u8, char) {
        if c.is_alphabetic() {
            (2, c.to_ascii_lowercase())
        } else if c.is_ascii_digit() {
            (1, c)
        } else {
            (0, c)
        }
    }
    let pa: Vec<_> = a.chars().map(primary).collect();
    let pb: Vec<_> = b.chars().map(primary).collect();
    pa.cmp(&pb).then_with(|| {
        // Tertiary level: at the first case difference, lower case sorts first.
        for (x, y) in a.chars().zip(b.chars()) {
            if x != y {
                return y.is_lowercase().cmp(&x.is_lowercase());
            }
        }
        Ordering::Equal
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_close_typo_gets_one_suggestion() {
        let c = ["--verbose", "--version", "--print"];
        assert_eq!(suggestion("--verbos", &c), "\n(Did you mean --verbose?)");
        assert_eq!(suggestion("--verbose=1", &c), "\n(Did you mean --verbose?)");
    }

    #[test]
    fn nothing_close_gets_nothing() {
        assert_eq!(
            suggestion("--bogus-flag", &["--verbose", "--print", "--model"]),
            ""
        );
    }

    #[test]
    fn ties_are_all_listed_sorted() {
        let got = suggestion("--tol", &["--tools", "--tool", "--toll"]);
        assert_eq!(got, "\n(Did you mean one of --toll, --tool?)");
    }
}
