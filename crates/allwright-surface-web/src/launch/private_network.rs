//! A private user and network namespace for a launched Firefox, so that its remote agent's TCP
//! port exists only on that namespace's own loopback: no other user's process and no page in any
//! browser on the machine can reach it (issue 27; user_namespaces(7), network_namespaces(7)).
//!
//! The child that becomes Firefox, between fork and exec:
//! 1. `unshare(CLONE_NEWUSER | CLONE_NEWNET)`;
//! 2. maps its uid and gid to themselves (`/proc/self/setgroups` "deny", `uid_map`, `gid_map`),
//!    so files, the native host's socket and the peer-uid check see the same user as before;
//! 3. brings the namespace's `lo` up (`SIOCSIFFLAGS`); it is the namespace's only interface;
//! 4. forks a *keeper* that stays inside the namespace (an orphan, so no zombie is left in
//!    Firefox's care), then execs Firefox.
//!
//! allwright cannot enter the namespace itself: `setns(CLONE_NEWNET)` needs CAP_SYS_ADMIN in the
//! caller's own user namespace, and a multithreaded process may not join a user namespace. So
//! the keeper makes TCP sockets on request: allwright writes one byte on a Unix socket pair, the
//! keeper answers with a fresh, unconnected socket passed as SCM_RIGHTS (unix(7)). A socket
//! belongs to the network namespace it was made in, so allwright's `connect` to
//! 127.0.0.1:PORT on it reaches Firefox's remote agent. The keeper exits when allwright closes
//! its end (once the BiDi connection is open), and is in Firefox's process group in any case.
//!
//! This is the crate's only unsafe code: `pre_exec` runs in a child forked from a multithreaded
//! process, where only async-signal-safe calls are allowed (signal-safety(7)), so the child side
//! uses raw libc system calls on memory prepared before the fork and allocates nothing.
#![allow(unsafe_code)]

use std::io::{IoSliceMut, Read, Write};
use std::mem::MaybeUninit;
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::net::UnixStream;

use rustix::net::{RecvAncillaryBuffer, RecvAncillaryMessage, RecvFlags};

/// A step of the child's namespace setup. On failure the child writes the step's number on the
/// socket pair before it reports the error, so that the launch error names the step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SetupStep {
    CreateNamespaces = 1,
    DenySetgroups = 2,
    MapUser = 3,
    MapGroup = 4,
    BringLoopbackUp = 5,
    StartKeeper = 6,
}

impl SetupStep {
    fn from_byte(byte: u8) -> Option<Self> {
        [
            Self::CreateNamespaces,
            Self::DenySetgroups,
            Self::MapUser,
            Self::MapGroup,
            Self::BringLoopbackUp,
            Self::StartKeeper,
        ]
        .into_iter()
        .find(|step| *step as u8 == byte)
    }

    pub(crate) fn describe(self) -> &'static str {
        match self {
            Self::CreateNamespaces => "creating a user and network namespace (unshare)",
            Self::DenySetgroups => "writing /proc/self/setgroups in the new user namespace",
            Self::MapUser => "mapping the user id in the new user namespace (uid_map)",
            Self::MapGroup => "mapping the group id in the new user namespace (gid_map)",
            Self::BringLoopbackUp => {
                "bringing up the loopback interface of the new network namespace"
            }
            Self::StartKeeper => "starting the socket keeper inside the namespace (fork)",
        }
    }
}

/// allwright's side of a private namespace that is about to be made: the end of the socket pair
/// that talks to the keeper. Created before the spawn; [`PrivateNetwork::install`] arranges the
/// child's setup on the command.
pub(crate) struct PrivateNetwork {
    keeper: UnixStream,
}

impl PrivateNetwork {
    /// Makes the socket pair and puts the namespace setup into `command`'s `pre_exec`.
    pub(crate) fn install(command: &mut tokio::process::Command) -> std::io::Result<Self> {
        let (ours, keepers) = UnixStream::pair()?;
        // Prepared before the fork: the child may not allocate. The ids are the caller's own,
        // mapped to themselves ("ID-inside-ns ID-outside-ns length", user_namespaces(7)).
        let user_map =
            format!("{id} {id} 1\n", id = rustix::process::geteuid().as_raw()).into_bytes();
        let group_map =
            format!("{id} {id} 1\n", id = rustix::process::getegid().as_raw()).into_bytes();
        // SAFETY: the closure runs in the forked child before exec and only makes raw system
        // calls on memory it owns (`user_map`, `group_map`, stack buffers); it takes no locks
        // and allocates nothing. `keepers` stays open in the parent until the command is dropped
        // (after the spawn), so its descriptor is valid in the child.
        unsafe {
            command.pre_exec(move || {
                enter_private_namespace(keepers.as_raw_fd(), &user_map, &group_map)
            });
        }
        Ok(Self { keeper: ours })
    }

