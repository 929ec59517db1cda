//! One prompt turn (docs prompt-turn): a chunk, a read tool call the agent asks permission
//! for, the file read when the client offers `fs`, the call's completion, a last chunk and the
//! answer. It takes about 1.7 s uncancelled, so a cancel can land in its middle; every wait
//! ends early on `session/cancel`, and the turn then answers `cancelled` (MUST).

use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::defects::Defect;
use crate::peer::{Peer, Session, error_answer, result_answer};

/// How often a wait looks at the cancel flag.
const POLL: Duration = Duration::from_millis(10);
/// How long the client may take to answer one of the agent's requests.
const CLIENT_ANSWER: Duration = Duration::from_secs(30);
/// How long, after a cancel, the defect that errors on a cancelled permission waits for the
/// client's answer to its pending request (a client sends it right after `session/cancel`).
const CANCEL_GRACE: Duration = Duration::from_secs(1);
const TOOL_CALL: &str = "read-readme";

/// Why a turn ended early.
enum Early {
    Cancelled,
    /// The client answered the permission request `cancelled`.
    PermissionCancelled,
}

struct Turn<'a> {
    peer: &'a Peer,
    session_id: &'a str,
    session: &'a Session,
}

impl Turn<'_> {
    fn cancelled(&self) -> bool {
        self.session.cancelled.load(Ordering::SeqCst)
    }

    /// Waits `ms`, or less when the turn is cancelled.
    fn wait(&self, ms: u64) -> Result<(), Early> {
        let end = Instant::now() + Duration::from_millis(ms);
        while Instant::now() < end {
            if self.cancelled() {
                return Err(Early::Cancelled);
            }
            std::thread::sleep(POLL);
        }
        Ok(())
    }

    /// The client's answer to one of the agent's requests, or the cancel that came first.
    ///
    /// The defect that errors the turn on a cancelled permission takes, after a cancel, the
    /// answer the client must then send to the pending request (`cancelled`) when it comes within
    /// [`CANCEL_GRACE`]: otherwise which of the two it saw first, the cancel or the answer, was a
    /// race of its two threads, and under load it sometimes hid its own defect. The variant
    /// that waits for that answer ([`Defect::CancelAwaitsPermission`]) waits for it as long as for
    /// any answer.
    fn answer(&self, rx: &Receiver<Value>) -> Result<Value, Early> {
        let end = Instant::now() + CLIENT_ANSWER;
        loop {
            if self.cancelled() {
                if self.peer.is(Defect::PermissionCancelledError) {
                    return rx.recv_timeout(CANCEL_GRACE).map_err(|_| Early::Cancelled);
                }
                if self.peer.is(Defect::CancelAwaitsPermission) {
                    let left = end.saturating_duration_since(Instant::now());
                    return rx.recv_timeout(left).map_err(|_| Early::Cancelled);
                }
                return Err(Early::Cancelled);
            }
            match rx.recv_timeout(POLL) {
                Ok(v) => return Ok(v),
                Err(RecvTimeoutError::Timeout) if Instant::now() < end => {}
                Err(_) => return Ok(json!({"error": "no answer"})),
            }
        }
    }

    fn update(&self, mut update: Value) {
        if self.peer.is(Defect::ChunkNoContent) && update["sessionUpdate"] == "agent_message_chunk"
        {
            update.as_object_mut().map(|o| o.remove("content"));
        }
        let mut params = json!({"sessionId": self.session_id, "update": update});
        match self.peer.defect() {
            Defect::UpdateNoSessionId => {
                params.as_object_mut().map(|o| o.remove("sessionId"));
            }
            Defect::MetaOutside => params["trace"] = json!("mutant-trace-1"),
            _ => {}
        }
        self.peer
            .send(&json!({"jsonrpc": "2.0", "method": "session/update", "params": params}));
    }

    fn chunk(&self, text: &str) {
        self.update(json!({"sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": text}}));
    }

    fn steps(&self) -> Result<(), Early> {
        self.chunk("Let me look at the project first.");
        match self.peer.defect() {
            Defect::StdoutNoise => self.peer.raw(b"mutant-agent: thinking\n"),
            Defect::VendorMethod => self.peer.send(&json!({"jsonrpc": "2.0",
                "method": "acme/progress", "params": {"sessionId": self.session_id}})),
            _ => {}
        }
        self.wait(300)?;
        let path = format!("{}/README.txt", self.session.cwd);
        let kind = if self.peer.is(Defect::ToolCallBadKind) {
            "reading"
        } else {
            "read"
        };
        let mut call = json!({"sessionUpdate": "tool_call", "toolCallId": TOOL_CALL,
            "title": "Read README.txt", "kind": kind, "status": "pending",
            "locations": [{"path": path}], "rawInput": {"path": path}});
        if self.peer.is(Defect::ToolCallNoTitle) {
            call.as_object_mut().map(|o| o.remove("title"));
        }
        self.update(call);
        let mut options = json!([
            {"optionId": "allow-once", "name": "Allow once", "kind": "allow_once"},
            {"optionId": "reject-once", "name": "Reject", "kind": "reject_once"}]);
        if self.peer.is(Defect::PermissionNoKind) {
            // The reject option: the client can still pick allow_once by its kind.
            options[1].as_object_mut().map(|o| o.remove("kind"));
        }
        let rx = self.peer.request(
            "session/request_permission",
            json!({"sessionId": self.session_id,
                   "toolCall": {"toolCallId": TOOL_CALL, "title": "Read README.txt",
                                "kind": "read", "status": "pending"},
                   "options": options}),
        );
        let answer = self.answer(&rx)?;
        let outcome = &answer["result"]["outcome"];
        if outcome["outcome"] == "cancelled" && !self.peer.is(Defect::CancelIgnored) {
            return Err(Early::PermissionCancelled);
        }
        let allowed = outcome["optionId"] == "allow-once";
        let mut output = "not allowed to read".to_owned();
        if allowed && (self.peer.client_fs() || self.peer.is(Defect::FsUnadvertised)) {
            let asked = if self.peer.is(Defect::FsRelativePath) {
                "README.txt".to_owned()
            } else {
                path.clone()
            };
            let rx = self.peer.request(
                "fs/read_text_file",
                json!({"sessionId": self.session_id, "path": asked, "limit": 20}),
            );
            let read = self.answer(&rx)?;
            output = read["result"]["content"]
                .as_str()
                .map_or_else(|| "the file could not be read".to_owned(), str::to_owned);
        }
        self.update(
            json!({"sessionUpdate": "tool_call_update", "toolCallId": TOOL_CALL,
            "status": if self.peer.is(Defect::ToolUpdateBadStatus) { "done" } else { "completed" },
            "content": [{"type": "content", "content": {"type": "text", "text": output}}]}),
        );
        self.wait(1400)?;
        self.chunk("That is all I found.");
        Ok(())
    }
}

/// Runs one turn and answers `session/prompt` (request id `id`, already as the agent writes
/// it).
pub fn run(peer: &Peer, id: &Value, session_id: &str, session: &Session) {
    let turn = Turn {
        peer,
        session_id,
        session,
    };
    let stop = match turn.steps() {
        Ok(()) => "end_turn",
        Err(Early::Cancelled) => "cancelled",
        Err(Early::PermissionCancelled) if peer.is(Defect::PermissionCancelledError) => {
            peer.send(&error_answer(
                id,
                -32603,
                "the permission request was cancelled",
            ));
            return;
        }
        // The client cancelled what the agent asked: the turn cannot go on.
        Err(Early::PermissionCancelled) => "cancelled",
    };
    let answer = match peer.defect() {
        Defect::PromptNeverAnswered => return,
        Defect::NoStopReason => result_answer(id, json!({})),
        Defect::UnknownStopReason => result_answer(id, json!({"stopReason": "finished"})),
        _ => result_answer(id, json!({"stopReason": stop})),
    };
    peer.send(&answer);
    if peer.is(Defect::PromptAnsweredTwice) {
        peer.send(&answer);
    }
}
