//! The case catalogue: one file per section and one registry table ([`all`]). A case is data
//! (stable slug id, requirement, level per profile, description) plus a check function that
//! returns expected vs actual; ids never change meaning, new checks get new ids.

pub mod cancellation;
pub mod families;
pub mod gateway;
pub mod jsonrpc;
pub mod lifecycle;
pub mod liveness;
pub mod logging;
pub mod long_connection;
pub mod meta_continuation;
pub mod meta_risk;
pub mod meta_work;
pub mod prompts;
pub mod resources;
pub mod rev_2025_11_25;
pub mod rev_2026_07_28;
pub mod revisions;
pub mod run_session;
pub mod runs;
pub mod support;
pub mod tools;

use crate::mcp::gate::Case;
use crate::mcp::profile::Profile;

/// The cases of `catalogue` that apply to `profile` and match any of `globs` (all when empty).
#[must_use]
pub fn select(catalogue: &[Case], profile: Profile, globs: &[String]) -> Vec<Case> {
    crate::core::select::select(catalogue, globs, |c| c.levels.get(profile).is_some())
}

/// `selected` with every cross-cutting case of `profile` added, in catalogue order: a shard run
/// with `--case` keeps the rules that hold on every exchange (stdout, ids, results), graded on
/// the exchanges the shard makes.
#[must_use]
pub fn with_crosscut(selected: &[Case], catalogue: &[Case], profile: Profile) -> Vec<Case> {
    catalogue
        .iter()
        .filter(|c| {
            selected.iter().any(|s| s.id == c.id)
                || (c.needs.crosscut() && c.levels.get(profile).is_some())
        })
        .copied()
        .collect()
}

/// Every case, in report order (sections in this order, cases in file order).
#[must_use]
pub fn all() -> Vec<Case> {
    [
        lifecycle::CASES,
        revisions::CASES,
        rev_2026_07_28::CASES,
        jsonrpc::CASES,
        long_connection::CASES,
        liveness::CASES,
        tools::CASES,
        rev_2025_11_25::CASES,
        resources::CASES,
        prompts::CASES,
        logging::CASES,
        cancellation::CASES,
        meta_risk::CASES,
        meta_work::CASES,
        meta_continuation::CASES,
        gateway::CASES,
        runs::CASES,
    ]
    .concat()
}

/// The place of case `id` in the catalogue, from 1 (0 is the discovery session): the order of
/// cross-cutting findings ([`crate::mcp::watch`]).
#[must_use]
pub fn position(id: &str) -> usize {
    static POSITIONS: std::sync::OnceLock<std::collections::HashMap<&'static str, usize>> =
        std::sync::OnceLock::new();
    POSITIONS
        .get_or_init(|| {
            all()
                .iter()
                .enumerate()
                .map(|(i, c)| (c.id, i + 1))
                .collect()
        })
        // A family's instance (`runs/…@cursor`) sits where its case does.
        .get(id.split('@').next().unwrap_or(id))
        .copied()
        .unwrap_or(usize::MAX)
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    #[test]
    fn ids_are_unique_slugs_and_every_case_applies_somewhere() {
        // RUNNER-7: a stable slug id, a requirement, a level, a description.
        let mut seen = HashSet::new();
        for c in super::all() {
            assert!(seen.insert(c.id), "duplicate id {}", c.id);
            assert!(
                c.id.chars()
                    .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || "/-.".contains(ch)),
                "id {} is not a slug",
                c.id
            );
            assert!(c.id.contains('/'), "id {} has no section", c.id);
            assert!(
                c.levels.plain.is_some()
                    || c.levels.provider.is_some()
                    || c.levels.gateway.is_some(),
                "{} applies to no profile",
                c.id
            );
            assert!(!c.requirement.is_empty() && !c.description.is_empty());
        }
    }

    #[test]
    fn every_rule_is_graded_by_a_cross_cutting_case_and_every_such_case_has_its_rule() {
        // `crate::mcp::watch::Rule::ALL` is what `counts_in` reads to keep probes apart: it must list every rule,
        // and the catalogue's cross-cutting cases are exactly the rules' cases.
        let crosscut: std::collections::BTreeSet<&str> = super::all()
            .iter()
            .filter(|c| c.needs.crosscut())
            .map(|c| c.id)
            .collect();
        let graded: std::collections::BTreeSet<&str> = crate::mcp::watch::Rule::ALL
            .iter()
            .map(|r| r.case_id())
            .collect();
        assert_eq!(graded, crosscut);
    }

    #[test]
    fn the_watch_knows_exactly_the_cross_cutting_cases_that_probe() {
        // `Rule::counts_in` keeps these apart by name: a case marked CrosscutProbe that the watch
        // does not list would feed the other probe's rule, whatever --jobs made run first.
        let probing: std::collections::BTreeSet<&str> = super::all()
            .iter()
            .filter(|c| c.needs == crate::core::case::Needs::CrosscutProbe)
            .map(|c| c.id)
            .collect();
        let listed: std::collections::BTreeSet<&str> =
            crate::mcp::watch::PROBES.into_iter().collect();
        assert_eq!(listed, probing);
    }
}
