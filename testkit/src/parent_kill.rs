//! The C-SUP-5 probe: a child command that `SIGKILL`s the tool that started it as its very first
//! act, so a test can check that the tool's lifeline watchdog still kills the child's whole group
//! however early after the spawn the tool dies (the window between the spawn and the tool's own
//! registration of the group is what the child-side registration closes).
//!
//! The probe is `sh -c SCRIPT` (or the script as an executable file): it appends its pid (its group's id: the tool starts it as a group
//! leader) to a file, backgrounds a `sleep` in its group (the part `PR_SET_PDEATHSIG` on the
//! leader would not reach), then `kill -9 $PPID`. [`assert_parent_sigkill_leaves_no_group`]
//! repeats that [`ROUNDS`] times, each time waiting for the tool's end and then for the probe's
//! group to be gone (on pidfds: no sleeps), and fails naming what is left.

use std::path::PathBuf;
use std::process::Child;
use std::time::Duration;

use crate::procs::{self, KillOnDrop};

/// How many times a test starts the tool and lets the probe kill it: each round is a fresh
/// draw of the scheduler's order between the tool's return from the spawn and the probe's kill.
pub const ROUNDS: usize = 12;

/// The bound of every wait of a round (the tool's death, the group's end).
pub const BOUND: Duration = Duration::from_secs(20);

/// One round's probe: where it records its group.
#[derive(Debug)]
pub struct ParentKiller {
    dir: tempfile::TempDir,
}

impl ParentKiller {
    /// A probe recording into a fresh temporary directory.
    ///
    /// # Panics
    /// The directory cannot be made.
    #[must_use]
    pub fn new() -> Self {
        Self {
            dir: tempfile::tempdir().expect("a temporary directory for the probe"),
        }
    }

    /// A folder of the probe's, removed with it: a tool that makes temporary folders is given
    /// it as its `TMPDIR`, so what its `SIGKILL` left behind does not pile up in `/tmp`.
    #[must_use]
    pub fn scratch(&self) -> &std::path::Path {
        self.dir.path()
    }

    fn record(&self) -> PathBuf {
        self.dir.path().join("groups")
    }

    /// The shell script the probe runs (for tools that take a command and its arguments apart).
    #[must_use]
    pub fn script(&self) -> String {
        format!(
            "echo $$ >> '{}'; sleep 300 & kill -9 $PPID; wait",
            self.record().display()
        )
    }

    /// The probe's argv: `sh -c SCRIPT`.
    #[must_use]
    pub fn argv(&self) -> Vec<String> {
        vec!["sh".into(), "-c".into(), self.script()]
    }

    /// The probe as an executable script (for tools that take a program path and no argument
    /// of the test's); written on each call.
    ///
    /// # Panics
    /// The script cannot be written.
    #[must_use]
    pub fn executable(&self) -> PathBuf {
        use std::os::unix::fs::PermissionsExt as _;
        let path = self.dir.path().join("probe");
        std::fs::write(&path, format!("#!/bin/sh\n{}\n", self.script())).expect("write the probe");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
            .expect("make the probe executable");
        path
    }

    /// The groups the probe's instances recorded (each leads its own).
    #[must_use]
    pub fn groups(&self) -> Vec<u32> {
        std::fs::read_to_string(self.record())
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect()
    }
}

impl Default for ParentKiller {
    fn default() -> Self {
        Self::new()
    }
}

/// Starts the tool [`ROUNDS`] times with `start` (which gets the round's probe to make the tool
/// spawn), and asserts each time that the probe's `SIGKILL` ended the tool and that every group
/// the probe recorded is then gone: the tool's watchdog killed it (C-SUP-5). `what` names the
/// spawn site in failures. Whatever a failed round leaves is killed when it ends.
///
/// # Panics
/// A round fails: the tool did not die by the probe's `SIGKILL` within [`BOUND`], the probe
/// recorded no group, or a recorded group still has a live member after [`BOUND`].
pub fn assert_parent_sigkill_leaves_no_group(
    what: &str,
    mut start: impl FnMut(&ParentKiller) -> Child,
) {
    use std::os::unix::process::ExitStatusExt as _;
    for round in 1..=ROUNDS {
        let probe = ParentKiller::new();
        let mut tool = start(&probe);
        let mut guard = KillOnDrop::new();
        guard.pid(tool.id());
        assert!(
            procs::wait_gone(tool.id(), BOUND),
            "{what}, round {round}: the tool did not end (the probe never ran?)"
        );
        let status = tool.wait().expect("the tool's status");
        let groups = probe.groups();
        for g in &groups {
            guard.group(*g);
        }
        assert_eq!(
            status.signal(),
            Some(9),
            "{what}, round {round}: the tool ended by {status:?}, not by the probe's SIGKILL \
             (groups recorded: {groups:?})"
        );
        assert!(
            !groups.is_empty(),
            "{what}, round {round}: the probe killed the tool but recorded no group"
        );
        for g in groups {
            let left = procs::wait_group_gone(g, BOUND);
            assert!(
                left.is_empty(),
                "{what}, round {round}: group {g} outlived its SIGKILLed tool (C-SUP-5): {left:?}"
            );
        }
    }
}
