//! The runner's answers to the agent's requests while it plays the client: permission requests
//! by `kind` (or held for the case to answer), `fs/*` served inside the case's scratch
//! directory and `terminal/*` ([`super::terminal`]) when the runner advertised them, `-32601`
//! for everything else (vendor `cursor/*` requests included: a client answers every request).
//! Every agent request is logged for the capability cases.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{Value, json};

use super::terminal::{Audit, Pending, Terminals};
use crate::core::client::Responder;

/// How permission requests are answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Permission {
    /// Select the offered option of kind `allow_once` (else `reject_once`, else the first).
    AllowOnce,
    /// Answer `{outcome: {outcome: "cancelled"}}`.
    Cancelled,
    /// Do not answer: the case answers (or cancels) itself.
    Hold,
}

/// What the client side advertised and how it answers.
#[derive(Debug, Clone)]
pub struct Served {
    /// `clientCapabilities.fs.readTextFile` / `writeTextFile` advertised and served.
    pub fs: bool,
    /// The permission policy.
    pub permission: Permission,
    /// The directory `fs/*` is confined to (the session's `cwd`).
    pub scratch: PathBuf,
}

/// At most this many agent requests are logged per agent.
const MAX_LOGGED: usize = 200;

/// The shared state of one agent's responder.
#[derive(Debug)]
pub struct State {
    served: Mutex<Served>,
    requests: Mutex<Vec<Value>>,
    /// The ids of the permission requests held unanswered ([`Permission::Hold`]), in order.
    /// Only the lock on `served` guards a change to it, so a request is either held here or
    /// answered by the policy that replaced `Hold`, never neither.
    held: Mutex<Vec<Value>>,
    /// The agent's terminals, once `terminal` was advertised ([`State::serve_terminals`]).
    terminals: Mutex<Option<Terminals>>,
}

impl State {
    /// A responder state for `served`.
    #[must_use]
    pub fn new(served: Served) -> Arc<Self> {
        Arc::new(Self {
            served: Mutex::new(served),
            requests: Mutex::new(Vec::new()),
            held: Mutex::new(Vec::new()),
            terminals: Mutex::new(None),
        })
    }

    /// Serves `terminal/*` from now on (the runner advertised `terminal`), in the scratch
    /// directory; `terminal/wait_for_exit` blocks at most until `wait_until`.
    pub fn serve_terminals(&self, wait_until: std::time::Instant) {
        let scratch = self
            .served
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .scratch
            .clone();
        *self
            .terminals
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(Terminals::new(scratch, wait_until));
    }

    /// Bounds `terminal/wait_for_exit` by `at` from now on (see [`Terminals::set_wait_until`]).
    pub fn bound_terminal_waits(&self, at: std::time::Instant) {
        if let Some(t) = self
            .terminals
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_mut()
        {
            t.set_wait_until(at);
        }
    }

    /// What the agent did with its terminals (empty when none were served).
    #[must_use]
    pub fn terminal_audit(&self) -> Audit {
        self.terminals
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .map(Terminals::audit)
            .unwrap_or_default()
    }

    /// Kills every terminal still live (the case's explicit cleanup; `Drop` is the backstop
    /// for an aborted case).
    pub fn end_terminals(&self) {
        if let Some(t) = self
            .terminals
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_mut()
        {
            t.end();
        }
    }

