//! The local socket between `allwright mcp` and the native host (docs/protocol/channels.md, section 1):
//! where it lives and how it is made private to the user. Its line framing is socket_lines.rs.

use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};

use crate::log;
use std::path::{Path, PathBuf};

use tokio::net::{UnixListener, UnixStream};

/// The environment variable that overrides the socket path (`allwright mcp --launch` sets it in
/// the browser's environment, which the host inherits).
pub const SOCKET_ENVIRONMENT_VARIABLE: &str = "ALLWRIGHT_SOCKET";

pub fn current_uid() -> u32 {
    rustix::process::getuid().as_raw()
}

/// Where the socket is: `$ALLWRIGHT_SOCKET`, else `$XDG_RUNTIME_DIR/allwright/host.sock` (when
/// that folder is this user's), else (macOS) the per-user temporary folder's
/// `allwright/host.sock`, else `/tmp/allwright-<uid>/host.sock` while that folder is missing or
/// this user's private one, else `$HOME/.cache/allwright/run/host.sock`. The host, `allwright mcp`
/// and `allwright snapshot` all ask this one function, so they agree: another user who makes
/// `/tmp/allwright-<uid>` first (a symlink, a folder of theirs, or one with a mode other than
/// 0700) sends both sides to the folder under the home instead of blocking them.
pub fn default_socket_path() -> PathBuf {
    socket_path_among(&SocketPlaces::of_this_process())
}

/// The places [`default_socket_path`] chooses from, read from the environment once.
struct SocketPlaces {
    explicit: Option<PathBuf>,
    runtime: Option<PathBuf>,
    #[cfg(target_os = "macos")]
    macos_temporary: Option<PathBuf>,
    /// The shared temporary folder: `/tmp`.
    shared_temporary: PathBuf,
    home: Option<PathBuf>,
}

impl SocketPlaces {
    fn of_this_process() -> Self {
        let variable = |name: &str| {
            std::env::var_os(name)
                .filter(|value| !value.is_empty())
                .map(PathBuf::from)
        };
        Self {
            explicit: variable(SOCKET_ENVIRONMENT_VARIABLE),
            runtime: variable("XDG_RUNTIME_DIR"),
            #[cfg(target_os = "macos")]
            macos_temporary: macos_user_temporary_folder(),
            shared_temporary: PathBuf::from("/tmp"),
            home: variable("HOME"),
        }
    }
}

fn socket_path_among(places: &SocketPlaces) -> PathBuf {
    if let Some(path) = &places.explicit {
        return path.clone();
    }
    if let Some(runtime) = places
        .runtime
        .as_deref()
        .filter(|runtime| is_users_folder(runtime))
    {
        return runtime.join("allwright").join("host.sock");
    }
    #[cfg(target_os = "macos")]
    if let Some(temporary) = &places.macos_temporary {
        return temporary.join("allwright").join("host.sock");
    }
    let shared = places
        .shared_temporary
        .join(format!("allwright-{}", current_uid()));
    match &places.home {
        Some(home) if !shared_folder_is_usable(&shared) => home
            .join(".cache")
            .join("allwright")
            .join("run")
            .join("host.sock"),
        // Without a home, the shared folder's refusal explains what is wrong with it.
        _ => shared.join("host.sock"),
    }
}

/// Whether `folder` is a folder (not a symlink) owned by this user.
fn is_users_folder(folder: &Path) -> bool {
    std::fs::symlink_metadata(folder)
        .is_ok_and(|metadata| metadata.is_dir() && metadata.uid() == current_uid())
}

/// Whether the shared `/tmp/allwright-<uid>` may hold the socket: missing (the host makes it) or
/// this user's private folder already. Anything else (another user's, a symlink, a file, a mode
/// other than 0700) is left alone: neither side repairs what it did not make.
fn shared_folder_is_usable(folder: &Path) -> bool {
    match std::fs::symlink_metadata(folder) {
        Err(error) => error.kind() == std::io::ErrorKind::NotFound,
        Ok(metadata) => {
            metadata.is_dir()
                && metadata.uid() == current_uid()
                && metadata.mode() & 0o777 == PRIVATE_FOLDER_MODE
        }
    }
}

