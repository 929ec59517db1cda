//! Expected verdicts shared by the mutant suites and the real agents' tests: the `Want` rows
//! (case id, outcome, `blocked_by`) and the ACP cases that need a session, written once.

/// One expected verdict that is not a pass: (case id, outcome, blocked_by).
pub type Want = (&'static str, &'static str, Option<&'static str>);

/// A case that passes where a clean twin's list has it otherwise (a revision now spoken).
pub const fn pass(id: &'static str) -> Want {
    (id, "pass", None)
}

pub const fn fail(id: &'static str) -> Want {
    (id, "fail", None)
}

pub const fn warn(id: &'static str) -> Want {
    (id, "warn", None)
}

pub const fn info(id: &'static str) -> Want {
    (id, "info", None)
}

/// A skip that needs nothing the peer failed to provide (nothing of its kind to look at).
pub const fn skip(id: &'static str) -> Want {
    (id, "skip", None)
}

/// A skip whose precondition case `by` failed.
pub const fn blocked(id: &'static str, by: &'static str) -> Want {
    (id, "skip", Some(by))
}

/// The ACP agent cases that need a session beyond the two `session/new` cases that ask for one:
/// what an agent without a session (no sessionId, or an account asked for) cannot be graded on.
pub const NEED_A_SESSION: &[&str] = &[
    "session/new/unique-ids",
    "session/several-prompts",
    "session/set-mode",
    "session/set-mode-unknown",
    "session/load/unadvertised",
    "session/load/advertised",
    "prompt/stop-reason",
    "prompt/update-shape",
    "prompt/tool-call-shape",
    "cancel/mid-turn",
    "cancel/pending-permission",
    "permission/request-shape",
    "permission/selected-accepted",
    "permission/cancelled-accepted",
    "extensions/method-names",
    "extensions/meta-only",
    "exit/eof-after-turn",
    "content/resource-link",
    "content/image/advertised",
    "content/image/unadvertised",
    "content/audio/advertised",
    "content/audio/unadvertised",
    "content/resource/advertised",
    "content/resource/unadvertised",
    "capabilities/unadvertised-fs-terminal",
    "capabilities/fs-requests",
    "capabilities/terminal-requests",
];

/// The two `session/new` cases that ask for a session with a given cwd: skipped too when the
/// agent wants an account before any session.
pub const SESSION_NEW_CWD: &[&str] = &["session/new/absolute-cwd", "session/new/relative-cwd"];
