//! The expected-failures baseline: plain text, one case id per line, `#` comments. Strict both
//! ways: an unlisted failure fails, and a listed case that passes fails too (stale), so the
//! baseline always says exactly what is known to be broken.

use std::collections::BTreeSet;
use std::path::Path;

/// A baseline could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BaselineError {
    /// The file could not be read.
    #[error("cannot read baseline {path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// A line is not a case id.
    #[error("baseline {path} line {line}: {text:?} is not a case id")]
    Syntax {
        /// The file.
        path: String,
        /// 1-based line number.
        line: usize,
        /// The offending text.
        text: String,
    },
}

/// The ids listed in a baseline.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Baseline {
    /// Listed case ids.
    pub ids: BTreeSet<String>,
}

impl Baseline {
    /// Reads a baseline file.
    pub fn load(path: &Path) -> Result<Self, BaselineError> {
        let text = std::fs::read_to_string(path).map_err(|source| BaselineError::Read {
            path: path.display().to_string(),
            source,
        })?;
        Self::parse(&text).map_err(|(line, text)| BaselineError::Syntax {
            path: path.display().to_string(),
            line,
            text,
        })
    }

    /// Parses baseline text; `Err((line, text))` names the first line that is not an id.
    pub fn parse(text: &str) -> Result<Self, (usize, String)> {
        let mut ids = BTreeSet::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let valid = line
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '-' | '_' | '.'));
            if !valid {
                return Err((i + 1, line.to_owned()));
            }
            ids.insert(line.to_owned());
        }
        Ok(Self { ids })
    }

    /// Whether `id` is listed.
    #[must_use]
    pub fn lists(&self, id: &str) -> bool {
        self.ids.contains(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_blank_lines_are_ignored() {
        let b = Baseline::parse("# known\n\njsonrpc/malformed/parse-error  # T4\n").unwrap();
        assert!(b.lists("jsonrpc/malformed/parse-error"));
        assert_eq!(b.ids.len(), 1);
    }

    #[test]
    fn a_line_with_spaces_inside_is_rejected() {
        assert_eq!(Baseline::parse("a b\n").unwrap_err().0, 1);
    }
}
