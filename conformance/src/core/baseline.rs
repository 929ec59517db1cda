//! The expected-failures baseline: plain text, one case id per line (an instance as `ID@DATE`
//! or `ID@FAMILY`), `#` comments. Strict both
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
    /// An id is listed twice: the baseline says exactly what is known to be broken, and a
    /// repeated line is usually a different id mistyped as this one.
    #[error("baseline {path} line {line}: {id:?} is already listed on line {first}")]
    Duplicate {
        /// The file.
        path: String,
        /// 1-based line number of the repetition.
        line: usize,
        /// 1-based line number of the first listing.
        first: usize,
        /// The id.
        id: String,
    },
    /// Ids that name no case of the runner: a typo, or a case removed or renamed. A usage
    /// error, never a failed case: the baseline is the workflow author's input.
    #[error(
        "baseline {path} lists ids of no case: {} (a typo, or a case removed or renamed)",
        ids.join(", ")
    )]
    Unknown {
        /// The file.
        path: String,
        /// The unknown ids.
        ids: Vec<String>,
    },
}

impl BaselineError {
    /// A baseline listing `ids`, which name no case of the runner.
    #[must_use]
    pub fn unknown(path: &Path, ids: Vec<String>) -> Self {
        Self::Unknown {
            path: path.display().to_string(),
            ids,
        }
    }
}

/// Why a baseline's text is not a baseline (line numbers 1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseError {
    /// Line `0` holds `1`, which is not a case id.
    NotAnId(usize, String),
    /// Line `line` repeats `id`, first listed on line `first`.
    Duplicate {
        /// The repetition.
        line: usize,
        /// The first listing.
        first: usize,
        /// The id.
        id: String,
    },
}

/// The ids listed in a baseline.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Baseline {
    /// Listed case ids.
    pub ids: BTreeSet<String>,
}

impl Baseline {
    /// Fails with [`BaselineError::Unknown`] when an id of the baseline read from `path` is not
    /// `known` (every case id of the runner, whatever `--case` selected: one baseline serves
    /// every shard).
    pub fn check_known(
        &self,
        path: &Path,
        known: impl Fn(&str) -> bool,
    ) -> Result<(), BaselineError> {
        let unknown: Vec<String> = self.ids.iter().filter(|id| !known(id)).cloned().collect();
        if unknown.is_empty() {
            Ok(())
        } else {
            Err(BaselineError::unknown(path, unknown))
        }
    }

    /// Reads a baseline file.
    pub fn load(path: &Path) -> Result<Self, BaselineError> {
        let text = std::fs::read_to_string(path).map_err(|source| BaselineError::Read {
            path: path.display().to_string(),
            source,
        })?;
        let path = path.display().to_string();
        Self::parse(&text).map_err(|e| match e {
            ParseError::NotAnId(line, text) => BaselineError::Syntax { path, line, text },
            ParseError::Duplicate { line, first, id } => BaselineError::Duplicate {
                path,
                line,
                first,
                id,
            },
        })
    }

    /// Parses baseline text; the error names the first line that is not an id or repeats one.
    pub fn parse(text: &str) -> Result<Self, ParseError> {
        let mut first_lines = std::collections::BTreeMap::new();
        // A byte-order mark some editors write is not part of the first id.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let slug = |part: &str| {
                !part.is_empty()
                    && part
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '-' | '_' | '.'))
            };
            // A case, or one instance of it: `ID@DATE` (a revision), `ID@FAMILY` (a tool family).
            let valid = match line.split_once('@') {
                Some((id, tail)) => slug(id) && slug(tail) && !tail.contains('/'),
                None => slug(line),
            };
            if !valid {
                return Err(ParseError::NotAnId(i + 1, line.to_owned()));
            }
            if let Some(first) = first_lines.insert(line.to_owned(), i + 1) {
                return Err(ParseError::Duplicate {
                    line: i + 1,
                    first,
                    id: line.to_owned(),
                });
            }
        }
        Ok(Self {
            ids: first_lines.into_keys().collect(),
        })
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
    fn instances_of_a_revision_or_a_family_are_ids() {
        let b = Baseline::parse(
            "tools/call/wrong-typed-arguments@2025-11-25
runs/x@cursor
",
        )
        .unwrap();
        assert!(b.lists("tools/call/wrong-typed-arguments@2025-11-25"));
        assert!(b.lists("runs/x@cursor"));
        for bad in ["a@", "@2025-11-25", "a@b@c", "a@b/c"] {
            assert_eq!(
                Baseline::parse(bad).unwrap_err(),
                ParseError::NotAnId(1, bad.into()),
                "{bad}"
            );
        }
    }

    #[test]
    fn a_line_with_spaces_inside_is_rejected() {
        assert_eq!(
            Baseline::parse("a b\n").unwrap_err(),
            ParseError::NotAnId(1, "a b".into())
        );
    }

    #[test]
    fn a_byte_order_mark_and_crlf_line_ends_are_not_part_of_ids() {
        let b = Baseline::parse("\u{feff}jsonrpc/ids/zero\r\njsonrpc/ids/string\r\n").unwrap();
        assert!(b.lists("jsonrpc/ids/zero") && b.lists("jsonrpc/ids/string"));
    }

    #[test]
    fn an_id_listed_twice_is_rejected_with_both_lines() {
        let text = "jsonrpc/ids/zero\n# again:\n  jsonrpc/ids/zero  # T3a\n";
        assert_eq!(
            Baseline::parse(text).unwrap_err(),
            ParseError::Duplicate {
                line: 3,
                first: 1,
                id: "jsonrpc/ids/zero".into()
            }
        );
    }

    #[test]
    fn ids_of_no_case_are_named_and_known_ones_pass() {
        let b = Baseline::parse("a/x\nb/y\nc/z\n").expect("a baseline");
        let path = Path::new("base.txt");
        assert!(b.check_known(path, |_| true).is_ok());
        let err = b
            .check_known(path, |id| id == "b/y")
            .expect_err("two unknown ids");
        assert_eq!(
            err.to_string(),
            "baseline base.txt lists ids of no case: a/x, c/z (a typo, or a case removed or renamed)"
        );
    }
}
