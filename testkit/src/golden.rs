//! Golden files with one meaning of `BLESS` for every crate: `BLESS=1` (or `BLESS=true`)
//! rewrites the golden file (or remakes a recording) and then compares as always, so a blessed
//! run still proves the comparison passes; any other value, or none, only compares. A mismatch
//! writes `<golden>.actual` beside the golden file and fails with a unified diff.

use std::path::{Path, PathBuf};

/// The environment variable that rewrites golden files.
pub const BLESS: &str = "BLESS";

/// `true` when `BLESS=1` or `BLESS=true`: rewrite (remake) golden files, then compare.
#[must_use]
pub fn blessing() -> bool {
    std::env::var(BLESS).is_ok_and(|v| v == "1" || v == "true")
}

/// A unified diff (4 lines of context) from `expected` to `actual` under the two headers, or
/// `None` when they are equal.
#[must_use]
pub fn diff(
    expected: &str,
    actual: &str,
    expected_header: &str,
    actual_header: &str,
) -> Option<String> {
    if expected == actual {
        return None;
    }
    Some(
        similar::TextDiff::from_lines(expected, actual)
            .unified_diff()
            .context_radius(4)
            .header(expected_header, actual_header)
            .to_string(),
    )
}

/// Where a mismatch's actual text goes: `<golden>.actual` beside the golden file.
#[must_use]
pub fn actual_path(golden: &Path) -> PathBuf {
    let mut p = golden.as_os_str().to_owned();
    p.push(".actual");
    PathBuf::from(p)
}

/// Compares `actual` with the golden file at `path` (after rewriting it under [`blessing`]).
///
/// # Panics
/// On a mismatch (after writing [`actual_path`]) with a unified diff, or when the golden file
/// cannot be read or written.
pub fn check(path: &Path, actual: &str) {
    if blessing() {
        std::fs::write(path, actual)
            .unwrap_or_else(|e| panic!("writing golden {}: {e}", path.display()));
    }
    let expected = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e} (regenerate with BLESS=1)", path.display()));
    let Some(diff) = diff(&expected, actual, "golden", "actual") else {
        let _ = std::fs::remove_file(actual_path(path));
        return;
    };
    let written = actual_path(path);
    let _ = std::fs::write(&written, actual);
    panic!(
        "{} differs from the golden file (BLESS=1 regenerates it; the actual text is in {}):\n{diff}",
        path.display(),
        written.display()
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_texts_have_no_diff_and_different_ones_show_both_sides() {
        assert_eq!(diff("a\nb\n", "a\nb\n", "x", "y"), None);
        let d = diff("a\nb\n", "a\nc\n", "golden", "actual").unwrap_or_default();
        assert!(d.contains("--- golden") && d.contains("+++ actual"), "{d}");
        assert!(d.contains("-b") && d.contains("+c"), "{d}");
    }

    #[test]
    fn a_matching_golden_passes_and_a_different_one_fails_with_the_actual_beside_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g.txt");
        std::fs::write(&path, "one\n").unwrap();
        if !blessing() {
            check(&path, "one\n");
            let failed = std::panic::catch_unwind(|| check(&path, "two\n"));
            assert!(failed.is_err());
            assert_eq!(
                std::fs::read_to_string(actual_path(&path)).unwrap(),
                "two\n"
            );
            assert_eq!(std::fs::read_to_string(&path).unwrap(), "one\n");
        }
    }
}