/// The longest path a Unix socket can be bound or reached at: `sun_path` holds 108 bytes on
/// Linux (104 on macOS), one of them the terminating NUL.
#[cfg(not(target_os = "macos"))]
const LONGEST_SOCKET_PATH: usize = 107;
#[cfg(target_os = "macos")]
const LONGEST_SOCKET_PATH: usize = 103;

/// A socket path too long for `sun_path` (a deep HOME, say) is refused with a way out, rather
/// than with the system's "file name too long".
fn check_socket_path_length(path: &Path) -> Result<(), SocketRefusal> {
    use std::os::unix::ffi::OsStrExt;
    let length = path.as_os_str().as_bytes().len();
    if length <= LONGEST_SOCKET_PATH {
        return Ok(());
    }
    Err(SocketRefusal::new(
        format!(
            "The socket path {} is {length} bytes long; a Unix socket path may have at most {LONGEST_SOCKET_PATH}.",
            path.display()
        ),
        format!(
            "Set {SOCKET_ENVIRONMENT_VARIABLE} (for the browser and for allwright mcp alike) to a shorter path in a folder only you can use, or set XDG_RUNTIME_DIR."
        ),
    ))
}

/// macOS gives each user a private temporary folder (`/var/folders/…/T/`, mode 0700, owned by the
/// user): `confstr(_CS_DARWIN_USER_TEMP_DIR)`, which launchd also exports as `$TMPDIR`. A socket
/// there is out of other users' reach before any of our own checks, unlike one in the shared
/// `/tmp`. The binary forbids `unsafe` code, so it asks `getconf` (which calls confstr) rather
/// than calling confstr itself; the answer is read once per process, when the socket path is
/// first needed. `$TMPDIR` is the fallback: a browser started by launchd inherits it.
#[cfg(target_os = "macos")]
fn macos_user_temporary_folder() -> Option<PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    let answer = std::process::Command::new("/usr/bin/getconf")
        .arg("DARWIN_USER_TEMP_DIR")
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()
        .filter(|output| output.status.success());
    if let Some(output) = answer {
        let text = output.stdout.trim_ascii_end();
        if text.starts_with(b"/") {
            return Some(PathBuf::from(std::ffi::OsStr::from_bytes(text)));
        }
    }
    std::env::var_os("TMPDIR")
        .filter(|value| !value.is_empty())
        .map(PathBuf::from)
}

/// Why the socket's folder or file cannot be trusted, and what the person should do about it.
/// Neither the host nor the client repairs what it did not create: another user's folder, a
/// symlink or a loosened mode may be an attack, and "fixing" it (a chmod through a symlink, say)
/// would hand the attacker the change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SocketRefusal {
    pub message: String,
    pub hint: String,
}

impl SocketRefusal {
    fn new(message: String, hint: String) -> Self {
        Self { message, hint }
    }

    fn remove_folder_hint(folder: &Path) -> String {
        format!(
            "Remove {} (it is not allwright's private folder) and start again, or set {SOCKET_ENVIRONMENT_VARIABLE} to a path in a folder only you can use.",
            folder.display()
        )
    }
}

impl std::fmt::Display for SocketRefusal {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "{} {}", self.message, self.hint)
    }
}

/// The mode the socket's folder must have: only its owner may enter it.
const PRIVATE_FOLDER_MODE: u32 = 0o700;