    /// A `terminal/*` request's answer, `None` when terminals are not served.
    fn terminal(
        &self,
        method: &str,
        params: &Value,
    ) -> Option<Result<Value, mcp_wire::ErrorObject>> {
        let pending = self
            .terminals
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_mut()?
            .serve(method, params);
        Some(match pending {
            Pending::Now(r) => r,
            // The responder answers synchronously from the case's task: the wait moves the
            // task's other work off this worker thread meanwhile (the agent waits for this
            // answer anyway), and is bounded by the case's deadline.
            Pending::Wait(exit, until) => match tokio::runtime::Handle::try_current() {
                Ok(h) if h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
                    tokio::task::block_in_place(|| h.block_on(super::terminal::wait(exit, until)))
                }
                _ => Err(mcp_wire::ErrorObject::new(
                    mcp_wire::code::INTERNAL_ERROR,
                    "the runner cannot wait for a terminal outside a multi-threaded runtime",
                )),
            },
        })
    }

    /// Changes the permission policy.
    pub fn set_permission(&self, p: Permission) {
        self.served
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .permission = p;
    }

    /// Ends holding: answers permission requests `cancelled` from now on and returns the ids
    /// of those held so far, for the case to answer `cancelled` itself (docs
    /// prompt-turn#cancellation: after `session/cancel` "the Client MUST respond to all pending
    /// `session/request_permission` requests with the `cancelled` outcome").
    pub fn cancel_held(&self) -> Vec<Value> {
        let mut served = self.served.lock().unwrap_or_else(PoisonError::into_inner);
        served.permission = Permission::Cancelled;
        std::mem::take(&mut *self.held.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Every agent request so far (whole messages, bounded).
    #[must_use]
    pub fn requests(&self) -> Vec<Value> {
        self.requests
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The [`Responder`] a client answers with.
    #[must_use]
    pub fn responder(self: &Arc<Self>) -> Responder {
        let me = self.clone();
        Responder(Arc::new(move |msg: &Value| me.answer(msg)))
    }

    fn answer(&self, msg: &Value) -> Option<Value> {
        let id = msg.get("id")?;
        let method = msg.get("method")?.as_str()?;
        {
            let mut log = self.requests.lock().unwrap_or_else(PoisonError::into_inner);
            if log.len() < MAX_LOGGED {
                log.push(msg.clone());
            }
        }
        let served = {
            let served = self.served.lock().unwrap_or_else(PoisonError::into_inner);
            if method == "session/request_permission" && served.permission == Permission::Hold {
                // Booked under the policy's lock: see `held`.
                self.held
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(id.clone());
                return None;
            }
            served.clone()
        };
        let params = msg.get("params").cloned().unwrap_or(Value::Null);
        let result = match method {
            "session/request_permission" => match served.permission {
                Permission::Hold => return None,
                Permission::Cancelled => Ok(json!({"outcome": {"outcome": "cancelled"}})),
                Permission::AllowOnce => Ok(select_allow_once(&params)),
            },
            "fs/read_text_file" if served.fs => read(&served.scratch, &params),
            "fs/write_text_file" if served.fs => write(&served.scratch, &params),
            m if m.starts_with("terminal/") => self
                .terminal(m, &params)
                .unwrap_or_else(|| Err(mcp_wire::ErrorObject::method_not_found(m))),
            other => Err(mcp_wire::ErrorObject::method_not_found(other)),
        };
        Some(match result {
            Ok(v) => mcp_wire::response(id, v),
            Err(e) => mcp_wire::error_response(Some(id), &e),
        })
    }
}

/// The answer selecting the offered `allow_once` option (else `reject_once`, else the first);
/// `cancelled` when nothing is offered. Never `allow_always`.
#[must_use]
pub fn select_allow_once(params: &Value) -> Value {
    let options = params
        .get("options")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let by_kind = |k: &str| {
        options
            .iter()
            .find(|o| o.get("kind").and_then(Value::as_str) == Some(k))
    };
    let chosen = by_kind("allow_once")
        .or_else(|| by_kind("reject_once"))
        .or_else(|| {
            options.iter().find(|o| {
                !o.get("kind")
                    .and_then(Value::as_str)
                    .is_some_and(|k| k.ends_with("_always"))
            })
        });
    match chosen.and_then(|o| o.get("optionId")) {
        Some(id) => json!({"outcome": {"outcome": "selected", "optionId": id}}),
        None => json!({"outcome": {"outcome": "cancelled"}}),
    }
}

fn invalid(msg: &str) -> mcp_wire::ErrorObject {
    mcp_wire::ErrorObject::new(mcp_wire::code::INVALID_PARAMS, msg)
}

/// The path of `params.path` when it is absolute and inside `scratch`.
fn confined(scratch: &Path, params: &Value) -> Result<PathBuf, mcp_wire::ErrorObject> {
    let path = params
        .get("path")
        .and_then(Value::as_str)
        .ok_or_else(|| invalid("path (an absolute path) is required"))?;
    let p = PathBuf::from(path);
    if !p.is_absolute() {
        return Err(invalid("path must be absolute"));
    }
    if p.components()
        .any(|c| matches!(c, std::path::Component::ParentDir))
        || !p.starts_with(scratch)
    {
        return Err(invalid(
            "the runner serves files only inside the session's cwd",
        ));
    }
    Ok(p)
}

fn read(scratch: &Path, params: &Value) -> Result<Value, mcp_wire::ErrorObject> {
    let p = confined(scratch, params)?;
    let text = std::fs::read_to_string(&p)
        .map_err(|e| mcp_wire::ErrorObject::new(mcp_wire::code::INTERNAL_ERROR, e.to_string()))?;
    let line = params
        .get("line")
        .and_then(Value::as_u64)
        .unwrap_or(1)
        .max(1);
    let limit = params.get("limit").and_then(Value::as_u64);
    let skip = usize::try_from(line - 1).unwrap_or(usize::MAX);
    let lines = text.lines().skip(skip);
    let content: Vec<&str> = match limit.and_then(|l| usize::try_from(l).ok()) {
        Some(l) => lines.take(l).collect(),
        None => lines.collect(),
    };
    Ok(json!({"content": content.join("\n")}))
}

fn write(scratch: &Path, params: &Value) -> Result<Value, mcp_wire::ErrorObject> {
    let p = confined(scratch, params)?;
    let content = params
        .get("content")
        .and_then(Value::as_str)
        .ok_or_else(|| invalid("content (a string) is required"))?;
    std::fs::write(&p, content)
        .map_err(|e| mcp_wire::ErrorObject::new(mcp_wire::code::INTERNAL_ERROR, e.to_string()))?;
    Ok(json!({}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allow_once_is_chosen_by_kind_and_allow_always_never() {
        let p = json!({"options": [
            {"optionId": "a", "name": "Always", "kind": "allow_always"},
            {"optionId": "o", "name": "Once", "kind": "allow_once"}]});
        assert_eq!(select_allow_once(&p)["outcome"]["optionId"], "o");
        let only_always = json!({"options": [{"optionId": "a", "kind": "allow_always"}]});
        assert_eq!(
            select_allow_once(&only_always)["outcome"]["outcome"],
            "cancelled"
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn terminals_are_served_only_once_advertised_and_a_wait_answers_the_exit() {
        let dir = tempfile::tempdir().expect("dir");
        let state = State::new(Served {
            fs: false,
            permission: Permission::AllowOnce,
            scratch: dir.path().to_path_buf(),
        });
        let create = json!({"jsonrpc": "2.0", "id": 1, "method": "terminal/create",
            "params": {"sessionId": "s", "command": "sh", "args": ["-c", "exit 7"]}});
        let refused = state.answer(&create).expect("an answer");
        assert_eq!(refused["error"]["code"], mcp_wire::code::METHOD_NOT_FOUND);
        state.serve_terminals(std::time::Instant::now() + std::time::Duration::from_secs(20));
        let created = state.answer(&create).expect("an answer");
        let id = created["result"]["terminalId"].clone();
        let waited = state
            .answer(
                &json!({"jsonrpc": "2.0", "id": 2, "method": "terminal/wait_for_exit",
                "params": {"sessionId": "s", "terminalId": id}}),
            )
            .expect("an answer");
        assert_eq!(waited["result"]["exitCode"], 7, "{waited}");
        state.end_terminals();
        assert_eq!(state.terminal_audit().issued.len(), 1);
    }

    /// The runner answers every fs request, a malformed one with an error: the agent's turn
    /// never waits on the client (capabilities/fs-requests grades the request itself).
    #[test]
    fn a_relative_fs_path_is_answered_invalid_params() {
        let dir = tempfile::tempdir().expect("dir");
        for fs in [true, false] {
            let state = State::new(Served {
                fs,
                permission: Permission::AllowOnce,
                scratch: dir.path().to_path_buf(),
            });
            let read = json!({"jsonrpc": "2.0", "id": "a-1", "method": "fs/read_text_file",
                "params": {"sessionId": "s", "path": "README.txt"}});
            let answer = state.answer(&read).expect("an answer");
            let code = if fs {
                mcp_wire::code::INVALID_PARAMS
            } else {
                mcp_wire::code::METHOD_NOT_FOUND
            };
            assert_eq!(answer["id"], "a-1", "{answer}");
            assert_eq!(answer["error"]["code"], code, "{answer}");
            assert_eq!(state.requests().len(), 1);
        }
    }

    #[test]
    fn files_outside_the_scratch_directory_are_refused() {
        let dir = std::path::Path::new("/tmp/scratch");
        assert!(confined(dir, &json!({"path": "/etc/passwd"})).is_err());
        assert!(confined(dir, &json!({"path": "/tmp/scratch/../x"})).is_err());
        assert!(confined(dir, &json!({"path": "rel"})).is_err());
        assert!(confined(dir, &json!({"path": "/tmp/scratch/a.txt"})).is_ok());
    }
}
