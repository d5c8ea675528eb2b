//! The local socket's framing (docs/protocol/channels.md, section 1): one JSON object per `\n`-terminated
//! line, each line bounded. The socket itself (where it lives, who may connect) is
//! local_socket.rs. This file depends on nothing else of the binary, so that the fuzz target
//! `socket_lines` (fuzz/) compiles it as it is.

use serde::de::DeserializeOwned;
use serde::Serialize;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};

/// The longest line either side accepts: a snapshot of a very large page, with room to spare.
/// A longer line is a broken or hostile peer, and the connection is dropped.
pub const MAX_LINE_BYTES: usize = 256 * 1024 * 1024;

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
}