/// Opens `folder` without following a symlink and checks the opened folder itself (fstat on the
/// descriptor, so a swap after the check changes nothing): a folder, owned by this user, mode
/// exactly 0700.
fn open_private_folder(folder: &Path) -> Result<rustix::fd::OwnedFd, SocketRefusal> {
    use rustix::fs::{Mode, OFlags};
    let metadata = std::fs::symlink_metadata(folder).map_err(|error| {
        SocketRefusal::new(
            format!(
                "Cannot read the socket folder {}: {error}.",
                folder.display()
            ),
            format!(
                "Check that {} exists and is yours, or set {SOCKET_ENVIRONMENT_VARIABLE}.",
                folder.display()
            ),
        )
    })?;
    if metadata.file_type().is_symlink() {
        return Err(SocketRefusal::new(
            format!(
                "The socket folder {} is a symlink; allwright never follows one there (another user could point it at a folder they control).",
                folder.display()
            ),
            SocketRefusal::remove_folder_hint(folder),
        ));
    }
    let descriptor = rustix::fs::open(
        folder,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(|error| {
        SocketRefusal::new(
            format!(
                "Cannot open the socket folder {} without following links: {error}.",
                folder.display()
            ),
            SocketRefusal::remove_folder_hint(folder),
        )
    })?;
    let status = rustix::fs::fstat(&descriptor).map_err(|error| {
        SocketRefusal::new(
            format!(
                "Cannot read the socket folder {}: {error}.",
                folder.display()
            ),
            SocketRefusal::remove_folder_hint(folder),
        )
    })?;
    let owner = status.st_uid;
    if owner != current_uid() {
        return Err(SocketRefusal::new(
            format!(
                "The socket folder {} belongs to another user (uid {owner}, you are uid {}); allwright refuses to use it.",
                folder.display(),
                current_uid()
            ),
            SocketRefusal::remove_folder_hint(folder),
        ));
    }
    let mode = (status.st_mode as u32) & 0o777;
    if mode != PRIVATE_FOLDER_MODE {
        return Err(SocketRefusal::new(
            format!(
                "The socket folder {} has mode {mode:o}, not 700: other users could reach the socket.",
                folder.display()
            ),
            format!(
                "Run `chmod 700 {}` if you made that folder yourself, or remove it and start again.",
                folder.display()
            ),
        ));
    }
    Ok(descriptor)
}

/// The host's side: creates the folder 0700 if it is missing (and only then changes its mode),
/// otherwise accepts it only as [`open_private_folder`] does.
fn prepare_private_folder(folder: &Path) -> Result<rustix::fd::OwnedFd, SocketRefusal> {
    use std::os::unix::fs::DirBuilderExt;
    if std::fs::symlink_metadata(folder).is_err() {
        if let Some(parent) = folder
            .parent()
            .filter(|parent| !parent.as_os_str().is_empty())
        {
            std::fs::create_dir_all(parent).map_err(|error| {
                SocketRefusal::new(
                    format!("Cannot create {}: {error}.", parent.display()),
                    format!(
                        "Set {SOCKET_ENVIRONMENT_VARIABLE} to a path in a folder you can write."
                    ),
                )
            })?;
        }
        match std::fs::DirBuilder::new()
            .mode(PRIVATE_FOLDER_MODE)
            .create(folder)
        {
            Ok(()) => {
                // The umask may have taken bits away (never added any); the folder is ours, made
                // just now, so setting its mode exactly is safe. fchmod on a descriptor opened
                // with O_NOFOLLOW cannot reach anything else.
                let descriptor = rustix::fs::open(
                    folder,
                    rustix::fs::OFlags::RDONLY
                        | rustix::fs::OFlags::DIRECTORY
                        | rustix::fs::OFlags::NOFOLLOW
                        | rustix::fs::OFlags::CLOEXEC,
                    rustix::fs::Mode::empty(),
                )
                .map_err(|error| {
                    SocketRefusal::new(
                        format!(
                            "Cannot open the folder {} just created: {error}.",
                            folder.display()
                        ),
                        SocketRefusal::remove_folder_hint(folder),
                    )
                })?;
                let _ = rustix::fs::fchmod(
                    &descriptor,
                    rustix::fs::Mode::from_raw_mode(PRIVATE_FOLDER_MODE as _),
                );
            }
            // Another host made it meanwhile: it is checked like any existing folder.
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(error) => {
                return Err(SocketRefusal::new(
                    format!(
                        "Cannot create the socket folder {}: {error}.",
                        folder.display()
                    ),
                    format!(
                        "Set {SOCKET_ENVIRONMENT_VARIABLE} to a path in a folder you can write."
                    ),
                ))
            }
        }
    }
    open_private_folder(folder)
}

fn socket_folder(path: &Path) -> &Path {
    path.parent()
        .filter(|folder| !folder.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// The client's checks before it connects: the folder is private (as the host made it) and the
/// path is a socket owned by this user, not a symlink to somewhere else.
pub fn check_socket_before_connecting(path: &Path) -> Result<(), SocketRefusal> {
    check_socket_path_length(path)?;
    let folder = socket_folder(path);
    if let Err(error) = std::fs::symlink_metadata(folder) {
        if error.kind() == std::io::ErrorKind::NotFound {
            // No host has made its folder yet: connect reports that nothing is listening.
            return Ok(());
        }
    }
    drop(open_private_folder(folder)?);
    match std::fs::symlink_metadata(path) {
        Ok(metadata) if metadata.file_type().is_symlink() => Err(SocketRefusal::new(
            format!(
                "{} is a symlink, not the host's socket; allwright never follows one there.",
                path.display()
            ),
            format!(
                "Remove {} and restart the browser so its host makes a new socket.",
                path.display()
            ),
        )),
        Ok(metadata) if metadata.uid() != current_uid() => Err(SocketRefusal::new(
            format!(
                "{} belongs to another user (uid {}).",
                path.display(),
                metadata.uid()
            ),
            format!("Remove {} and restart the browser.", path.display()),
        )),
        // A missing socket or some other file is reported by connect itself (not_connected).
        _ => Ok(()),
    }
}

/// Why a host could not take the socket path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BindRefusal {
    /// A host answers on the path already: it keeps it (the second host never deletes a live
    /// socket, so it cannot cut off a working session or impersonate it).
    AlreadyRunning {
        path: PathBuf,
    },
    Unsafe(SocketRefusal),
}

impl std::fmt::Display for BindRefusal {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::AlreadyRunning { path } => write!(
                formatter,
                "an allwright host is already running on {} (it answered a connection); this one exits and leaves it alone. Close the other browser that has allwright, or give this one its own socket with {SOCKET_ENVIRONMENT_VARIABLE}.",
                path.display()
            ),
            Self::Unsafe(refusal) => refusal.fmt(formatter),
        }
    }
}

