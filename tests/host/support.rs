//! Playing the extension and the client around a real host process.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::UnixStream;
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

pub const CHROME_EXTENSION_ORIGIN: &str = "chrome-extension://oocdjjlhboaefebdlfjodhaelmmedgec/";
/// Every wait in these tests is bounded; a hang is a failure with a message, not a stuck run.
pub const PATIENCE: Duration = Duration::from_secs(10);

pub fn hello() -> Value {
    json!({"type": "hello", "browser": "chrome", "extensionVersion": "0.1.0", "protocol": 1})
}

pub fn frame(value: &Value) -> Vec<u8> {
    let payload = value.to_string().into_bytes();
    let mut framed = (payload.len() as u32).to_ne_bytes().to_vec();
    framed.extend_from_slice(&payload);
    framed
}

/// A host process started as Chrome starts it, with its socket in a private temporary folder.
pub struct HostUnderTest {
    pub child: Child,
    pub stdin: Option<ChildStdin>,
    stdout: ChildStdout,
    pub socket_path: PathBuf,
    pub log_path: PathBuf,
    _folder: tempfile::TempDir,
}

impl HostUnderTest {
    pub async fn start() -> Self {
        let folder = tempfile::tempdir().expect("temp dir");
        let socket_path = folder.path().join("run").join("host.sock");
        Self::start_at(folder, socket_path).await
    }

    /// A host listening on `socket_path` (inside `folder`, which lives as long as the host).
    pub async fn start_at(folder: tempfile::TempDir, socket_path: PathBuf) -> Self {
        let log_path = folder.path().join("host.log");
        let mut child = Command::new(env!("CARGO_BIN_EXE_allwright"))
            .args([CHROME_EXTENSION_ORIGIN, "--parent-window=0"])
            .env("ALLWRIGHT_SOCKET", &socket_path)
            .env("ALLWRIGHT_LOG_FILE", &log_path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("spawn the host");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("stdout");
        let host = Self {
            child,
            stdin,
            stdout,
            socket_path,
            log_path,
            _folder: folder,
        };
        host.wait_for_socket().await;
        host
    }

    async fn wait_for_socket(&self) {
        let deadline = tokio::time::Instant::now() + PATIENCE;
        while !self.socket_path.exists() {
            assert!(
                tokio::time::Instant::now() < deadline,
                "the host never created {}",
                self.socket_path.display()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log_path).unwrap_or_default()
    }

    /// Sends raw bytes as the browser would on the host's stdin.
    pub async fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin still open");
        stdin.write_all(bytes).await.expect("write to the host");
        stdin.flush().await.expect("flush");
    }

    pub async fn send(&mut self, message: &Value) {
        self.send_bytes(&frame(message)).await;
    }

    /// Closes the host's stdin: the browser closing the native port.
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Reads one frame from the host's stdout; returns its length and parsed JSON.
    pub async fn receive_frame(&mut self) -> (usize, Value) {
        let read = async {
            let mut length = [0u8; 4];
            self.stdout
                .read_exact(&mut length)
                .await
                .expect("a frame length");
            let length = u32::from_ne_bytes(length) as usize;
            let mut payload = vec![0u8; length];
            self.stdout
                .read_exact(&mut payload)
                .await
                .expect("a frame payload");
            (
                length,
                serde_json::from_slice(&payload).expect("the frame is JSON"),
            )
        };
        tokio::time::timeout(PATIENCE, read)
            .await
            .expect("a frame from the host in time")
    }

    /// Reads one message, reassembling chunks; returns the message and how many frames it took.
    pub async fn receive_message(&mut self) -> (Value, usize) {
        let (_, first) = self.receive_frame().await;
        if first["type"] != "chunk" {
            return (first, 1);
        }
        let count = first["count"].as_u64().expect("count") as usize;
        let mut text = first["data"].as_str().expect("data").to_owned();
        for index in 1..count {
            let (_, chunk) = self.receive_frame().await;
            assert_eq!(chunk["index"], index, "chunks arrive in order");
            assert_eq!(chunk["id"], first["id"], "one series");
            text.push_str(chunk["data"].as_str().expect("data"));
        }
        (
            serde_json::from_str(&text).expect("chunks join into JSON"),
            count,
        )
    }

    pub async fn exit_status(&mut self) -> std::process::ExitStatus {
        tokio::time::timeout(PATIENCE, self.child.wait())
            .await
            .expect("the host exits in time")
            .expect("wait")
    }
}

/// A client of the local socket, as `allwright mcp` is.
pub struct SocketClient {
    reader: BufReader<OwnedReadHalf>,
    writer: OwnedWriteHalf,
}

impl SocketClient {
    pub async fn connect(path: &Path) -> Self {
        let stream = UnixStream::connect(path)
            .await
            .expect("connect to the host socket");
        let (read_half, writer) = stream.into_split();
        Self {
            reader: BufReader::new(read_half),
            writer,
        }
    }

    pub async fn send(&mut self, message: &Value) {
        let mut line = message.to_string();
        line.push('\n');
        self.writer
            .write_all(line.as_bytes())
            .await
            .expect("write a line");
    }

    pub async fn send_raw_line(&mut self, line: &str) {
        self.writer
            .write_all(format!("{line}\n").as_bytes())
            .await
            .expect("write a line");
    }

    /// The next message, or `None` when the host closed the connection.
    pub async fn receive(&mut self) -> Option<Value> {
        self.receive_within(PATIENCE)
            .await
            .expect("a message from the host in time")
    }

    /// `Err(())` when nothing came within `wait`.
    pub async fn receive_within(&mut self, wait: Duration) -> Result<Option<Value>, ()> {
        let mut line = String::new();
        match tokio::time::timeout(wait, self.reader.read_line(&mut line)).await {
            Err(_) => Err(()),
            Ok(Ok(0)) => Ok(None),
            Ok(Ok(_)) => Ok(Some(serde_json::from_str(&line).expect("a JSON line"))),
            Ok(Err(error)) => panic!("socket read failed: {error}"),
        }
    }
}
