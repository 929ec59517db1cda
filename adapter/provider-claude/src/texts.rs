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

    fn description(&self, role: Role) -> &'static str {
        match role {
            Role::Run => {
                "Runs one prompt through Claude Code's print mode (`claude -p`) and waits until \
                 the run has settled, its processes included, then returns the final result. \
                 Claude Code can read and write files and run commands in `cwd` within its \
                 permission mode: this is model execution with shell reach, not a sandbox. \
                 `completed: true` means the run settled, not that it succeeded: `is_error` and \
                 `state` say which, and a failed run is returned with isError. With \
                 `detach_after_s`, a run still going after that many seconds is returned as a \
                 handle (`run_id`, active `state`) to follow with claude.run.result / \
                 claude.run.events. A `progressToken` gets progress notifications as native \
                 events arrive. `resume_session_id`, `continue_previous` and `session_id` are \
                 mutually exclusive; `no_session_persistence` excludes resuming and continuing."
            }
            Role::Start => {
                "Starts the same run as claude.run without waiting and returns `{run_id, state}` \
                 at once. The run_id is this adapter's opaque handle (not a process id, not a \
                 Claude session id); follow it with claude.run.result, claude.run.events, \
                 claude.run.cancel and claude.run.release. At most 4 runs are active at a time \
                 and 32 retained."
            }
            Role::List => {
                "Lists the runs this adapter process retains, each with run_id, state, \
                 completed, is_error, native_session_id (when known) and acquired_by (when \
                 bound). Reading never releases anything."
            }
            Role::Result => {
                "Returns a run's current state, or its settled final result: state, completed, \
                 is_error, native_session_id, the native final event as received, native_error, \
                 error, cleanup outcome, exit status and event counts. Reading a failed run is a \
                 successful read whose data says is_error."
            }
            Role::Events => {
                "Returns one bounded page of a run's native stream-json events, oldest first. \
                 Pass the returned `next_cursor` to continue; a cursor older than the retained \
                 buffer reports `stale_cursor` and how many events were missed."
            }
            Role::Cancel => {
                "Cancels a run: terminates its Claude Code process group and marks it \
                 cancelled; cleanup completes in the background and shows on later result \
                 reads. Cancelling a settled run changes nothing and says `already_settled`. \
                 Never releases the run."
            }
            Role::Release => {
                "Discards a settled run whose process cleanup is confirmed, freeing its slot. \
                 An active run is refused (`run_active`), as is a run whose cleanup is not \
                 confirmed (`cleanup_unconfirmed`). The Claude Code session itself stays saved \
                 and resumable."
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
        "The prompt, passed after `--` (1 byte to 128 KiB of UTF-8, no NUL): \
                a prompt starting with `-` stays a prompt."
    }
}

/// What a host needs to know about each native option the tree declares.
pub(crate) fn option_description(name: &str) -> Option<&'static str> {
    Some(match name {
        "permission_mode" => {
            "Claude Code's permission mode, always passed explicitly. dontAsk denies what is \
             not pre-approved; plan only plans; acceptEdits also allows file edits."
        }
        "model" => "Model alias or name, forwarded only when given.",
        "effort" => "Effort level, forwarded only when given.",
        "append_system_prompt" => "Text appended to the system prompt (UTF-8, bounded in bytes).",
        "max_budget_usd" => "Spending cap in US dollars, forwarded only when given.",
        "resume_session_id" => {
            "Resume this saved Claude Code session (its native session id, never a run_id)."
        }
        "continue_previous" => "Continue the most recent Claude Code session in cwd.",
        "session_id" => "Use this UUID as the new Claude Code session's id.",
        "no_session_persistence" => "Do not save the Claude Code session to disk.",
        _ => return None,
    })
}