impl From<SocketRefusal> for BindRefusal {
    fn from(refusal: SocketRefusal) -> Self {
        Self::Unsafe(refusal)
    }
}

/// A bound socket that removes its file when dropped, unless another host has replaced it.
pub struct PrivateSocket {
    pub listener: UnixListener,
    path: PathBuf,
    inode: u64,
}

impl PrivateSocket {
    /// Makes or checks the folder (0700, this user's, not a symlink), replaces a stale socket file
    /// (one nobody listens on) but never a live one, binds, and makes the socket 0600. The folder
    /// alone already keeps other users out; the socket mode and the peer-uid check are the second
    /// and third locks. An exclusive flock on the folder makes the probe, the removal and the bind
    /// one step for two hosts that start together.
    pub fn bind(path: &Path) -> Result<Self, BindRefusal> {
        check_socket_path_length(path)?;
        let folder = socket_folder(path);
        let folder_descriptor = prepare_private_folder(folder)?;
        rustix::fs::flock(
            &folder_descriptor,
            rustix::fs::FlockOperation::LockExclusive,
        )
        .map_err(|error| {
            SocketRefusal::new(
                format!(
                    "Cannot lock the socket folder {}: {error}.",
                    folder.display()
                ),
                SocketRefusal::remove_folder_hint(folder),
            )
        })?;
        match std::fs::symlink_metadata(path) {
            Ok(metadata) if metadata.file_type().is_socket() => {
                match std::os::unix::net::UnixStream::connect(path) {
                    Ok(_probe) => {
                        return Err(BindRefusal::AlreadyRunning {
                            path: path.to_owned(),
                        })
                    }
                    // Nobody listens: a host that died without cleaning up. Its file is ours
                    // (it is in our private folder) and replacing it is safe.
                    Err(error) if error.kind() == std::io::ErrorKind::ConnectionRefused => {
                        log!("replacing the stale socket {}", path.display());
                        std::fs::remove_file(path).map_err(|error| {
                            SocketRefusal::new(
                                format!("Cannot replace the stale socket {}: {error}.", path.display()),
                                format!("Remove {} yourself and restart the browser.", path.display()),
                            )
                        })?;
                    }
                    Err(error) => {
                        return Err(SocketRefusal::new(
                            format!("Cannot tell whether a host listens on {}: {error}.", path.display()),
                            format!("Remove {} if no browser with allwright is open, and restart the browser.", path.display()),
                        )
                        .into())
                    }
                }
            }
            Ok(metadata) if metadata.file_type().is_symlink() => {
                return Err(SocketRefusal::new(
                    format!(
                        "{} is a symlink, not a socket; allwright never follows or replaces one.",
                        path.display()
                    ),
                    format!("Remove {} and restart the browser.", path.display()),
                )
                .into())
            }
            Ok(_) => {
                return Err(SocketRefusal::new(
                    format!("{} exists and is not a socket.", path.display()),
                    format!("Remove it, or set {SOCKET_ENVIRONMENT_VARIABLE} to another path."),
                )
                .into())
            }
            Err(_) => {}
        }
        let listener = UnixListener::bind(path).map_err(|error| {
            SocketRefusal::new(
                format!("Cannot listen on {}: {error}.", path.display()),
                format!("Set {SOCKET_ENVIRONMENT_VARIABLE} to a path in a folder you can write."),
            )
        })?;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).map_err(
            |error| {
                SocketRefusal::new(
                    format!("Cannot make {} private: {error}.", path.display()),
                    format!("Remove {} and restart the browser.", path.display()),
                )
            },
        )?;
        let inode = std::fs::symlink_metadata(path)
            .map(|metadata| metadata.ino())
            .unwrap_or(0);
        // The lock goes with the descriptor.
        drop(folder_descriptor);
        Ok(Self {
            listener,
            path: path.to_owned(),
            inode,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for PrivateSocket {
    fn drop(&mut self) {
        let still_ours = std::fs::symlink_metadata(&self.path)
            .map(|metadata| metadata.ino() == self.inode)
            .unwrap_or(false);
        if still_ours {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Whether the peer of `stream` runs as this user: SO_PEERCRED on Linux, getpeereid on macOS
/// (tokio's `peer_cred` uses each platform's call).
pub fn peer_is_same_user(stream: &UnixStream) -> bool {
    stream
        .peer_cred()
        .map(|credentials| credentials.uid() == current_uid())
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binding_makes_the_folder_and_socket_private_and_cleans_up() {
        let root = tempfile::tempdir().expect("temp dir");
        let path = root.path().join("run").join("host.sock");
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        runtime.block_on(async {
            let socket = PrivateSocket::bind(&path).expect("bind");
            let folder_mode = std::fs::metadata(root.path().join("run"))
                .expect("folder")
                .mode()
                & 0o777;
            let socket_mode = std::fs::symlink_metadata(&path).expect("socket").mode() & 0o777;
            assert_eq!((folder_mode, socket_mode), (0o700, 0o600));
            // A second host leaves a live socket alone.
            assert!(matches!(
                PrivateSocket::bind(&path),
                Err(BindRefusal::AlreadyRunning { .. })
            ));
            assert!(path.exists(), "the live host keeps its socket");
            drop(socket);
            assert!(!path.exists());
        });
    }

    fn places_in(shared_temporary: &Path, home: &Path) -> SocketPlaces {
        SocketPlaces {
            explicit: None,
            runtime: None,
            #[cfg(target_os = "macos")]
            macos_temporary: None,
            shared_temporary: shared_temporary.to_owned(),
            home: Some(home.to_owned()),
        }
    }

    /// The class of a shared folder someone else made first: each sends the socket under the
    /// home; a missing folder or this user's private one keeps the shared path.
    #[test]
    fn a_shared_folder_that_is_not_ours_sends_the_socket_under_the_home() {
        use std::os::unix::fs::DirBuilderExt;
        let root = tempfile::tempdir().expect("root");
        let home = root.path().join("home");
        let in_home = home.join(".cache/allwright/run/host.sock");
        let shared_root = root.path().join("tmp");
        std::fs::create_dir(&shared_root).expect("tmp");
        let shared = shared_root.join(format!("allwright-{}", current_uid()));
        let places = places_in(&shared_root, &home);
        assert_eq!(
            socket_path_among(&places),
            shared.join("host.sock"),
            "missing"
        );
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(&shared)
            .expect("ours");
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o700)).expect("700");
        assert_eq!(
            socket_path_among(&places),
            shared.join("host.sock"),
            "ours, 0700"
        );
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o755)).expect("755");
        assert_eq!(socket_path_among(&places), in_home, "ours, 0755");
        std::fs::remove_dir(&shared).expect("remove");
        std::fs::write(&shared, b"").expect("a file");
        assert_eq!(socket_path_among(&places), in_home, "a file");
        std::fs::remove_file(&shared).expect("remove");
        std::os::unix::fs::symlink(root.path(), &shared).expect("symlink");
        assert_eq!(socket_path_among(&places), in_home, "a symlink");
        std::fs::remove_file(&shared).expect("remove");
        if current_uid() == 0 {
            std::fs::DirBuilder::new()
                .mode(0o700)
                .create(&shared)
                .expect("folder");
            std::os::unix::fs::chown(&shared, Some(65534), Some(65534)).expect("chown");
            assert_eq!(socket_path_among(&places), in_home, "another user's");
        }
        // The runtime folder wins when it is ours, and is passed over when it is not.
        let runtime = root.path().join("runtime");
        std::fs::create_dir(&runtime).expect("runtime");
        let with_runtime = SocketPlaces {
            runtime: Some(runtime.clone()),
            ..places_in(&shared_root, &home)
        };
        assert_eq!(
            socket_path_among(&with_runtime),
            runtime.join("allwright/host.sock")
        );
        let missing_runtime = SocketPlaces {
            runtime: Some(root.path().join("no-such-runtime")),
            ..places_in(&shared_root, &home)
        };
        assert_ne!(
            socket_path_among(&missing_runtime),
            root.path().join("no-such-runtime/allwright/host.sock")
        );
    }

    #[test]
    fn a_socket_path_too_long_for_sun_path_is_refused_with_a_way_out() {
        let long = PathBuf::from(format!("/{}/host.sock", "h".repeat(120)));
        let refusal = check_socket_path_length(&long).expect_err("too long");
        assert!(refusal.message.contains("bytes long"), "{refusal}");
        assert!(
            refusal.hint.contains(SOCKET_ENVIRONMENT_VARIABLE),
            "{refusal}"
        );
        assert!(matches!(
            PrivateSocket::bind(&long),
            Err(BindRefusal::Unsafe(_))
        ));
        assert!(check_socket_before_connecting(&long).is_err());
        let exact = PathBuf::from(format!("/{}", "h".repeat(LONGEST_SOCKET_PATH - 1)));
        assert!(check_socket_path_length(&exact).is_ok());
    }
}
