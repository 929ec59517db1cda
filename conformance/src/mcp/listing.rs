//! The catalogue as text: the `--list` output and the Markdown table of `docs/conformance.md`
//! (checked by a test so the documentation cannot drift from the code).

use std::fmt::Write as _;

use crate::core::model::Level;
use crate::mcp::gate::Case;
use crate::mcp::profile::Profile;

fn level(l: Option<Level>) -> &'static str {
    l.map_or("-", Level::name)
}

/// `--list`: one case per line, `id  requirement  levels  description`. With a profile, only its
/// cases and its level; without, every case with `plain/provider/gateway` levels.
#[must_use]
pub fn text(cases: &[Case], profile: Option<Profile>) -> String {
    let width = cases.iter().map(|c| c.id.len()).max().unwrap_or(0);
    let mut out = String::new();
    for c in cases {
        let levels = match profile {
            Some(p) => level(c.levels.get(p)).to_owned(),
            None => format!(
                "{}/{}/{}",
                level(c.levels.plain),
                level(c.levels.provider),
                level(c.levels.gateway)
            ),
        };
        let _ = writeln!(
            out,
            "{:<width$}  {:<20}  {:<18}  {}",
            c.id, c.requirement, levels, c.description
        );
    }
    out
}

/// The Markdown catalogue table (levels per profile; `-` = not part of that profile).
#[must_use]
pub fn markdown(cases: &[Case]) -> String {
    let mut out = String::from(
        "| Case id | Requirement | plain | provider | gateway | What it checks |\n|---|---|---|---|---|---|\n",
    );
    for c in cases {
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} | {} | {} |",
            c.id,
            c.requirement,
            level(c.levels.plain),
            level(c.levels.provider),
            level(c.levels.gateway),
            c.description.replace('|', "\\|")
        );
    }
    out
}
