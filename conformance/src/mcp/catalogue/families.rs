//! The run lifecycle of every tool family (C-PROV-3): a server that lists several families
//! (`claude.run…` and `cursor.run…`) has each one's run cases checked against its own tools and
//! its own fake. The first family keeps the cases' ids; every other family gets its instances as
//! `ID@FAMILY`. A case runs against a family of the other fake only when that fake has a
//! scenario that reproduces what the case checks ([`CURSOR`]); the rest are specific to
//! claude's print mode (its stream-json final, exit status, process tree) and are not
//! instantiated for a Cursor family, or skipped with that reason when Cursor's is the first.

use crate::core::model::Check;
use crate::core::select::glob_match;
use crate::mcp::gate::Case;
use crate::mcp::roles::{FakeKind, Family};

/// fake-claude scenario → the fake-cursor-agent scenario that produces the same outcome
/// through ACP (see fake-cursor-agent/README.md).
const CURSOR_SCENARIOS: [(&str, &str); 10] = [
    ("success", "default"),
    ("error-subtype", "prompt-error"),
    ("missing-final", "crash-midturn"),
    // A turn that goes on until cancelled: Cursor's real cancel capture (a 20 s stream that
    // answers `session/cancel` with `cancelled` at once), not `hang-midturn`, which also
    // ignores the cancel and so waits out the client's whole grace (ACP-7) in every case.
    ("hang-before-final", "cancel-midturn"),
    // RUN-11: stderr is the agent's log, drained and tailed like claude's.
    ("stderr-noise", "stderr-noise"),
    // BND-3 / C-ACP-2: Cursor's final is the prompt answer plus the agent_message_chunk text
    // (ACP-6), so an oversized final is message text over 128 KiB.
    ("oversized-final", "oversized-text"),
    // BND-1, BND-3 / C-ACP-2: one agent_message_chunk line over 1 MiB, never held: the message
    // text cannot be kept whole, so the run is oversized_final, never a success with cut text.
    ("huge-final", "oversized-chunk"),
    // BND-1 / ACP-1: an agent line over 1 MiB (a read's rawOutput) is omitted and counted.
    ("oversized-event", "oversized-read"),
    // BND-2, RUN-5: 300 session/update lines, more than the 256-event buffer.
    ("many-events", "many-chunks"),
    // T9: session/update lines spread over 2.4 s.
    ("slow-stream", "slow-chunks"),
];

/// The run cases that apply to a Cursor family: every scenario they use maps through
/// `CURSOR_SCENARIOS` (or they start no run). In catalogue order.
///
/// The other run cases stay claude-only, because what they check does not arise through ACP
/// or the fake cannot play it honestly:
/// - `runs/run/hooks-before-init`, `runs/outcome/is-error-success`, `…/duplicate-final`,
///   `…/malformed-final`, `…/final-without-session-id`, `…/final-without-result`: rules of
///   claude's stream-json (hook events before `system/init`, the `result` line's fields);
///   Cursor's final is the `session/prompt` answer (ACP-6, C-PROV-1), never read from an agent
///   line, so no line can be a second, malformed or incomplete final.
/// - `runs/outcome/nonzero-exit`: exit status is not part of an ACP run's outcome (ACP-6: the
///   client ends the agent); an agent that exits before answering is `missing-final@cursor`.
/// - `runs/timeout/hang-after-final`: cannot arise, the client kills the group once the prompt
///   is answered (ACP-7).
/// - `runs/cancel/ignore-sigterm`, `runs/supervision/grandchild`, `…/escaped-grandchild`,
///   `…/stdout-closed-early`: fake-cursor-agent has no step that ignores SIGTERM, forks or
///   closes stdout early, and the supervisor they check (SUP-1, SUP-3, SUP-4) is the one both
///   providers share, covered by the claude instances.
pub const CURSOR: [&str; 24] = [
    "runs/run/succeeded",
    "runs/run/result-shape",
    "runs/run/stderr-noise",
    "runs/outcome/error-subtype",
    "runs/outcome/missing-final",
    "runs/bounds/oversized-final",
    "runs/bounds/huge-final",
    "runs/bounds/oversized-event",
    "runs/bounds/event-buffer",
    "runs/events/stale-cursor",
    "runs/run/detach",
    "runs/read/failed-run-read-succeeds",
    "runs/list/retained",
    "runs/cancel/cancelled",
    "runs/cancel/already-settled",
    "runs/release/active",
    "runs/release/settled",
    "runs/capacity/active-limit",
    "runs/progress",
    "runs/eof/cancels-runs",
    "runs/sigterm/cancels-runs",
    "runs/args/prompt-empty",
    // Starts no run: cursor.run refuses it at `/permission_mode` (ACP-4 keeps NAT-5's modes).
    "runs/args/permission-bypass",
    "runs/args/unknown-argument",
];

