//! `--record FILE` opens a private file: it holds prompts and output, so it is created with mode
//! 0600 whatever the umask, never written through a symbolic link, and an existing file is
//! replaced only with `--record-overwrite`.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use crate::support::adapter_bin;

/// Runs the adapter under `umask` with `args` and stdin at EOF: it either refuses to start or
/// serves nothing and exits.
fn adapter_with(umask: &str, args: &[&std::ffi::OsStr]) -> Output {
    Command::new("/bin/sh")
        .arg("-c")
        .arg(format!("umask {umask}; exec \"$0\" \"$@\""))
        .arg(adapter_bin())
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run the adapter")
}

fn record_args<'a>(path: &'a Path, extra: &[&'a str]) -> Vec<&'a std::ffi::OsStr> {
    let mut v: Vec<&std::ffi::OsStr> = vec!["--record".as_ref(), path.as_os_str()];
    v.extend(extra.iter().map(|s| std::ffi::OsStr::new(*s)));
    v
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).expect("stat").permissions().mode() & 0o777
}

#[test]
fn record_file_is_created_0600_under_umask_000() {
    let dir = tempfile::tempdir().expect("temp dir");
    let rec = dir.path().join("session.jsonl");
    let out = adapter_with("000", &record_args(&rec, &[]));
    assert!(out.status.success(), "{out:?}");
    assert_eq!(mode(&rec), 0o600, "the recording holds prompts: private");
}

#[test]
fn record_refuses_a_symlink_and_leaves_its_target_untouched() {
    let dir = tempfile::tempdir().expect("temp dir");
    let victim = dir.path().join("victim");
    std::fs::write(&victim, b"precious\n").expect("victim");
    std::fs::set_permissions(&victim, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    let link = dir.path().join("session.jsonl");
    std::os::unix::fs::symlink(&victim, &link).expect("symlink");
    for extra in [&[][..], &["--record-overwrite"][..]] {
        let out = adapter_with("022", &record_args(&link, extra));
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("symbolic link"),
            "{extra:?}: the refusal names the cause: {stderr}"
        );
        assert_eq!(std::fs::read(&victim).expect("victim"), b"precious\n");
        assert_eq!(mode(&victim), 0o644, "the victim's mode is untouched");
    }
    // A dangling link is refused too: nothing is created at its target.
    let absent = dir.path().join("absent");
    let dangling = dir.path().join("dangling.jsonl");
    std::os::unix::fs::symlink(&absent, &dangling).expect("symlink");
    let out = adapter_with("022", &record_args(&dangling, &["--record-overwrite"]));
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(!absent.exists(), "nothing was created through the link");
}

#[test]
fn record_refuses_an_existing_file_unless_overwrite_is_asked() {
    let dir = tempfile::tempdir().expect("temp dir");
    let rec = dir.path().join("session.jsonl");
    std::fs::write(&rec, b"an earlier session\n").expect("existing");
    std::fs::set_permissions(&rec, std::fs::Permissions::from_mode(0o644)).expect("chmod");

    let out = adapter_with("022", &record_args(&rec, &[]));
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("exists") && stderr.contains("--record-overwrite"),
        "the refusal names the cause and the fix: {stderr}"
    );
    assert_eq!(std::fs::read(&rec).expect("kept"), b"an earlier session\n");

    let out = adapter_with("022", &record_args(&rec, &["--record-overwrite"]));
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        std::fs::read(&rec).expect("replaced"),
        b"",
        "emptied, nothing recorded"
    );
    assert_eq!(mode(&rec), 0o600, "an overwritten recording is private too");
}

#[test]
fn record_overwrite_refuses_a_hard_link() {
    let dir = tempfile::tempdir().expect("temp dir");
    let victim = dir.path().join("victim");
    std::fs::write(&victim, b"precious\n").expect("victim");
    let rec = dir.path().join("session.jsonl");
    std::fs::hard_link(&victim, &rec).expect("hard link");
    let out = adapter_with("022", &record_args(&rec, &["--record-overwrite"]));
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert_eq!(std::fs::read(&victim).expect("victim"), b"precious\n");
}
