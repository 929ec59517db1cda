//! The descriptor frame: how the adapter hands a supervisor the descriptors of its job (the
//! native stdout and stderr pipes' write ends, the native stdin pipe's read end, a version check's
//! run pipe ends) over the control socket, as `SCM_RIGHTS`, instead of letting the supervisor
//! inherit them.
//!
//! Inheriting them under fixed numbers needed `pre_exec` hooks in the adapter, and any hook makes
//! std start the supervisor with fork(2) of the whole multi-threaded adapter (page-table copy,
//! copy-on-write faults afterwards) instead of posix_spawn(3) (`clone(CLONE_VM|CLONE_VFORK)`):
//! measurable on every run (`bench/run-overhead.md`); and a supervisor started ahead of its run (a
//! spare, `client.rs`) cannot inherit what does not exist yet. Passed here, every descriptor
//! stays close-on-exec on both sides, so a supervisor started concurrently for another run never
//! inherits them, and neither does the native process unless the supervisor hands one on as its
//! stdio (NAT-8).
//!
//! The frame is the first thing the adapter writes on the socket: one byte, [`FRAME_BYTE`],
//! carrying all descriptors in one `SCM_RIGHTS` message. The job's order that follows says how
//! many belong to it (`supervise.rs` checks the count).

use std::io::{self, IoSlice, IoSliceMut};
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::time::Duration;

use nix::sys::socket::{ControlMessage, ControlMessageOwned, MsgFlags, recvmsg, sendmsg};

/// The one data byte of the descriptor frame (`SCM_RIGHTS` needs at least one).
pub(super) const FRAME_BYTE: u8 = b'F';

/// Most descriptors one frame carries: the native stdout and stderr, the native stdin pipe's
/// read end and a run's three ends.
pub(super) const MAX_FDS: usize = 6;

/// Adapter side: sends `fds` as the descriptor frame on `socket`. Never blocks: the frame is the
/// first thing written on a fresh socket, so its buffer has room.
pub(super) fn send(socket: BorrowedFd<'_>, fds: &[BorrowedFd<'_>]) -> io::Result<()> {
    let raw: Vec<i32> = fds.iter().map(AsRawFd::as_raw_fd).collect();
    let rights = [ControlMessage::ScmRights(&raw)];
    let sent = sendmsg::<()>(
        socket.as_raw_fd(),
        &[IoSlice::new(&[FRAME_BYTE])],
        if raw.is_empty() { &[] } else { &rights },
        // A dead supervisor is an error here, not a SIGPIPE.
        MsgFlags::MSG_DONTWAIT | MsgFlags::MSG_NOSIGNAL,
        None,
    )?;
    if sent == 1 {
        Ok(())
    } else {
        Err(io::Error::other("the descriptor frame was not sent whole"))
    }
}

/// Supervisor side: receives the descriptor frame (its descriptors received close-on-exec),
/// waiting at most `bound` (`None`: as long as the adapter keeps the socket open). `Ok(None)` on
/// EOF (the adapter let go, exited or died: nothing to start); `Err` on a read error or timeout,
/// or a frame with another byte, more than [`MAX_FDS`] descriptors or another control message.
/// Descriptors of a rejected frame are closed.
pub(super) fn receive(
    socket: &UnixStream,
    bound: Option<Duration>,
) -> Result<Option<Vec<OwnedFd>>, String> {
    socket
        .set_read_timeout(bound)
        .map_err(|e| format!("cannot bound the descriptor wait: {e}"))?;
    let got = receive_once(socket);
    // Later reads (the order, the lifeline, the run's go) have their own waits.
    socket
        .set_read_timeout(None)
        .map_err(|e| format!("cannot unbound the control socket: {e}"))?;
    match got? {
        (None, _) => Ok(None),
        (Some(FRAME_BYTE), fds) => Ok(Some(fds)),
        (Some(b), _) => Err(format!("expected the descriptor frame, got byte {b:#04x}")),
    }
}

