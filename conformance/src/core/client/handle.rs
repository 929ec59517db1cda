//! Handles a case keeps of its servers: the movable [`Deadline`] every wait uses, how to start
//! a server ([`ServerSpec`]), and the [`ProcHandle`] the scheduler shuts a server down with
//! (conventions' order: closed stdin, bounded wait, SIGTERM, SIGKILL of the group, reaped).

use std::ffi::OsString;
use std::sync::Arc;

use tokio::process::Child;
use tokio::sync::Mutex;

pub use crate::core::deadline::Deadline;
use crate::core::http::target::HttpTarget;
use crate::core::process;

/// How to reach a server: a command to start (stdio), or, with `endpoint`, a Streamable HTTP
/// endpoint someone else started (HTTP-1), where [`super::Client::spawn`] opens a connection
/// instead (program, arguments and environment are then unused).
#[derive(Debug, Clone)]
pub struct ServerSpec {
    /// The program.
    pub program: OsString,
    /// Its arguments.
    pub args: Vec<OsString>,
    /// Variables set on top of the runner's environment.
    pub env: Vec<(OsString, OsString)>,
    /// The Streamable HTTP endpoint of a server already running, when it is one.
    pub endpoint: Option<HttpTarget>,
}

impl ServerSpec {
    /// A server already running at `endpoint` (Streamable HTTP).
    #[must_use]
    pub fn endpoint(endpoint: HttpTarget) -> Self {
        Self {
            program: OsString::new(),
            args: Vec::new(),
            env: Vec::new(),
            endpoint: Some(endpoint),
        }
    }

    /// The command line as words, for reports (the endpoint's URL for one).
    #[must_use]
    pub fn command_words(&self) -> Vec<String> {
        if let Some(e) = &self.endpoint {
            return vec![e.url()];
        }
        std::iter::once(&self.program)
            .chain(&self.args)
            .map(|s| s.to_string_lossy().into_owned())
            .collect()
    }
}

/// A handle to a started server's process, kept by the scheduler to kill its group whatever
/// happened to the case. A connection to an HTTP endpoint has none ([`ProcHandle::none`]):
/// the runner did not start that server and does not stop it.
#[derive(Debug, Clone)]
pub struct ProcHandle {
    /// Process id of the server, which leads its own group (0: no process of the runner's).
    pub pgid: i32,
    pub(super) child: Option<Arc<Mutex<Child>>>,
}

impl ProcHandle {
    /// The handle of a server the runner did not start (a Streamable HTTP endpoint).
    #[must_use]
    pub fn none() -> Self {
        Self {
            pgid: 0,
            child: None,
        }
    }

    /// Shutdown in the conventions' order: the case already dropped stdin (or the client is
    /// gone); bounded wait; SIGTERM to the group; short wait; SIGKILL to the group; reap. The
    /// final SIGKILL is sent even when the leader exited, so nothing of the group survives.
    pub async fn shutdown(&self) {
        let Some(child) = &self.child else {
            return;
        };
        let mut child = child.lock().await;
        let exited = matches!(
            tokio::time::timeout(process::EXIT_GRACE, child.wait()).await,
            Ok(Ok(_))
        );
        if !exited {
            process::signal_group(self.pgid, nix::sys::signal::Signal::SIGTERM);
            let _ = tokio::time::timeout(process::TERM_GRACE, child.wait()).await;
        }
        process::signal_group(self.pgid, nix::sys::signal::Signal::SIGKILL);
        let _ = tokio::time::timeout(process::TERM_GRACE, child.wait()).await;
        process::wait_group_gone(self.pgid).await;
        process::unregister(self.pgid);
    }
}
