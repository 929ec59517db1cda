//! Revisions: the one case that grades which MCP revisions a server supports (T2, MCP
//! basic/lifecycle version negotiation), and the instances of the cases whose rule changed
//! between revisions ([`expand`]: `ID@DATE`, each graded on a connection of its revision, or
//! `skip: revision not supported`).

use super::support::ensure;
use crate::core::case::case;
use crate::core::model::{Check, CheckResult, Level};
use crate::core::select::glob_match;
use crate::mcp::ctx::Ctx;
use crate::mcp::gate::Case;
use crate::mcp::profile::Levels;
use crate::mcp::revision::{Applies, Era, Graded, Revision, applies};

/// The id of the case that grades the revisions found (its transcript shows the probes).
pub const SUPPORT_CASE: &str = "lifecycle/initialize/revisions";

/// The reason of an instance whose revision the server does not support.
pub const NOT_SUPPORTED: &str = "revision not supported";

/// The cases of this section (part of `lifecycle`).
pub const CASES: &[Case] = &[case!(
    "lifecycle/initialize/revisions",
    "T2 (MCP basic/lifecycle: \"the server MUST respond with another protocol version it supports\")",
    Levels::all(Level::Must),
    Discovery,
    "Offered each known revision (each handshake date by initialize, 2026-07-28 by server/discover in its envelope), the server supports at least one, and never answers a date it was not offered that no revision defines",
    supported_revisions[]
)];

async fn supported_revisions(ctx: Ctx) -> CheckResult {
    let support = &ctx.support;
    if let Some(o) = support.undefined_answers().first() {
        return Err(Check::fail(
            "each offer answered with the offered date or another known revision's (T2)",
            format!(
                "{}: a date it was not offered and no MCP revision defines ({})",
                o.shown(),
                support.shown()
            ),
        ));
    }
    ensure(
        !support.supported().is_empty(),
        format!(
            "at least one known revision supported: a handshake date echoed, or a \
             server/discover result (known: {})",
            Revision::known_dates()
        ),
        format!("none supported ({})", support.shown()),
    )?;
    Ok(Check::Pass)
}

/// When a server answered the proposal `asked` with `answered`, a date neither offered nor
/// defined by any MCP revision: that answer is graded once, by
/// `lifecycle/initialize/revisions` (T2, MCP basic/lifecycle: "another protocol version it
/// supports"), so a case that needed the revision negotiated is blocked by it rather than
/// graded on a version that does not exist (`fallback` stands if that case passed).
pub fn undefined_revision(asked: &str, answered: &str, fallback: Check) -> Result<(), Check> {
    if !answered.is_empty()
        && answered != asked
        && crate::mcp::revision::Revision::parse(answered).is_none()
    {
        return Err(Check::blocked(SUPPORT_CASE, fallback));
    }
    Ok(())
}

/// `cases` graded per revision: a case of a revision not chosen is left out; a case that
/// changed ([`Applies::Also`]) gets an instance `ID@DATE` per chosen revision where it changed,
/// which says `skip: revision not supported` when the server does not support that revision.
/// Revision-independent cases stay once (when a handshake revision is chosen). `globs` are the
/// user's `--case` globs: an instance is kept when one matches it, or matches its case and
/// names no instance (`ID@…`).
#[must_use]
pub fn expand(cases: Vec<Case>, graded: &Graded, globs: &[String]) -> Vec<Case> {
    let wanted = |instance: &str, base: &str| {
        globs.is_empty()
            || globs
                .iter()
                .any(|g| glob_match(g, instance) || (!g.contains('@') && glob_match(g, base)))
    };
    let mut out = Vec::with_capacity(cases.len());
    for case in cases {
        // A cross-cutting rule holds on every exchange, whatever the revision; the probes'
        // verdict is about every revision.
        if case.needs.crosscut() || case.id == SUPPORT_CASE {
            out.push(case);
            continue;
        }
        // A server of the stateless era alone: each handshake-era case a handshake revision
        // would grade says `skip: revision not supported`.
        let handshake_chosen = graded.chosen.iter().any(|r| r.era() == Era::Handshake);
        let unsupported = |case: Case| Case {
            check: |_| Box::pin(async { Err(Check::skip(NOT_SUPPORTED)) }),
            ..case
        };
        match applies(case.id) {
            Applies::Pinned(r) => {
                if graded.chosen(r) && graded.modern_only() && r.era() == Era::Handshake {
                    out.push(unsupported(case));
                } else if graded.chosen(r) {
                    out.push(case);
                }
            }
            Applies::Once => {
                if graded.once {
                    out.push(case);
                } else if graded.modern_only() && handshake_chosen {
                    out.push(unsupported(case));
                }
            }
            Applies::Also(revisions) => {
                if graded.once && wanted(case.id, case.id) {
                    out.push(case);
                } else if graded.modern_only() && handshake_chosen && wanted(case.id, case.id) {
                    out.push(unsupported(case));
                }
                for &r in revisions {
                    // The case itself is graded on the base revision: no instance of it twice.
                    if !graded.chosen(r) || (graded.once && r == graded.base) {
                        continue;
                    }
                    let instance = instance(case, r, graded.supported.contains(&r));
                    if wanted(instance.id, case.id) {
                        out.push(instance);
                    }
                }
            }
        }
    }
    out
}