/// One `recvmsg` of at most one data byte: the byte (`None` at EOF) and the descriptors it
/// carried, owned (so closed on any later rejection).
fn receive_once(socket: &UnixStream) -> Result<(Option<u8>, Vec<OwnedFd>), String> {
    let mut byte = [0u8; 1];
    let mut iov = [IoSliceMut::new(&mut byte)];
    let mut space = nix::cmsg_space!([i32; MAX_FDS]);
    let msg = loop {
        match recvmsg::<()>(
            socket.as_raw_fd(),
            &mut iov,
            Some(&mut space),
            MsgFlags::MSG_CMSG_CLOEXEC,
        ) {
            Err(nix::errno::Errno::EINTR) => {}
            Err(nix::errno::Errno::EAGAIN) => {
                return Err("no descriptors from the adapter within the bound".into());
            }
            Err(e) => return Err(format!("cannot receive the descriptors: {e}")),
            Ok(msg) => break msg,
        }
    };
    let bytes = msg.bytes;
    let mut fds = Vec::new();
    let mut other = None;
    // `cmsgs` fails only when the kernel truncated the control data (more descriptors than
    // MAX_FDS); the ones that fit are then not reachable through nix and stay open until exit,
    // which follows this error at once.
    let cmsgs = msg
        .cmsgs()
        .map_err(|_| format!("more than {MAX_FDS} descriptors from the adapter"))?;
    for cmsg in cmsgs {
        match cmsg {
            ControlMessageOwned::ScmRights(raw) => {
                // SAFETY: the kernel just installed these descriptors in this process for this
                // message; nothing else knows their numbers, so each gets exactly one owner.
                fds.extend(
                    raw.into_iter()
                        .map(|fd| unsafe { OwnedFd::from_raw_fd(fd) }),
                );
            }
            o => other = Some(format!("{o:?}")),
        }
    }
    if let Some(o) = other {
        return Err(format!("unexpected control message from the adapter: {o}"));
    }
    Ok(((bytes == 1).then_some(byte[0]), fds))
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::os::fd::AsFd;

    use super::*;

    const BOUND: Duration = Duration::from_secs(20);

    fn pipe() -> (OwnedFd, OwnedFd) {
        nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC).unwrap()
    }

    fn is_cloexec(fd: &OwnedFd) -> bool {
        let flags = nix::fcntl::fcntl(fd, nix::fcntl::FcntlArg::F_GETFD).unwrap();
        flags & libc::FD_CLOEXEC != 0
    }

    #[test]
    fn the_descriptors_arrive_close_on_exec_and_later_bytes_stay_on_the_socket() {
        let (sup, adapter) = UnixStream::pair().unwrap();
        let (r, w) = pipe();
        let (r2, _w2) = pipe();
        send(adapter.as_fd(), &[r.as_fd(), r2.as_fd()]).unwrap();
        (&adapter).write_all(b"next\n").unwrap();
        let fds = receive(&sup, Some(BOUND)).unwrap().expect("a frame");
        assert_eq!(fds.len(), 2);
        assert!(fds.iter().all(is_cloexec));
        // The first received descriptor is the pipe's read end we sent.
        drop(r);
        nix::unistd::write(&w, b"x").unwrap();
        let mut got = [0u8; 1];
        nix::unistd::read(&fds[0], &mut got).unwrap();
        assert_eq!(&got, b"x");
        // The frame took only its own byte; the socket is unbounded again for later reads.
        let mut rest = [0u8; 5];
        io::Read::read_exact(&mut &sup, &mut rest).unwrap();
        assert_eq!(&rest, b"next\n");
        assert_eq!(sup.read_timeout().unwrap(), None);
    }

    #[test]
    fn eof_before_the_frame_is_no_job_and_an_unbounded_wait_ends_there() {
        let (sup, adapter) = UnixStream::pair().unwrap();
        drop(adapter);
        assert!(receive(&sup, Some(BOUND)).unwrap().is_none());
        // A spare waits without a bound; its adapter's end closing in the meantime ends it.
        let (sup, adapter) = UnixStream::pair().unwrap();
        let closer = std::thread::spawn(move || drop(adapter));
        assert!(receive(&sup, None).unwrap().is_none());
        closer.join().unwrap();
    }

    #[test]
    fn a_frame_without_descriptors_arrives_empty() {
        let (sup, adapter) = UnixStream::pair().unwrap();
        send(adapter.as_fd(), &[]).unwrap();
        assert_eq!(
            receive(&sup, Some(BOUND)).unwrap().expect("a frame").len(),
            0
        );
    }

    #[test]
    fn more_descriptors_than_a_frame_holds_is_an_error() {
        let (sup, adapter) = UnixStream::pair().unwrap();
        let (r, _w) = pipe();
        let many = vec![r.as_fd(); MAX_FDS + 4];
        send(adapter.as_fd(), &many).unwrap();
        let err = receive(&sup, Some(BOUND)).unwrap_err();
        assert!(err.contains("more than"), "{err}");
    }

    #[test]
    fn plain_bytes_instead_of_the_frame_are_an_error() {
        let (sup, adapter) = UnixStream::pair().unwrap();
        (&adapter).write_all(b"{}\n").unwrap();
        let err = receive(&sup, Some(BOUND)).unwrap_err();
        assert!(err.contains("expected the descriptor frame"), "{err}");
    }

    #[test]
    fn a_silent_adapter_ends_a_bounded_wait_at_the_bound() {
        let (sup, _adapter) = UnixStream::pair().unwrap();
        let err = receive(&sup, Some(Duration::from_millis(50))).unwrap_err();
        assert!(err.contains("within the bound"), "{err}");
    }
}
