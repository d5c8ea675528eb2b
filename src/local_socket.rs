//! The local socket between `allwright mcp` and the native host (docs/protocol.md, section 1):
//! where it lives, how it is made private to the user, and its line framing (one JSON object
//! per `\n`-terminated line).

use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::Serialize;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};

/// The longest line either side accepts: a snapshot of a very large page, with room to spare.
/// A longer line is a broken or hostile peer, and the connection is dropped.
pub const MAX_LINE_BYTES: usize = 256 * 1024 * 1024;

/// The environment variable that overrides the socket path (`allwright mcp --launch` sets it in
/// the browser's environment, which the host inherits).
pub const SOCKET_ENVIRONMENT_VARIABLE: &str = "ALLWRIGHT_SOCKET";

pub fn current_uid() -> u32 {
    rustix::process::getuid().as_raw()
}

/// `$ALLWRIGHT_SOCKET`, else `$XDG_RUNTIME_DIR/allwright/host.sock`, else
/// `/tmp/allwright-<uid>/host.sock`.
pub fn default_socket_path() -> PathBuf {
    if let Some(path) =
        std::env::var_os(SOCKET_ENVIRONMENT_VARIABLE).filter(|value| !value.is_empty())
    {
        return PathBuf::from(path);
    }
    if let Some(runtime) = std::env::var_os("XDG_RUNTIME_DIR").filter(|value| !value.is_empty()) {
        return Path::new(&runtime).join("allwright").join("host.sock");
    }
    PathBuf::from(format!("/tmp/allwright-{}/host.sock", current_uid()))
}

/// A bound socket that removes its file when dropped, unless another host has replaced it.
pub struct PrivateSocket {
    pub listener: UnixListener,
    path: PathBuf,
    inode: u64,
}