/// Whether a baseline may list `id`: a case of `all`, an instance `ID@DATE` of a revision its
/// rule changed in, or `ID@FAMILY` of a case (the families are known only once the server
/// lists its tools, so any tail that names no revision).
#[must_use]
pub fn known_id(all: &[Case], id: &str) -> bool {
    let is_case = |id: &str| all.iter().any(|c| c.id == id);
    match id.split_once('@') {
        None => is_case(id),
        Some((base, tail)) => {
            is_case(base)
                && match Revision::parse(tail) {
                    Some(r) => matches!(applies(base), Applies::Also(rs) if rs.contains(&r)),
                    None => true,
                }
        }
    }
}

/// Case `case`'s instance for revision `r`.
fn instance(case: Case, r: Revision, supported: bool) -> Case {
    // Instances live for the whole run; there are a handful.
    let id: &'static str = Box::leak(format!("{}@{r}", case.id).into_boxed_str());
    let mut instance = Case { id, ..case };
    if !supported {
        instance.check = |_| Box::pin(async { Err(Check::skip(NOT_SUPPORTED)) });
    }
    instance
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graded(chosen: &[Revision], supported: &[Revision]) -> Graded {
        Graded::new(
            chosen.to_vec(),
            supported.to_vec(),
            Some(Revision::R2025_06_18),
        )
    }

    #[test]
    fn every_case_of_the_revision_table_is_in_the_catalogue_and_names_a_pinned_revision() {
        let all = crate::mcp::catalogue::all();
        for (id, applies) in crate::mcp::revision::APPLIES {
            assert!(all.iter().any(|c| c.id == *id), "{id} is no case");
            if let Applies::Pinned(r) = applies {
                assert!(id.contains(r.date()), "{id} does not name {r}");
            }
        }
    }

    #[test]
    fn changed_cases_get_an_instance_per_chosen_revision_and_the_rest_stay_once() {
        let all = crate::mcp::catalogue::all();
        let out = expand(
            all.clone(),
            &graded(&Revision::ALL, &Revision::HANDSHAKE),
            &[],
        );
        let ids: Vec<&str> = out.iter().map(|c| c.id).collect();
        assert!(ids.contains(&"resources/read/unknown"));
        assert!(ids.contains(&"resources/read/unknown@2026-07-28"));
        assert!(ids.contains(&"tools/call/wrong-typed-arguments@2025-11-25"));
        assert_eq!(out.len(), all.len() + 2);
        // Only 2026-07-28: the cases of the handshake revisions are left out, the cross-cutting
        // rules stay.
        let out = expand(all, &graded(&[Revision::R2026_07_28], &Revision::ALL), &[]);
        assert!(
            out.iter()
                .any(|c| c.id == "resources/read/unknown@2026-07-28")
        );
        assert!(!out.iter().any(|c| c.id == "resources/read/unknown"));
        assert!(!out.iter().any(|c| c.id == "jsonrpc/batch/2025-03-26"));
        assert!(out.iter().any(|c| c.id == "lifecycle/stdout/protocol-only"));
    }
}
