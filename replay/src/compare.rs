//! Comparing two transcripts section by section: each section that differs is one
//! [`Difference`], named by its position (`c2s #3 request id=3 tools/call`) and shown as a unified
//! diff from the recording (`-`) to the replay (`+`).

use serde::Serialize;

use crate::transcript::Transcript;

/// Lines of context around each change in a unified diff.
pub const CONTEXT: usize = 4;

/// One section that differs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Difference {
    /// The section's position and title, e.g. `c2s #3 request id=3 tools/call`.
    pub position: String,
    /// A unified diff from the recorded section to the observed one.
    pub diff: String,
}

/// A unified diff (4 lines of context) from `expected` to `actual` under the two headers, or
/// `None` when they are equal.
#[must_use]
pub fn unified(
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
            .context_radius(CONTEXT)
            .header(expected_header, actual_header)
            .to_string(),
    )
}

/// Every section that differs between the recorded and the observed transcript, in the
/// recording's order, then sections only the replay has.
#[must_use]
pub fn differences(expected: &Transcript, observed: &Transcript) -> Vec<Difference> {
    let mut out = Vec::new();
    let mut used = vec![false; observed.sections.len()];
    for e in &expected.sections {
        let found = observed
            .sections
            .iter()
            .enumerate()
            .find(|(i, o)| !used[*i] && o.title == e.title);
        let observed_body = match found {
            Some((i, o)) => {
                used[i] = true;
                o.body.as_str()
            }
            None => "",
        };
        let header = format!("recording: {}", e.title);
        let theirs = if found.is_some() {
            format!("replay: {}", e.title)
        } else {
            "replay: (section missing)".to_owned()
        };
        if let Some(diff) = unified(&e.body, observed_body, &header, &theirs) {
            out.push(Difference {
                position: e.title.clone(),
                diff,
            });
        } else if found.is_none() {
            out.push(Difference {
                position: e.title.clone(),
                diff: format!("--- {header}\n+++ {theirs}\n"),
            });
        }
    }
    for (i, o) in observed.sections.iter().enumerate() {
        if used[i] {
            continue;
        }
        let diff = unified(
            "",
            &o.body,
            "recording: (section missing)",
            &format!("replay: {}", o.title),
        )
        .unwrap_or_else(|| {
            format!(
                "--- recording: (section missing)\n+++ replay: {}\n",
                o.title
            )
        });
        out.push(Difference {
            position: o.title.clone(),
            diff,
        });
    }
    out
}