/// The scenario of `kind`'s fake that plays fake-claude's `scenario`; the name itself when
/// there is none (a case that uses it is not instantiated for that fake).
#[must_use]
pub fn scenario(kind: FakeKind, scenario: &str) -> &str {
    match kind {
        FakeKind::Claude => scenario,
        FakeKind::Cursor => CURSOR_SCENARIOS
            .iter()
            .find(|(claude, _)| *claude == scenario)
            .map_or(scenario, |(_, cursor)| cursor),
    }
}

/// The line that selects `scenario` in `kind`'s fake: the first line of a prompt.
#[must_use]
pub fn selector(kind: FakeKind, scenario_name: &str) -> String {
    match kind {
        FakeKind::Claude => format!("fake-claude:scenario={scenario_name}"),
        FakeKind::Cursor => format!("scenario: {}", scenario(kind, scenario_name)),
    }
}

/// Whether the run case `id` applies to a family of `kind`.
#[must_use]
pub fn applies(kind: FakeKind, id: &str) -> bool {
    match kind {
        FakeKind::Claude => true,
        FakeKind::Cursor => CURSOR.contains(&id),
    }
}

/// The `native_error.source` values a failed run of `kind` may report (RUN-11; C-ACP-2 adds
/// `protocol` for an ACP agent's failures).
#[must_use]
pub fn native_sources(kind: FakeKind) -> &'static [&'static str] {
    match kind {
        FakeKind::Claude => &["result", "assistant", "stderr"],
        FakeKind::Cursor => &["protocol", "stderr"],
    }
}

/// The globs with any `@FAMILY` part removed: what selects the catalogue's cases before the
/// families are known.
#[must_use]
pub fn base_globs(globs: &[String]) -> Vec<String> {
    globs
        .iter()
        .map(|g| g.split('@').next().unwrap_or(g).to_owned())
        .collect()
}

/// The selected `cases` with the run cases instantiated per family. `families` come from
/// discovery; `globs` are the user's `--case` globs (an instance `ID@FAMILY` is kept when a
/// glob matches it, or matches `ID` and names no family).
#[must_use]
pub fn expand(cases: Vec<Case>, families: &[Family], globs: &[String]) -> Vec<Case> {
    let single_claude = families.len() <= 1 && families.iter().all(|f| f.fake == FakeKind::Claude);
    if single_claude {
        return cases;
    }
    // Instances live for the whole run; a listing has a handful of families.
    let families: Vec<&'static Family> = families
        .iter()
        .map(|f| &*Box::leak(Box::new(f.clone())))
        .collect();
    let wanted = |id: &str, base: &str| {
        globs.is_empty()
            || globs
                .iter()
                .any(|g| glob_match(g, id) || (!g.contains('@') && glob_match(g, base)))
    };
    let mut out = Vec::with_capacity(cases.len() * families.len());
    for case in cases {
        if case.section() != "runs" {
            out.push(case);
            continue;
        }
        for (i, family) in families.iter().enumerate() {
            let applies = applies(family.fake, case.id);
            if i == 0 {
                let mut first = Case {
                    variant: Some(family),
                    ..case
                };
                if !applies {
                    first.check = |_| {
                        Box::pin(async {
                            Err(Check::skip(
                                "the first tool family is driven by fake-cursor-agent, which \
                                 has no scenario for what this case checks (it is specific to \
                                 claude's print mode)",
                            ))
                        })
                    };
                }
                if wanted(first.id, case.id) {
                    out.push(first);
                }
                continue;
            }
            if !applies {
                continue;
            }
            let id: &'static str =
                Box::leak(format!("{}@{}", case.id, family_label(family)).into_boxed_str());
            let mut description = case.description.to_owned();
            for (claude, cursor) in CURSOR_SCENARIOS {
                if family.fake == FakeKind::Cursor {
                    description = description.replace(claude, cursor);
                }
            }
            let instance = Case {
                id,
                description: Box::leak(description.into_boxed_str()),
                variant: Some(family),
                ..case
            };
            if wanted(instance.id, case.id) {
                out.push(instance);
            }
        }
    }
    out
}

