//! What the `cursor.run…` tools say to hosts (TOOL-1, PROV-2): titles, descriptions and the
//! descriptions of Cursor's options (ACP-4, ACP-8).

use cmk_engine::provider::{Role, Texts};

/// Cursor's texts.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct CursorTexts;

impl Texts for CursorTexts {
    fn title(&self, role: Role) -> &'static str {
        match role {
            Role::Run => "Run Cursor's agent",
            Role::Start => "Start a Cursor agent run",
            Role::List => "List Cursor agent runs",
            Role::Result => "Read a Cursor agent run's result",
            Role::Events => "Read a Cursor agent run's events",
            Role::Cancel => "Cancel a Cursor agent run",
            Role::Release => "Release a settled Cursor agent run",
        }
    }

    // What a model needs to call each tool right; the rest is in docs/tools.md and the
    // result fields' meanings in docs/results.md (every byte here is in a model's context).
    fn description(&self, role: Role) -> &'static str {
        match role {
            Role::Run => {
                "Runs a prompt with Cursor's agent (`cursor-agent acp`) in `cwd`; it edits files and runs \
                 commands as the user's Cursor configuration allows: no sandbox. Waits for the settled result: check \
                 `is_error`. `detach_after_s` returns the run_id early for cursor.run.result."
            }
            Role::Start => {
                "Starts a cursor.run and returns its run_id at once, for cursor.run.result. At \
                 most 4 runs active, 32 kept."
            }
            Role::List => "Lists the runs this adapter keeps.",
            Role::Result => "A run's state, or its settled result: check `is_error`.",
            Role::Events => {
                "A page of a run's ACP messages and the adapter's records, oldest first; pass \
                 `next_cursor` for the next page."
            }
            Role::Cancel => "Stops a run and its processes; the run stays listed.",
            Role::Release => "Forgets a settled run, freeing its slot.",
        }
    }

    fn instructions(&self) -> &'static str {
        "Runs Cursor's agent over ACP (`cursor-agent acp`) as supervised, bounded runs of one \
         prompt turn each. Use cursor.run for one prompt end to end, or cursor.run.start and then \
         cursor.run.result / cursor.run.events to follow a long run; release settled runs you no \
         longer need with cursor.run.release. `completed` means settled, not succeeded: check \
         `is_error` and `state`. What the agent may do without asking is decided by the user's \
         Cursor configuration; runs are not sandboxed."
    }

    fn product(&self) -> &'static str {
        "Cursor's agent"
    }

    fn server_title(&self) -> &'static str {
        "Cursor's agent (ACP)"
    }

    fn prompt_description(&self) -> &'static str {
        "Up to 128 KiB of UTF-8."
    }
}

/// What a model needs to know about one of Cursor's options, when its name, type and bounds do
/// not say it.
#[must_use]
pub(crate) fn option_description(name: &str) -> Option<&'static str> {
    Some(match name {
        "permission_mode" => {
            "How permission requests are answered, never permanently: dontAsk rejects; plan \
             switches to plan mode, then rejects; acceptEdits allows edits."
        }
        "resume_session_id" => "An ACP session id (agents with loadSession only).",
        _ => return None,
    })
}