    /// After a failed spawn: the step the child reported, if it got as far as the setup.
    pub(crate) fn failed_step(&self) -> Option<SetupStep> {
        self.keeper.set_nonblocking(true).ok()?;
        let mut byte = [0u8; 1];
        let step = match (&self.keeper).read(&mut byte) {
            Ok(1) => SetupStep::from_byte(byte[0]),
            _ => None,
        };
        let _ = self.keeper.set_nonblocking(false);
        step
    }

    /// A fresh TCP socket made inside the namespace, not yet connected. Blocks for the keeper's
    /// answer (a moment); call it from a blocking context.
    pub(crate) fn socket_inside(&self) -> std::io::Result<std::net::TcpStream> {
        (&self.keeper).write_all(&[1])?;
        let mut byte = [0u8; 1];
        let mut space = [MaybeUninit::<u8>::uninit(); rustix::cmsg_space!(ScmRights(1))];
        let mut control = RecvAncillaryBuffer::new(&mut space);
        let received = rustix::net::recvmsg(
            &self.keeper,
            &mut [IoSliceMut::new(&mut byte)],
            &mut control,
            RecvFlags::CMSG_CLOEXEC,
        )?;
        if received.bytes == 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the socket keeper in Firefox's namespace has exited",
            ));
        }
        for message in control.drain() {
            if let RecvAncillaryMessage::ScmRights(mut descriptors) = message {
                if let Some(descriptor) = descriptors.next() {
                    return Ok(std::net::TcpStream::from(descriptor));
                }
            }
        }
        Err(std::io::Error::other(
            "the socket keeper in Firefox's namespace could not make a socket",
        ))
    }
}

/// The child's setup (steps 1 to 4 of the module doc). Returns an error with the system's errno
/// after writing the failed step on `keeper_socket`; `std` then reports it as the spawn's error.
fn enter_private_namespace(
    keeper_socket: RawFd,
    user_map: &[u8],
    group_map: &[u8],
) -> std::io::Result<()> {
    let fail = |step: SetupStep| {
        // The errno is read before `send` can change it; `last_os_error` does not allocate.
        let error = std::io::Error::last_os_error();
        let byte = step as u8;
        // SAFETY: a one-byte send from a stack variable on a descriptor this child holds.
        unsafe {
            libc::send(
                keeper_socket,
                std::ptr::from_ref(&byte).cast(),
                1,
                libc::MSG_NOSIGNAL,
            );
        }
        error
    };
    // SAFETY (the whole block): raw system calls on descriptors this child opens and on memory
    // it owns; see the module doc for why nothing here may allocate.
    unsafe {
        if libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNET) != 0 {
            return Err(fail(SetupStep::CreateNamespaces));
        }
        // An unprivileged process must deny setgroups before it may write gid_map.
        if !write_whole_file(c"/proc/self/setgroups", b"deny") {
            return Err(fail(SetupStep::DenySetgroups));
        }
        if !write_whole_file(c"/proc/self/uid_map", user_map) {
            return Err(fail(SetupStep::MapUser));
        }
        if !write_whole_file(c"/proc/self/gid_map", group_map) {
            return Err(fail(SetupStep::MapGroup));
        }
        if !bring_loopback_up() {
            return Err(fail(SetupStep::BringLoopbackUp));
        }
        // Two forks: the middle process exits at once and is reaped here, so the keeper is
        // not Firefox's child (Firefox never waits for it, it would stay a zombie) but an
        // orphan that init reaps. It stays in Firefox's process group, which is ended as one.
        let middle = libc::fork();
        if middle == -1 {
            return Err(fail(SetupStep::StartKeeper));
        }
        if middle == 0 {
            if libc::fork() == 0 {
                keep_making_sockets(keeper_socket);
            }
            libc::_exit(0);
        }
        let mut status = 0;
        while libc::waitpid(middle, &mut status, 0) == -1
            && std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR)
        {}
    }
    Ok(())
}

