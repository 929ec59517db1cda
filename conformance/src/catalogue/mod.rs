//! The case catalogue: one file per section and one registry table ([`all`]). A case is data
//! (stable slug id, requirement, level per profile, description) plus a check function that
//! returns expected vs actual; ids never change meaning, new checks get new ids.

/// Builds a [`Case`](crate::model::Case) from its data and a check call (the context is passed
/// first, then the bracketed arguments); an optional last argument multiplies the timeout, and
/// an optional `; cost_ms N` declares a case well above its kind's cost (the start order only:
/// [`Case::cost`](crate::model::Case::cost)).
macro_rules! case {
    ($id:literal, $req:literal, $levels:expr, $needs:ident, $desc:expr,
     $check:path [$($arg:expr),*] $(, $factor:expr)? $(; cost_ms $cost:expr)?) => {
        $crate::model::Case {
            id: $id,
            requirement: $req,
            levels: $levels,
            description: $desc,
            needs: $crate::model::Needs::$needs,
            timeout_factor: case!(@factor $($factor)?),
            cost_ms: case!(@cost $($cost)?),
            check: |ctx| Box::pin($check(ctx $(, $arg)*)),
            family: None,
        }
    };
    (@factor) => { 1 };
    (@factor $f:expr) => { $f };
    (@cost) => { 0 };
    (@cost $c:expr) => { $c };
}

pub mod cancellation;
pub mod families;
pub mod gateway;
pub mod jsonrpc;
pub mod lifecycle;
pub mod liveness;
pub mod meta_continuation;
pub mod meta_risk;
pub mod meta_work;
pub mod resources;
pub mod run_session;
pub mod runs;
pub mod support;
pub mod tools;

use crate::model::Case;

/// Every case, in report order (sections in this order, cases in file order).
#[must_use]
pub fn all() -> Vec<Case> {
    [
        lifecycle::CASES,
        jsonrpc::CASES,
        liveness::CASES,
        tools::CASES,
        resources::CASES,
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
/// cross-cutting findings ([`crate::watch`]).
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
}