impl PrivateSocket {
    /// Creates the folder (0700, owned by this user), replaces a stale or older socket file at
    /// `path`, binds, and makes the socket 0600. The folder alone already keeps other users out;
    /// the socket mode and the SO_PEERCRED check are the second and third locks.
    pub fn bind(path: &Path) -> Result<Self, String> {
        let folder = path
            .parent()
            .filter(|folder| !folder.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        ensure_private_folder(folder)?;
        match std::fs::symlink_metadata(path) {
            Ok(metadata) if metadata.file_type().is_socket() => {
                // A previous host that died, or one still running for another browser: the newest
                // host (the one the extension just started) takes the path.
                std::fs::remove_file(path).map_err(|error| {
                    format!("cannot replace the old socket {}: {error}", path.display())
                })?;
            }
            Ok(_) => {
                return Err(format!(
                    "{} exists and is not a socket; remove it or set {SOCKET_ENVIRONMENT_VARIABLE}",
                    path.display()
                ))
            }
            Err(_) => {}
        }
        let listener = UnixListener::bind(path)
            .map_err(|error| format!("cannot listen on {}: {error}", path.display()))?;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
            .map_err(|error| format!("cannot make {} private: {error}", path.display()))?;
        let inode = std::fs::metadata(path)
            .map(|metadata| metadata.ino())
            .unwrap_or(0);
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
        let still_ours = std::fs::metadata(&self.path)
            .map(|metadata| metadata.ino() == self.inode)
            .unwrap_or(false);
        if still_ours {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Creates `folder` with mode 0700 if it is missing. An existing folder must belong to this user;
/// one that others can enter is tightened to 0700 (it was ours anyway).
fn ensure_private_folder(folder: &Path) -> Result<(), String> {
    if !folder.exists() {
        std::fs::create_dir_all(folder)
            .map_err(|error| format!("cannot create {}: {error}", folder.display()))?;
        std::fs::set_permissions(folder, std::fs::Permissions::from_mode(0o700))
            .map_err(|error| format!("cannot make {} private: {error}", folder.display()))?;
        return Ok(());
    }
    let metadata = std::fs::metadata(folder)
        .map_err(|error| format!("cannot read {}: {error}", folder.display()))?;
    if metadata.uid() != current_uid() {
        return Err(format!(
            "{} belongs to another user (uid {}); refusing to put the host's socket there",
            folder.display(),
            metadata.uid()
        ));
    }
    if metadata.mode() & 0o077 != 0 {
        std::fs::set_permissions(folder, std::fs::Permissions::from_mode(0o700))
            .map_err(|error| format!("cannot make {} private: {error}", folder.display()))?;
    }
    Ok(())
}

/// Whether the peer of `stream` runs as this user (SO_PEERCRED).
pub fn peer_is_same_user(stream: &UnixStream) -> bool {
    stream
        .peer_cred()
        .map(|credentials| credentials.uid() == current_uid())
        .unwrap_or(false)
}

/// Reads one JSON message per line.
pub struct LineReader<Reader> {
    reader: BufReader<Reader>,
    line: Vec<u8>,
}

#[derive(Debug)]
pub enum LineError {
    Io(std::io::Error),
    TooLong,
    /// A complete line that is not the expected JSON; the text is kept for the error message.
    Unreadable {
        reason: String,
        line: String,
    },
}

impl std::fmt::Display for LineError {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Io(error) => write!(formatter, "socket read failed: {error}"),
            Self::TooLong => write!(formatter, "a line exceeds {MAX_LINE_BYTES} bytes"),
            Self::Unreadable { reason, line } => {
                write!(formatter, "unreadable message ({reason}): {line}")
            }
        }
    }
}

impl<Reader: AsyncRead + Unpin> LineReader<Reader> {
    pub fn new(reader: Reader) -> Self {
        Self {
            reader: BufReader::new(reader),
            line: Vec::new(),
        }
    }

    /// The next message; `Ok(None)` when the peer closed the connection. A final line without
    /// `\n` still counts (the peer wrote a whole message and closed).
    pub async fn read_message<Message: DeserializeOwned>(
        &mut self,
    ) -> Result<Option<Message>, LineError> {
        loop {
            self.line.clear();
            let mut limited = (&mut self.reader).take(MAX_LINE_BYTES as u64 + 1);
            let read = limited
                .read_until(b'\n', &mut self.line)
                .await
                .map_err(LineError::Io)?;
            if read == 0 {
                return Ok(None);
            }
            if self.line.len() > MAX_LINE_BYTES {
                return Err(LineError::TooLong);
            }
            let text = String::from_utf8_lossy(&self.line);
            let text = text.trim();
            if text.is_empty() {
                continue;
            }
            return serde_json::from_str(text)
                .map(Some)
                .map_err(|error| LineError::Unreadable {
                    reason: error.to_string(),
                    line: text.chars().take(200).collect(),
                });
        }
    }
}

/// Writes `message` as one line and flushes.
pub async fn write_line<Writer: AsyncWrite + Unpin, Message: Serialize>(
    writer: &mut Writer,
    message: &Message,
) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(message).map_err(std::io::Error::other)?;
    line.push(b'\n');
    writer.write_all(&line).await?;
    writer.flush().await
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    #[tokio::test]
    async fn lines_are_read_one_message_at_a_time() {
        let input = b"{\"a\":1}\n\n{\"b\":2}\nnot json\n{\"c\":3}";
        let mut reader = LineReader::new(&input[..]);
        assert_eq!(
            reader.read_message::<Value>().await.expect("ok"),
            Some(json!({"a": 1}))
        );
        assert_eq!(
            reader.read_message::<Value>().await.expect("ok"),
            Some(json!({"b": 2}))
        );
        assert!(matches!(
            reader.read_message::<Value>().await,
            Err(LineError::Unreadable { .. })
        ));
        assert_eq!(
            reader.read_message::<Value>().await.expect("ok"),
            Some(json!({"c": 3}))
        );
        assert_eq!(reader.read_message::<Value>().await.expect("ok"), None);
    }

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
            // A second bind (a newer host) replaces the file; the older host's drop leaves it alone.
            let newer = PrivateSocket::bind(&path).expect("rebind");
            drop(socket);
            assert!(
                path.exists(),
                "the newer host's socket survives the older host's exit"
            );
            drop(newer);
            assert!(!path.exists());
        });
    }
}