/// The name an instance id carries for `family` (`-` for the empty prefix).
fn family_label(family: &Family) -> &str {
    if family.name.is_empty() {
        "-"
    } else {
        &family.name
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::roles::Roles;
    use serde_json::{Value, json};

    fn listing(namespaces: &[&str]) -> Vec<Family> {
        let tools: Vec<Value> = namespaces
            .iter()
            .map(|ns| json!({"name": format!("{ns}.run"), "inputSchema": {"properties": {"prompt": {}}}}))
            .collect();
        Roles::find(&tools).families()
    }

    #[test]
    fn one_claude_family_leaves_the_catalogue_as_it_is() {
        let all = crate::mcp::catalogue::all();
        let out = expand(all.clone(), &listing(&["claude"]), &[]);
        assert_eq!(out.len(), all.len());
        assert!(out.iter().all(|c| c.variant.is_none()));
    }

    #[test]
    fn a_second_family_gets_the_run_cases_its_fake_can_play() {
        let all = crate::mcp::catalogue::all();
        let out = expand(all.clone(), &listing(&["claude", "cursor"]), &[]);
        let cursor: Vec<&str> = out
            .iter()
            .filter_map(|c| c.id.strip_suffix("@cursor"))
            .collect();
        assert_eq!(
            cursor, CURSOR,
            "in catalogue order, exactly the mapped cases"
        );
        assert_eq!(out.len(), all.len() + CURSOR.len());
        let bare = out
            .iter()
            .find(|c| c.id == "runs/run/succeeded")
            .expect("kept");
        assert_eq!(bare.variant.map(|f| f.name.as_str()), Some("claude"));
        let detach = out
            .iter()
            .find(|c| c.id == "runs/outcome/missing-final@cursor")
            .expect("instance");
        assert!(
            detach.description.contains("crash-midturn"),
            "{}",
            detach.description
        );
    }

    #[test]
    fn every_mapped_case_exists_in_the_catalogue() {
        let ids: Vec<&str> = crate::mcp::catalogue::all().iter().map(|c| c.id).collect();
        for id in CURSOR {
            assert!(ids.contains(&id), "{id}");
        }
    }

    #[test]
    fn every_mapped_scenario_is_one_fake_cursor_agent_has() {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fake-cursor-agent/scenarios");
        for (claude, cursor) in CURSOR_SCENARIOS {
            assert!(
                dir.join(format!("{cursor}.json")).is_file(),
                "{claude} maps to {cursor}, which fake-cursor-agent does not have"
            );
        }
    }

    #[test]
    fn globs_select_instances_by_family() {
        let all = crate::mcp::catalogue::all();
        let globs = vec!["runs/run/succeeded@cursor".to_owned()];
        let base = crate::mcp::catalogue::select(
            &all,
            crate::mcp::profile::Profile::Provider,
            &base_globs(&globs),
        );
        let out = expand(base, &listing(&["claude", "cursor"]), &globs);
        let ids: Vec<&str> = out.iter().map(|c| c.id).collect();
        assert_eq!(ids, ["runs/run/succeeded@cursor"]);
        let globs = vec!["runs/run/succeeded".to_owned()];
        let base =
            crate::mcp::catalogue::select(&all, crate::mcp::profile::Profile::Provider, &globs);
        let out = expand(base, &listing(&["claude", "cursor"]), &globs);
        let ids: Vec<&str> = out.iter().map(|c| c.id).collect();
        assert_eq!(ids, ["runs/run/succeeded", "runs/run/succeeded@cursor"]);
    }

    #[test]
    fn the_selector_is_the_fakes_own_prompt_line() {
        assert_eq!(
            selector(FakeKind::Claude, "success"),
            "fake-claude:scenario=success"
        );
        assert_eq!(selector(FakeKind::Cursor, "success"), "scenario: default");
        assert_eq!(
            selector(FakeKind::Cursor, "hang-before-final"),
            "scenario: cancel-midturn"
        );
    }
}
