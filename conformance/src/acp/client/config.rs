//! What client mode needs to know: the client's command line (with the `{agent}` placeholder),
//! the scripted agent's executable, how the client can be told to cancel a turn, and the bounds.

use std::path::PathBuf;
use std::time::Duration;

use nix::sys::signal::Signal;

/// The word in `CLIENT_COMMAND` replaced by the scripted agent's command (one executable path).
pub const AGENT_PLACEHOLDER: &str = "{agent}";
/// The environment variable that also carries the scripted agent's command to the client.
pub const AGENT_ENV: &str = "ACP_CONFORMANCE_AGENT";

/// How the runner tells the client under test to cancel its turn (`client/cancel-*` cases).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CancelDriver {
    /// The client offers no way to cancel from outside: the cancel cases are `skip`.
    None,
    /// Send this signal to the client's process (its pid, not its group: the agent may share
    /// the group) as soon as the agent's permission request of the turn went out. For clients
    /// whose documented interrupt is a signal (Ctrl-C → SIGINT).
    Signal(Signal),
    /// The client's own turn timeout, set in its command line, cancels the turn: the runner
    /// sends nothing and the scripted turn lasts 60 s, longer than that timeout must be.
    ClientTimeout,
}

/// Client mode's configuration.
#[derive(Debug, Clone)]
pub struct ClientModeConfig {
    /// The client under test, as words; every occurrence of [`AGENT_PLACEHOLDER`] inside a word
    /// is replaced by the scripted agent's command (an executable path), which is also in the
    /// client's environment as [`AGENT_ENV`].
    pub client_command: Vec<String>,
    /// The scripted agent: the `fake-cursor-agent` executable (it answers `--version` like
    /// `cursor-agent`, plays a scenario, and logs both directions of the wire).
    pub agent_program: PathBuf,
    /// Bytes written to the client's stdin before it is closed (a prompt for clients that read
    /// one); `None`: stdin is `/dev/null`.
    pub client_stdin: Option<Vec<u8>>,
    /// How the cancel cases tell the client to cancel.
    pub cancel: CancelDriver,
    /// The bound on the client's answer to each agent request.
    pub answer_bound: Duration,
    /// A case's whole budget: the client is killed (its group and the agent's) after it.
    pub case_timeout: Duration,
    /// How long after the client's exit the agent may take to be gone.
    pub end_grace: Duration,
    /// Only the cases with these ids (all when empty).
    pub cases: Vec<String>,
    /// Cases at once (`--jobs`; each case has its own client, folder and scripted agent).
    pub jobs: usize,
    /// SHOULD deviations fail instead of warning.
    pub strict: bool,
    /// Expected failures (`--baseline`), graded as in agent mode; empty by default.
    pub baseline: crate::core::baseline::Baseline,
    /// Which clients the run holds the client to:
    /// [`crate::acp::gate::AcpProfile::Client`] (what ACP asks of any client, the default) or
    /// [`crate::acp::gate::AcpProfile::Cursor`] (the kit's Cursor policy too).
    pub profile: crate::acp::gate::AcpProfile,
    /// Where each case's folder (scripted agent, scenario, wire log) is made; the system's
    /// temporary folder when `None`. Folders are removed after the case.
    pub work_dir: Option<PathBuf>,
}

impl ClientModeConfig {
    /// A configuration with the default bounds (answers within 5 s, 30 s per case, 3 s for the
    /// agent to be gone after the client exits), no cancel driver, stdin `/dev/null`, profile
    /// `client`.
    #[must_use]
    pub fn new(client_command: Vec<String>, agent_program: PathBuf) -> Self {
        Self {
            client_command,
            agent_program,
            client_stdin: None,
            cancel: CancelDriver::None,
            answer_bound: Duration::from_secs(5),
            case_timeout: Duration::from_secs(30),
            end_grace: Duration::from_secs(3),
            cases: Vec::new(),
            jobs: 1,
            strict: false,
            baseline: crate::core::baseline::Baseline::default(),
            profile: crate::acp::gate::AcpProfile::Client,
            work_dir: None,
        }
    }
}