/// Writes `contents` to `path` in one `write`, as /proc's id maps require.
///
/// # Safety
/// Only raw system calls; callable between fork and exec.
unsafe fn write_whole_file(path: &std::ffi::CStr, contents: &[u8]) -> bool {
    let descriptor = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
    if descriptor < 0 {
        return false;
    }
    let written = libc::write(descriptor, contents.as_ptr().cast(), contents.len());
    libc::close(descriptor);
    usize::try_from(written).is_ok_and(|written| written == contents.len())
}

/// `ip link set lo up` by hand: a new network namespace's loopback starts down
/// (network_namespaces(7)), and Firefox's remote agent binds 127.0.0.1 on it.
///
/// # Safety
/// Only raw system calls on a stack `ifreq`; callable between fork and exec.
unsafe fn bring_loopback_up() -> bool {
    let descriptor = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
    if descriptor < 0 {
        return false;
    }
    let mut request: libc::ifreq = std::mem::zeroed();
    for (slot, byte) in request.ifr_name.iter_mut().zip(b"lo\0") {
        *slot = *byte as libc::c_char;
    }
    let brought_up = libc::ioctl(descriptor, libc::SIOCGIFFLAGS as _, &mut request) == 0 && {
        request.ifr_ifru.ifru_flags |= libc::IFF_UP as libc::c_short;
        libc::ioctl(descriptor, libc::SIOCSIFFLAGS as _, &request) == 0
    };
    libc::close(descriptor);
    brought_up
}

/// The keeper: for each byte allwright writes, one fresh TCP socket sent back as SCM_RIGHTS;
/// exits when allwright closes its end. Never returns.
///
/// # Safety
/// Runs in a process forked from the pre-exec child: only raw system calls.
unsafe fn keep_making_sockets(keeper_socket: RawFd) -> ! {
    // The keeper never execs, so the descriptors it inherited (allwright's end of the pair, std's
    // exec-error pipe) would stay open and keep their readers waiting. Keep stdio and the pair's
    // keeper end (moved to 3), close the rest.
    const KEEPER_SOCKET: RawFd = 3;
    if keeper_socket != KEEPER_SOCKET && libc::dup2(keeper_socket, KEEPER_SOCKET) < 0 {
        libc::_exit(1);
    }
    if libc::syscall(libc::SYS_close_range, 4u32, u32::MAX, 0u32) != 0 {
        // Kernels before 5.9 have no close_range.
        for descriptor in 4..65_536 {
            libc::close(descriptor);
        }
    }
    loop {
        let mut request = 0u8;
        let read = libc::read(KEEPER_SOCKET, std::ptr::from_mut(&mut request).cast(), 1);
        if read == 0 {
            libc::_exit(0);
        }
        if read < 0 {
            if std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
                continue;
            }
            libc::_exit(1);
        }
        let socket = libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
        send_descriptor(KEEPER_SOCKET, socket);
        if socket >= 0 {
            libc::close(socket);
        }
    }
}

/// Sends one byte, with `descriptor` attached as SCM_RIGHTS when it is valid (a byte alone tells
/// allwright that no socket could be made).
///
/// # Safety
/// Only raw system calls on stack buffers.
unsafe fn send_descriptor(over: RawFd, descriptor: RawFd) {
    let mut byte = [1u8];
    let mut part = libc::iovec {
        iov_base: byte.as_mut_ptr().cast(),
        iov_len: 1,
    };
    // u64s keep the control buffer aligned for `cmsghdr`; 32 bytes hold CMSG_SPACE of one int.
    let mut control = [0u64; 4];
    let mut message: libc::msghdr = std::mem::zeroed();
    message.msg_iov = &mut part;
    message.msg_iovlen = 1;
    if descriptor >= 0 {
        let descriptor_size = std::mem::size_of::<libc::c_int>() as libc::c_uint;
        message.msg_control = control.as_mut_ptr().cast();
        message.msg_controllen = libc::CMSG_SPACE(descriptor_size) as _;
        let header = libc::CMSG_FIRSTHDR(&message);
        (*header).cmsg_level = libc::SOL_SOCKET;
        (*header).cmsg_type = libc::SCM_RIGHTS;
        (*header).cmsg_len = libc::CMSG_LEN(descriptor_size) as _;
        std::ptr::write_unaligned(libc::CMSG_DATA(header).cast::<libc::c_int>(), descriptor);
    }
    libc::sendmsg(over, &message, libc::MSG_NOSIGNAL);
}
