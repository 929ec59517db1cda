//! Agent mode in ACP's words. The shared raw-stdio client ([`crate::client`]) records and
//! explains in MCP's: directions `c2s` / `s2c` / `stderr`, and "the server" in its notes and
//! error texts. In ACP the peer is the agent, and transcripts name directions as the recordings
//! format does (`recordings/README.md`, `shared/reference/acp/transcripts/`): `c2a` (client to
//! agent: the runner), `a2c` (agent to client) and `a2c-stderr`.
//!
//! Only the runner's own words are rewritten: directions, the runner's notes, and the fixed
//! phrases the shared client and [`crate::model`] build into findings ([`PHRASES`]); what the agent sent is never
//! touched (an agent's own "server" in a quoted answer stays as it was).

use crate::report::CaseResult;
use crate::transcript::Entry;

/// The shared client's phrases that mean the agent in agent mode, and their ACP wording. Whole
/// phrases, so text the agent sent (quoted inside a finding) is not caught by a bare "server".
pub const PHRASES: &[(&str, &str)] = &[
    ("the server to stay up (", "the agent to stay up ("),
    (
        "the server closed the connection",
        "the agent closed the connection",
    ),
    (
        "the server to read its stdin",
        "the agent to read its stdin",
    ),
    (
        "writing to the server's stdin",
        "writing to the agent's stdin",
    ),
    ("; the server exited (", "; the agent exited ("),
    (" (the server ", " (the agent "),
    ("the server sent more than", "the agent sent more than"),
    (
        "meanwhile the server sent a line",
        "meanwhile the agent sent a line",
    ),
    ("closed the server's stdin", "closed the agent's stdin"),
    ("started server, pid", "started agent, pid"),
    ("server exited: ", "agent exited: "),
    ("server closed stdout", "agent closed stdout"),
    ("server sent a line of", "agent sent a line of"),
    (
        "more notifications from the server not kept",
        "more notifications from the agent not kept",
    ),
];

/// `text` with the shared client's phrases in ACP's words.
#[must_use]
pub fn text(text: &str) -> String {
    PHRASES
        .iter()
        .fold(text.to_owned(), |t, (mcp, acp)| t.replace(mcp, acp))
}

/// A transcript row in ACP's words: the direction renamed, a runner note reworded (the lines
/// the agent sent or wrote on stderr stay as they were).
#[must_use]
pub fn entry(mut e: Entry) -> Entry {
    match e.dir.as_str() {
        "c2s" => e.dir = "c2a".into(),
        "s2c" => e.dir = "a2c".into(),
        "stderr" => e.dir = "a2c-stderr".into(),
        "note" => e.line = text(&e.line),
        _ => {}
    }
    e
}

/// An agent-mode case result in ACP's words: its transcript, and the findings' texts.
#[must_use]
pub fn result(mut r: CaseResult) -> CaseResult {
    for s in [&mut r.expected, &mut r.actual, &mut r.reason]
        .into_iter()
        .flatten()
    {
        *s = text(s);
    }
    r.transcript = r.transcript.into_iter().map(entry).collect();
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(dir: &str, line: &str) -> Entry {
        Entry {
            dir: dir.into(),
            ms: 0,
            line: line.into(),
        }
    }

    #[test]
    fn directions_are_the_recordings_words_and_notes_name_the_agent() {
        assert_eq!(entry(row("c2s", "{}")).dir, "c2a");
        assert_eq!(entry(row("s2c", "{}")).dir, "a2c");
        assert_eq!(entry(row("stderr", "x")).dir, "a2c-stderr");
        assert_eq!(
            entry(row("note", "closed the server's stdin (EOF)")).line,
            "closed the agent's stdin (EOF)"
        );
        assert_eq!(
            entry(row("note", "started server, pid 7")).line,
            "started agent, pid 7"
        );
    }

    #[test]
    fn a_closed_connection_is_the_agents() {
        assert_eq!(
            text("the server closed the connection (the server exited with status 1)"),
            "the agent closed the connection (the agent exited with status 1)"
        );
        assert_eq!(
            text("the server to stay up (session/prompt)"),
            "the agent to stay up (session/prompt)"
        );
    }

    #[test]
    fn what_the_agent_sent_keeps_its_words() {
        let sent =
            r#"{"error":{"message":"the server closed the connection while waiting for x"}}"#;
        assert_eq!(entry(row("s2c", sent)).line, sent);
        assert_eq!(
            entry(row("stderr", "server exited: 1")).line,
            "server exited: 1"
        );
        assert_eq!(
            text(r#"got {"error": "Internal server error"}"#),
            r#"got {"error": "Internal server error"}"#
        );
    }
}
