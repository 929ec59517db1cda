//! What claude's seven tools say to hosts (TOOL-1): titles, descriptions and the descriptions of
//! the native options the cli tree declares.

use cmk_engine::provider::{Role, Texts};

/// claude's texts.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ClaudeTexts;

impl Texts for ClaudeTexts {
    fn title(&self, role: Role) -> &'static str {
        match role {
            Role::Run => "Run Claude Code",
            Role::Start => "Start a Claude Code run",
            Role::List => "List Claude Code runs",
            Role::Result => "Read a Claude Code run's result",
            Role::Events => "Read a Claude Code run's events",
            Role::Cancel => "Cancel a Claude Code run",
            Role::Release => "Release a settled Claude Code run",
        }
    }

    // What a model needs to call each tool right; the rest is in docs/tools.md and the
    // result fields' meanings in docs/results.md (every byte here is in a model's context).
    fn description(&self, role: Role) -> &'static str {
        match role {
            Role::Run => {
                "Runs a prompt with Claude Code (`claude -p`) in `cwd`; it edits files and runs \
                 commands within `permission_mode`: no sandbox. Waits for the settled result: check \
                 `is_error`. `detach_after_s` returns the run_id early for claude.run.result."
            }
            Role::Start => {
                "Starts a claude.run and returns its run_id at once, for claude.run.result. At \
                 most 4 runs active, 32 kept."
            }
            Role::List => "Lists the runs this adapter keeps.",
            Role::Result => "A run's state, or its settled result: check `is_error`.",
            Role::Events => {
                "A page of a run's native stream-json events, oldest first; pass `next_cursor` \
                 for the next page."
            }
            Role::Cancel => "Stops a run and its processes; the run stays listed.",
            Role::Release => {
                "Forgets a settled run, freeing its slot; its Claude Code session stays \
                 resumable."
            }
        }
    }

    fn instructions(&self) -> &'static str {
        "Runs Claude Code's print mode (`claude -p`) as supervised, bounded runs. \
         Use claude.run for one prompt end to end, or claude.run.start and then claude.run.result / \
         claude.run.events to follow a long run; release settled runs you no longer need with \
         claude.run.release (32 are retained, 4 may be active). `completed` means settled, not \
         succeeded: check `is_error` and `state`. Runs have shell reach in their working directory \
         within the chosen permission mode; they are not sandboxed."
    }

    fn product(&self) -> &'static str {
        "Claude Code"
    }

    fn server_title(&self) -> &'static str {
        "Claude Code (print mode)"
    }

    fn prompt_description(&self) -> &'static str {
        "Up to 128 KiB of UTF-8."
    }
}

/// What a model needs to know about a native option the tree declares, when its name, type
/// and bounds do not say it.
pub(crate) fn option_description(name: &str) -> Option<&'static str> {
    Some(match name {
        "permission_mode" => {
            "dontAsk denies what is not pre-approved; plan only plans; acceptEdits also allows \
             edits."
        }
        "resume_session_id" => "A Claude Code session id, not a run_id.",
        "continue_previous" => "Continue the latest session in cwd.",
        _ => return None,
    })
}
