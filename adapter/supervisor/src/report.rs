//! What the supervisor process sends back and which signals wake it: the report writer, the
//! cleanup report built from the survivors, and the signal set of its event loop. Shared by the
//! start-up (`supervise`) and the event loop (`watch`), so neither names the other's internals.

use std::io::Write;
use std::os::unix::net::UnixStream;

use nix::sys::signal::{SigSet, Signal};

use crate::protocol::{self, MAX_SURVIVORS_LISTED, Report};

/// Writes reports; a write error means the adapter is gone, which the lifeline's EOF tells.
pub(crate) struct Reporter {
    /// The control socket: reports out, the lifeline in.
    pub(crate) control: UnixStream,
}

impl Reporter {
    pub(crate) fn send(&mut self, report: &Report) {
        let _ = self.control.write_all(&protocol::encode(report));
    }
}

/// The signals the event loop reads: SIGTERM, SIGINT and SIGHUP to the supervisor (terminate
/// the run), and `SIGCHLD`, which wakes it for every exit of one of its children.
pub(crate) fn handled_signals() -> SigSet {
    let mut set = SigSet::empty();
    set.add(Signal::SIGCHLD);
    set.add(Signal::SIGTERM);
    set.add(Signal::SIGINT);
    set.add(Signal::SIGHUP);
    set
}

/// The final `cleanup` report: confirmed only with no survivor and no note (SUP-3).
pub(crate) fn cleanup_report(mut survivors: Vec<u32>, mut notes: Vec<String>) -> Report {
    survivors.sort_unstable();
    if !survivors.is_empty() {
        notes.insert(
            0,
            format!(
                "{} process(es) of the native group still alive after SIGKILL",
                survivors.len()
            ),
        );
    }
    let confirmed = notes.is_empty();
    survivors.truncate(MAX_SURVIVORS_LISTED);
    Report::Cleanup {
        confirmed,
        survivors,
        error: (!confirmed).then(|| protocol::bounded_message(&notes.join("; "))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cleanup_report_is_confirmed_only_without_survivors_or_notes() {
        assert_eq!(
            cleanup_report(vec![], vec![]),
            Report::Cleanup {
                confirmed: true,
                survivors: vec![],
                error: None
            }
        );
        let Report::Cleanup {
            confirmed,
            survivors,
            error,
        } = cleanup_report(vec![9, 3], vec![])
        else {
            panic!("not a cleanup report");
        };
        assert!(!confirmed);
        assert_eq!(survivors, vec![3, 9]);
        assert!(error.unwrap().contains("2 process(es)"));
        let Report::Cleanup { confirmed, .. } = cleanup_report(vec![], vec!["reap failed".into()])
        else {
            panic!("not a cleanup report");
        };
        assert!(!confirmed);
    }

    #[test]
    fn cleanup_report_lists_a_bounded_number_of_survivors() {
        let many: Vec<u32> = (1..=1000).collect();
        let Report::Cleanup {
            survivors, error, ..
        } = cleanup_report(many, vec![])
        else {
            panic!("not a cleanup report");
        };
        assert_eq!(survivors.len(), MAX_SURVIVORS_LISTED);
        assert!(error.unwrap().starts_with("1000 process(es)"));
    }
}
