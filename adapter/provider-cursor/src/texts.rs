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

    fn description(&self, role: Role) -> &'static str {
        match role {
            Role::Run => {
                "Runs one prompt through Cursor's agent over ACP (`cursor-agent acp`: one \
                 session, one prompt turn) and waits until the run has settled, its processes \
                 included, then returns the final result `{stopReason, sessionId, text}`. \
                 Cursor's agent can read and write files and run commands in `cwd`: what it may \
                 do without asking is decided by the user's Cursor configuration; the adapter \
                 answers every permission request it is sent by `permission_mode` and never \
                 grants anything permanently. `completed: true` means the run settled, not that \
                 it succeeded: `is_error` and `state` say which. With `detach_after_s`, a run \
                 still going after that many seconds is returned as a handle to follow with \
                 cursor.run.result / cursor.run.events. A `progressToken` gets progress \
                 notifications as native events arrive."
            }
            Role::Start => {
                "Starts the same run as cursor.run without waiting and returns `{run_id, state}` \
                 at once. The run_id is this adapter's opaque handle (not a process id, not an \
                 ACP session id); follow it with cursor.run.result, cursor.run.events, \
                 cursor.run.cancel and cursor.run.release. At most 4 runs are active at a time \
                 and 32 retained, across every provider."
            }
            Role::List => {
                "Lists the Cursor agent runs this adapter process retains, each with run_id, \
                 state, completed, is_error, native_session_id (the ACP sessionId, when known) \
                 and acquired_by (when bound). Reading never releases anything."
            }
            Role::Result => {
                "Returns a run's current state, or its settled final result: state, completed, \
                 is_error, native_session_id, the final `{stopReason, sessionId, text}`, \
                 native_error, error, cleanup outcome, exit status and event counts. Reading a \
                 failed run is a successful read whose data says is_error."
            }
            Role::Events => {
                "Returns one bounded page of a run's native events, oldest first: every line \
                 the agent sent (ACP messages as received) and the adapter's own records of its \
                 decisions (lines with an `acp_client` key). Pass the returned `next_cursor` to \
                 continue; a cursor older than the retained buffer reports `stale_cursor`."
            }
            Role::Cancel => {
                "Cancels a run: sends ACP `session/cancel`, answers pending permission requests \
                 cancelled, waits briefly for the agent to stop, then ends its process group; \
                 cleanup shows on later result reads. Cancelling a settled run changes nothing \
                 and says `already_settled`. Never releases the run."
            }
            Role::Release => {
                "Discards a settled run whose process cleanup is confirmed, freeing its slot. \
                 An active run is refused (`run_active`), as is a run whose cleanup is not \
                 confirmed (`cleanup_unconfirmed`)."
            }
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
        "The prompt, sent as one text block of ACP `session/prompt` (1 byte to 128 KiB of \
         UTF-8, no NUL)."
    }
}

/// What a host needs to know about each of Cursor's options.
#[must_use]
pub(crate) fn option_description(name: &str) -> Option<&'static str> {
    Some(match name {
        "model" => "Model name, passed as `cursor-agent --model M acp` only when given.",
        "permission_mode" => {
            "How the adapter answers the agent's permission requests (ACP-4). dontAsk rejects \
             each request once; plan first switches the session to Cursor's plan mode, then \
             rejects like dontAsk; acceptEdits allows edits once and rejects everything else. \
             Nothing is ever allowed or rejected permanently. Which tools ask at all is decided \
             by the user's Cursor configuration."
        }
        "resume_session_id" => {
            "Load this ACP session (`session/load`) instead of starting a new one; only agents \
             that advertise loadSession accept it, otherwise the run fails invalid_arguments. \
             An ACP sessionId is not a Cursor --resume chat id."
        }
        _ => return None,
    })
}
