//! The one folder allwright makes for a browser session (`--launch`, `--webdriver http://...`,
//! `allwright snapshot`): the browser's profile, its HOME, TMPDIR and XDG folders, the host's
//! socket and the logs (which may hold page console output) all live in it.
//!
//! What holds (docs/security.md, "Session folders"):
//!
//! - It is private from its creation: the folder is made 0700, and the process umask is set to
//!   077 before anything is made in it, so that what the browsers write themselves (Chromium's
//!   `DevToolsActivePort` and logs, Firefox's profile) is 0600/0700 too.
//! - It is removed on every exit path this process sees: the normal end and the signals (the
//!   callers, through `exit_signals.rs`) and a failed launch (`Drop`).
//! - A folder left by a run that could not clean up (SIGKILL, a power cut) is removed at the
//!   next start, together with any process it left running (found by the folder in its
//!   environment, or its profile in its command line). A folder counts as stale only when
//!   it is ours in every way: in our temporary root, named `allwright-session-<pid>-<random>`,
//!   a real folder (not a symlink) owned by our uid, its owner `<pid>` gone, and its lock free. The
//!   owner holds an exclusive `flock` on the folder for its whole life, so two sessions running at
//!   once never remove each other's folders, even when a pid has been reused.

use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use rustix::fd::OwnedFd;
use rustix::fs::{FlockOperation, Mode, OFlags};

use crate::local_socket::current_uid;
use crate::log;

/// The start of every session folder's name; the owner's pid and a random part follow.
pub const SESSION_FOLDER_PREFIX: &str = "allwright-session-";

/// The mode of every folder allwright makes for a session: only its owner may enter it.
const PRIVATE_FOLDER_MODE: u32 = 0o700;

/// What the umask takes away while a session runs: everything for the group and others, so that
/// files the browsers create (without a mode of ours) are private from their first byte.
const SESSION_UMASK: u32 = 0o077;

/// A session folder, removed when dropped (see the module documentation).
pub struct SessionFolder {
    folder: tempfile::TempDir,
    /// The exclusive `flock` that tells a later sweep this folder's owner is alive. Opened with
    /// `O_CLOEXEC`, so no browser or host inherits it (their lives must not keep it held).
    _owner_lock: OwnedFd,
}

impl SessionFolder {
    /// Removes stale session folders from the temporary root, then makes a fresh one there.
    pub fn create() -> Result<Self, String> {
        rustix::process::umask(Mode::from_raw_mode(SESSION_UMASK as _));
        let root = std::env::temp_dir();
        let removed = remove_stale_session_folders(&root);
        if removed > 0 {
            log!(
                "removed {removed} stale session folder(s) from {}",
                root.display()
            );
        }
        let folder = tempfile::Builder::new()
            .prefix(&format!("{SESSION_FOLDER_PREFIX}{}-", std::process::id()))
            .permissions(std::fs::Permissions::from_mode(PRIVATE_FOLDER_MODE))
            .tempdir_in(&root)
            .map_err(|error| {
                format!(
                    "cannot create a session folder in {}: {error}",
                    root.display()
                )
            })?;
        let owner_lock = open_folder_without_following(folder.path())
            .and_then(|descriptor| {
                rustix::fs::flock(&descriptor, FlockOperation::NonBlockingLockExclusive)?;
                Ok(descriptor)
            })
            .map_err(|error| {
                format!(
                    "cannot lock the session folder {}: {error}",
                    folder.path().display()
                )
            })?;
        Ok(Self {
            folder,
            _owner_lock: owner_lock,
        })
    }

    pub fn path(&self) -> &Path {
        self.folder.path()
    }

    /// Makes `relative` (and any folder on the way) inside the session folder, each 0700 from
    /// its creation.
    pub fn private_folder(&self, relative: &str) -> Result<PathBuf, String> {
        let path = self.path().join(relative);
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(PRIVATE_FOLDER_MODE)
            .create(&path)
            .map_err(|error| format!("cannot create {}: {error}", path.display()))?;
        Ok(path)
    }

    /// Makes an empty file `relative` with `mode` (0600 for a log, 0700 for a script), so that
    /// whoever appends to it later keeps that mode.
    pub fn private_file(&self, relative: &str, mode: u32) -> Result<PathBuf, String> {
        use std::os::unix::fs::OpenOptionsExt;
        let path = self.path().join(relative);
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .open(&path)
            .map_err(|error| format!("cannot create {}: {error}", path.display()))?;
        Ok(path)
    }

    /// Removes the folder now, saying so in the log when it cannot.
    pub fn remove(self) {
        let path = self.path().to_owned();
        if let Err(error) = self.folder.close() {
            log!("could not remove {}: {error}", path.display());
        }
    }
}

fn open_folder_without_following(path: &Path) -> rustix::io::Result<OwnedFd> {
    rustix::fs::open(
        path,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )
}

