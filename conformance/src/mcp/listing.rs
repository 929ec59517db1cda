//! The catalogue as text: the `--list` output and the Markdown table of `docs/conformance.md`
//! (checked by a test so the documentation cannot drift from the code).

use std::fmt::Write as _;

use crate::core::model::Level;
use crate::mcp::gate::Case;
use crate::mcp::profile::Profile;
use crate::mcp::revision;

fn level(l: Option<Level>) -> &'static str {
    l.map_or("-", Level::name)
}

/// The revisions a case is graded on: `every` for a rule over every exchange (the
/// cross-cutting ones) and for the revisions' own case, else [`revision::label`].
fn revision_label(c: &Case) -> String {
    if c.needs.crosscut() || c.id == crate::mcp::catalogue::revisions::SUPPORT_CASE {
        "every".to_owned()
    } else {
        revision::label(c.id)
    }
}

/// `--list`: one case per line, `id  requirement  levels  revision  description`. With a
/// profile, only its cases and its level; without, every case with `plain/provider/gateway`
/// levels. The revision is the date a case is graded on, `handshake` for a case graded once on
/// whichever handshake revision the server negotiates, or `every` for the cross-cutting rules
/// and the revisions' own case.
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
            "{:<width$}  {:<20}  {:<18}  {:<10}  {}",
            c.id,
            c.requirement,
            levels,
            revision_label(c),
            c.description
        );
    }
    out
}

/// The Markdown catalogue table (levels per profile; `-` = not part of that profile; the
/// transports a case runs over, [`crate::mcp::transport`]).
#[must_use]
pub fn markdown(cases: &[Case]) -> String {
    let mut out = String::from(
        "| Case id | Requirement | plain | provider | gateway | Revision | Transport | What it checks |\n|---|---|---|---|---|---|---|---|\n",
    );
    for c in cases {
        let transport = if crate::mcp::transport::stdio_only(c.id).is_some() {
            "stdio"
        } else {
            "both"
        };
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} | {} | {} | {} | {} |",
            c.id,
            c.requirement,
            level(c.levels.plain),
            level(c.levels.provider),
            level(c.levels.gateway),
            revision_label(c),
            transport,
            c.description.replace('|', "\\|")
        );
    }
    out
}
