//! One defect, one verdict: a finished case blocked by another ([`Check::Blocked`]) stays a
//! `skip` with `blocked_by` only when its blocker ran and failed; chains name the failure at
//! their end ([`resolve_blocked`]). Used by the scheduler once every case has finished.

use crate::core::model::Check;

/// A finished case whose verdict may be a [`Check::Blocked`].
pub trait Blockable {
    /// The case's id.
    fn case_id(&self) -> &'static str;
    /// The case's verdict.
    fn verdict(&mut self) -> &mut Check;
}

/// One defect, one verdict: a case blocked by another stays a `skip` (with `blocked_by`) only
/// when that case ran and failed in this run; otherwise (not selected, passed, skipped) it is
/// graded by the failure it would have been, so a selection never turns a defect green. A case
/// blocked by a case that is itself blocked names the failure at the end of the chain (the one
/// whose fix grades both), and is graded by its own fallback when that chain ends elsewhere.
pub fn resolve_blocked<T: Blockable>(ran: &mut [T]) {
    // A case blocked by itself is the one that grades the missing precondition: its fallback
    // is its verdict (a shared precondition check names one case for all).
    for r in ran.iter_mut() {
        let own = r.case_id();
        while let Check::Blocked { by, fallback } = r.verdict()
            && *by == own
        {
            let fallback = (**fallback).clone();
            *r.verdict() = fallback;
        }
    }
    // Until nothing changes: a case blocked by a failure stays blocked; one blocked by a case
    // that neither failed nor is blocked takes its fallback (which may be a failure blocking
    // others); one blocked by a blocked case waits for that one.
    loop {
        let (failed, blocker) = blocking_state(ran);
        let mut changed = false;
        for r in ran.iter_mut() {
            if let Check::Blocked { by, fallback } = r.verdict()
                && !failed.contains(&*by)
                && !blocker.contains_key(&*by)
            {
                let fallback = (**fallback).clone();
                *r.verdict() = fallback;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    // What is left blocked leads, through blocked cases, to a failure (named instead), or is a
    // cycle of cases blocking each other (each graded by its fallback).
    let (failed, blocker) = blocking_state(ran);
    for r in ran.iter_mut() {
        let Check::Blocked { by, fallback } = r.verdict() else {
            continue;
        };
        let mut at: &'static str = by;
        for _ in 0..=blocker.len() {
            if failed.contains(at) {
                break;
            }
            match blocker.get(at) {
                Some(next) => at = next,
                None => break,
            }
        }
        if failed.contains(at) {
            *by = at;
        } else {
            let fallback = (**fallback).clone();
            *r.verdict() = fallback;
        }
    }
}

/// The failed cases, and each blocked case's blocker.
fn blocking_state<T: Blockable>(
    ran: &mut [T],
) -> (
    std::collections::HashSet<&'static str>,
    std::collections::HashMap<&'static str, &'static str>,
) {
    let mut failed = std::collections::HashSet::new();
    let mut blocker = std::collections::HashMap::new();
    for r in ran.iter_mut() {
        let id = r.case_id();
        match r.verdict() {
            Check::Blocked { by, .. } => {
                blocker.insert(id, *by);
            }
            v if v.is_fail() => {
                failed.insert(id);
            }
            _ => {}
        }
    }
    (failed, blocker)
}

#[cfg(test)]
mod tests {
    use super::*;

    struct R(&'static str, Check);
    impl Blockable for R {
        fn case_id(&self) -> &'static str {
            self.0
        }
        fn verdict(&mut self) -> &mut Check {
            &mut self.1
        }
    }

    #[test]
    fn a_blocked_case_stays_a_skip_only_when_its_blocker_failed() {
        let blocked = |by| Check::blocked(by, Check::fail("x", "y"));
        let mut ran = [
            R("a", Check::fail("e", "a")),
            R("b", Check::Pass),
            R("c", blocked("a")),
            R("d", blocked("b")),
        ];
        resolve_blocked(&mut ran);
        assert!(matches!(ran[2].1, Check::Blocked { by: "a", .. }));
        assert!(ran[3].1.is_fail(), "{:?}", ran[3].1);
        // A precondition shared by every case names one of them: that one fails with it, and
        // the others are blocked by it.
        let mut ran = [R("p", blocked("p")), R("q", blocked("p"))];
        resolve_blocked(&mut ran);
        assert!(ran[0].1.is_fail(), "{:?}", ran[0].1);
        assert!(matches!(ran[1].1, Check::Blocked { by: "p", .. }));
    }

    #[test]
    fn a_chain_of_blocked_cases_names_the_failure_at_its_end() {
        let blocked = |by| Check::blocked(by, Check::fail("x", "y"));
        // x waits on y, which waits on the failure z: both are blocked by z.
        let mut ran = [
            R("x", blocked("y")),
            R("y", blocked("z")),
            R("z", Check::fail("e", "z")),
        ];
        resolve_blocked(&mut ran);
        assert!(
            matches!(ran[0].1, Check::Blocked { by: "z", .. }),
            "{:?}",
            ran[0].1
        );
        assert!(matches!(ran[1].1, Check::Blocked { by: "z", .. }));
        // x waits on y, which waits on a pass: y fails by its fallback and blocks x.
        let mut ran = [
            R("x", blocked("y")),
            R("y", blocked("z")),
            R("z", Check::Pass),
        ];
        resolve_blocked(&mut ran);
        assert!(ran[1].1.is_fail(), "{:?}", ran[1].1);
        assert!(
            matches!(ran[0].1, Check::Blocked { by: "y", .. }),
            "{:?}",
            ran[0].1
        );
        // A cycle blocks nothing: each is graded by its fallback.
        let mut ran = [R("x", blocked("y")), R("y", blocked("x"))];
        resolve_blocked(&mut ran);
        assert!(ran[0].1.is_fail() && ran[1].1.is_fail());
    }
}