/// The owner pid a session folder's name records, when `name` is one.
pub fn session_folder_owner(name: &std::ffi::OsStr) -> Option<u32> {
    let rest = name.to_str()?.strip_prefix(SESSION_FOLDER_PREFIX)?;
    let (pid, random) = rest.split_once('-')?;
    if random.is_empty() || pid.is_empty() || !pid.bytes().all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    pid.parse().ok()
}

/// Whether process `pid` is running (as any user: a pid we may not signal is still alive). A
/// zombie is not: it has ended, and only waits for its parent to read its status.
fn process_is_alive(pid: u32) -> bool {
    #[cfg(target_os = "linux")]
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // "pid (command) S ...": the state follows the command's closing parenthesis.
        Ok(stat) => {
            return !matches!(
                stat.rsplit_once(')')
                    .and_then(|(_, rest)| rest.trim_start().chars().next()),
                Some('Z' | 'X')
            )
        }
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return false,
        Err(_) => {}
    }
    let Some(pid) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    else {
        return false;
    };
    !matches!(
        rustix::process::test_kill_process(pid),
        Err(rustix::io::Errno::SRCH)
    )
}

/// How long the sweep waits for the processes it ended to be gone before it removes their folder:
/// a process still dying may be writing there.
const ENDED_PROCESSES_PATIENCE: std::time::Duration = std::time::Duration::from_secs(3);

/// Removes the session folders in `root` whose owner is gone (see the module documentation),
/// after ending any process that still uses one. Returns how many it removed. Anything it cannot
/// read or is not sure of is left alone.
pub fn remove_stale_session_folders(root: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(root) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let Some(owner) = session_folder_owner(&entry.file_name()) else {
            continue;
        };
        let path = entry.path();
        let Ok(metadata) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if !metadata.file_type().is_dir() || metadata.uid() != current_uid() {
            continue;
        }
        if owner == std::process::id() || process_is_alive(owner) {
            continue;
        }
        // The lock settles a reused pid and the moment between a folder's creation and its lock.
        let Ok(descriptor) = open_folder_without_following(&path) else {
            continue;
        };
        if rustix::fs::flock(&descriptor, FlockOperation::NonBlockingLockExclusive).is_err() {
            continue;
        }
        let ended = end_processes_using(&path);
        let deadline = std::time::Instant::now() + ENDED_PROCESSES_PATIENCE;
        while ended.iter().any(|pid| process_is_alive(*pid)) && std::time::Instant::now() < deadline
        {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        // A last write of a dying process may still land between two removals: a few tries.
        let mut outcome = std::fs::remove_dir_all(&path);
        for _ in 0..3 {
            if outcome.is_ok() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
            outcome = std::fs::remove_dir_all(&path);
        }
        match outcome {
            Ok(()) => removed += 1,
            Err(error) => log!("could not remove the stale {}: {error}", path.display()),
        }
    }
    removed
}

/// SIGKILLs every process of ours that a killed session left running with `folder`: a browser,
/// driver or host, which all inherit the session's TMPDIR, HOME and socket (so their environment
/// names the folder), or a browser a remote end started on the folder's profile (so its command
/// line names `<folder>/profile`). A process that merely has a file of the folder open or named
/// (an editor on a log) is left alone. Linux only: elsewhere there is no /proc to read, and the
/// stale folder is removed without them.
fn end_processes_using(folder: &Path) -> Vec<u32> {
    let mut ended = Vec::new();
    let Ok(processes) = std::fs::read_dir("/proc") else {
        return ended;
    };
    let in_environment = folder.as_os_str().as_bytes();
    let profile = folder.join("profile");
    let in_command_line = profile.as_os_str().as_bytes();
    let own_pid = std::process::id();
    for process in processes.flatten() {
        let Some(pid) = process
            .file_name()
            .to_str()
            .and_then(|name| name.parse::<u32>().ok())
        else {
            continue;
        };
        if pid == own_pid {
            continue;
        }
        let read = |file: &str| std::fs::read(process.path().join(file)).unwrap_or_default();
        let left_by_the_session = names_path(&read("environ"), in_environment)
            || names_path(&read("cmdline"), in_command_line);
        if !left_by_the_session {
            continue;
        }
        if let Some(pid) = i32::try_from(pid)
            .ok()
            .and_then(rustix::process::Pid::from_raw)
        {
            log!("ending process {pid:?}, left running by a stale session");
            if rustix::process::kill_process(pid, rustix::process::Signal::KILL).is_ok() {
                ended.push(pid.as_raw_nonzero().get().unsigned_abs());
            }
        }
    }
    ended
}

/// Whether `bytes` (NUL-separated strings, such as `KEY=value` entries or arguments) contains
/// `path` as a whole path or a path's prefix folder: followed by `/`, `=`'s value end (a NUL) or
/// the end, so that `...-abc` is not found in `...-abcd`.
fn names_path(bytes: &[u8], path: &[u8]) -> bool {
    if path.is_empty() {
        return false;
    }
    let mut start = 0;
    while let Some(offset) = bytes[start..]
        .windows(path.len())
        .position(|window| window == path)
    {
        let end = start + offset + path.len();
        if matches!(bytes.get(end), None | Some(b'/') | Some(0)) {
            return true;
        }
        start += offset + 1;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_our_naming_pattern_names_an_owner() {
        use std::ffi::OsStr;
        assert_eq!(
            session_folder_owner(OsStr::new("allwright-session-123-Ab9xYz")),
            Some(123)
        );
        for other in [
            "allwright-0",
            "allwright-Ab9xYz",
            "allwright-webdriver-Ab9xYz",
            "allwright-session-",
            "allwright-session-123",
            "allwright-session-123-",
            "allwright-session--Ab9xYz",
            "allwright-session-12a-Ab9xYz",
            "allwright-session-+12-Ab9xYz",
        ] {
            assert_eq!(session_folder_owner(OsStr::new(other)), None, "{other}");
        }
    }

    #[test]
    fn a_path_is_found_whole_not_as_the_start_of_another_name() {
        let environment = b"HOME=/tmp/allwright-session-1-abc/home\0TMPDIR=/tmp/x\0";
        assert!(names_path(environment, b"/tmp/allwright-session-1-abc"));
        assert!(!names_path(environment, b"/tmp/allwright-session-1-ab"));
        assert!(names_path(b"--profile\0/tmp/s", b"/tmp/s"));
        assert!(!names_path(b"", b"/tmp/s"));
    }

    /// The sweep's whole class in one root: a dead owner's folder goes; a live owner's (this
    /// process, and another live process), a dead owner's folder still locked, a symlink named
    /// like a stale folder, a file, and other names all stay.
    #[test]
    fn the_sweep_removes_only_unlocked_folders_of_dead_owners() {
        let root = tempfile::tempdir().expect("root");
        let dead_pid = dead_process_id();
        let stale = root
            .path()
            .join(format!("{SESSION_FOLDER_PREFIX}{dead_pid}-stale1"));
        std::fs::create_dir_all(stale.join("profile/Default")).expect("stale");
        std::fs::write(stale.join("profile/Default/Cookies"), b"x").expect("file");
        let locked = root
            .path()
            .join(format!("{SESSION_FOLDER_PREFIX}{dead_pid}-locked"));
        std::fs::create_dir(&locked).expect("locked");
        let lock = open_folder_without_following(&locked).expect("open");
        rustix::fs::flock(&lock, FlockOperation::NonBlockingLockExclusive).expect("lock");
        let own = root.path().join(format!(
            "{SESSION_FOLDER_PREFIX}{}-mine01",
            std::process::id()
        ));
        std::fs::create_dir(&own).expect("own");
        let parent = root.path().join(format!("{SESSION_FOLDER_PREFIX}1-init01"));
        std::fs::create_dir(&parent).expect("pid 1");
        let elsewhere = root.path().join("elsewhere");
        std::fs::create_dir(&elsewhere).expect("elsewhere");
        let symlink = root
            .path()
            .join(format!("{SESSION_FOLDER_PREFIX}{dead_pid}-link01"));
        std::os::unix::fs::symlink(&elsewhere, &symlink).expect("symlink");
        let file = root
            .path()
            .join(format!("{SESSION_FOLDER_PREFIX}{dead_pid}-file01"));
        std::fs::write(&file, b"x").expect("file");
        let other_name = root.path().join(format!("allwright-{dead_pid}"));
        std::fs::create_dir(&other_name).expect("other");

        assert_eq!(remove_stale_session_folders(root.path()), 1);
        assert!(!stale.exists());
        for kept in [&locked, &own, &parent, &elsewhere, &file, &other_name] {
            assert!(kept.exists(), "{} was removed", kept.display());
        }
        assert!(std::fs::symlink_metadata(&symlink).is_ok());
        drop(lock);
        // Another test of this binary that starts a process at this moment holds a copy of the
        // lock from its fork until its exec closes it (scripts/test runs a thread per test): the
        // folder is then removed by a sweep a few milliseconds later, as by the next start.
        let mut removed = 0;
        for _ in 0..100 {
            removed = remove_stale_session_folders(root.path());
            if removed == 1 {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert_eq!(removed, 1);
        assert!(!locked.exists());
    }

    /// A killed session's server may still be a zombie when the next start looks (its parent has
    /// not read its status yet): it has ended, so its folder is stale.
    #[test]
    fn a_zombie_is_not_alive() {
        assert!(process_is_alive(std::process::id()));
        let mut child = std::process::Command::new("true").spawn().expect("true");
        let pid = child.id();
        #[cfg(target_os = "linux")]
        {
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
            while process_is_alive(pid) {
                assert!(
                    std::time::Instant::now() < deadline,
                    "the zombie counts as alive"
                );
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            assert!(
                std::path::Path::new(&format!("/proc/{pid}")).exists(),
                "still a zombie"
            );
        }
        child.wait().expect("reap");
        assert!(!process_is_alive(pid));
    }

    /// A pid that no process has: a child that has exited and been reaped.
    fn dead_process_id() -> u32 {
        let mut child = std::process::Command::new("true").spawn().expect("true");
        let pid = child.id();
        child.wait().expect("wait");
        pid
    }
}
