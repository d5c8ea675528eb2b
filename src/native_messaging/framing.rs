//! The native-messaging frame, both directions (docs/protocol/channels.md, section 2): a 4-byte length in
//! native byte order, then that many bytes of UTF-8 JSON. What the JSON means is
//! native_messaging.rs; this file depends on nothing else of the binary, so that the fuzz target
//! `native_frames` (fuzz/) compiles it as it is.
//!
//! Reading follows the mini-redis framing pattern: bytes accumulate in a buffer, a frame is taken
//! out once it is complete, an incomplete frame is the normal state between reads, a clean end of
//! stream (at a frame boundary) is `Ok(None)`, and an end of stream inside a frame is an error.

use tokio::io::{AsyncRead, AsyncReadExt};

/// Messages from the extension may be up to 64 MiB in Chrome; a larger length is not a message
/// but a broken stream, and is refused before any allocation.
pub const MAX_MESSAGE_FROM_EXTENSION_BYTES: usize = 64 * 1024 * 1024;

/// The browser refuses messages over 1 MB from the host. docs/protocol.md sets the threshold:
/// any message whose JSON exceeds 512 KiB is sent as chunks.
pub const CHUNKING_THRESHOLD_BYTES: usize = 512 * 1024;

/// The size of the JSON text carried by one chunk. Inside the chunk message that text is a JSON
/// string, where each `"` and `\` doubles, so 256 KiB of text stays under 512 KiB framed — well
/// under the browser's limit whatever the text contains.
pub const CHUNK_DATA_BYTES: usize = 256 * 1024;

const LENGTH_PREFIX_BYTES: usize = 4;

#[derive(Debug)]
pub enum NativeMessagingError {
    Io(std::io::Error),
    /// The stream ended inside a frame: `received` of `expected` bytes (prefix included).
    TruncatedFrame {
        received: usize,
        expected: usize,
    },
    /// The length prefix announces more than any real message.
    FrameTooLarge {
        length: usize,
    },
}

impl std::fmt::Display for NativeMessagingError {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Io(error) => write!(formatter, "native messaging I/O failed: {error}"),
            Self::TruncatedFrame { received, expected } => write!(
                formatter,
                "the browser's stream ended inside a message ({received} of {expected} bytes received)"
            ),
            Self::FrameTooLarge { length } => write!(
                formatter,
                "a native message announces {length} bytes, more than the {MAX_MESSAGE_FROM_EXTENSION_BYTES}-byte limit"
            ),
        }
    }
}

impl std::error::Error for NativeMessagingError {}

impl From<std::io::Error> for NativeMessagingError {
    fn from(error: std::io::Error) -> Self {
        Self::Io(error)
    }
}

/// Takes one complete frame's payload off the front of `buffer`, or returns `Ok(None)` when the
/// buffer holds only part of a frame.
pub fn take_frame(buffer: &mut Vec<u8>) -> Result<Option<Vec<u8>>, NativeMessagingError> {
    let Some(prefix) = buffer.get(..LENGTH_PREFIX_BYTES) else {
        return Ok(None);
    };
    let mut length_bytes = [0u8; LENGTH_PREFIX_BYTES];
    length_bytes.copy_from_slice(prefix);
    let length = u32::from_ne_bytes(length_bytes) as usize;
    if length > MAX_MESSAGE_FROM_EXTENSION_BYTES {
        return Err(NativeMessagingError::FrameTooLarge { length });
    }
    if buffer.len() < LENGTH_PREFIX_BYTES + length {
        return Ok(None);
    }
    let payload = buffer[LENGTH_PREFIX_BYTES..LENGTH_PREFIX_BYTES + length].to_vec();
    buffer.drain(..LENGTH_PREFIX_BYTES + length);
    Ok(Some(payload))
}

/// Reads frames from the browser's stream.
pub struct FrameReader<Reader> {
    reader: Reader,
    buffer: Vec<u8>,
}

impl<Reader: AsyncRead + Unpin> FrameReader<Reader> {
    pub fn new(reader: Reader) -> Self {
        Self {
            reader,
            buffer: Vec::with_capacity(64 * 1024),
        }
    }

    /// The next frame's payload; `Ok(None)` at a clean end of stream.
    pub async fn read_frame(&mut self) -> Result<Option<Vec<u8>>, NativeMessagingError> {
        loop {
            if let Some(payload) = take_frame(&mut self.buffer)? {
                return Ok(Some(payload));
            }
            let mut chunk = [0u8; 64 * 1024];
            let read = self.reader.read(&mut chunk).await?;
            if read == 0 {
                if self.buffer.is_empty() {
                    return Ok(None);
                }
                let expected = match self.buffer.get(..LENGTH_PREFIX_BYTES) {
                    Some(prefix) => {
                        let mut length_bytes = [0u8; LENGTH_PREFIX_BYTES];
                        length_bytes.copy_from_slice(prefix);
                        LENGTH_PREFIX_BYTES + u32::from_ne_bytes(length_bytes) as usize
                    }
                    None => LENGTH_PREFIX_BYTES,
                };
                return Err(NativeMessagingError::TruncatedFrame {
                    received: self.buffer.len(),
                    expected,
                });
            }
            self.buffer.extend_from_slice(&chunk[..read]);
        }
    }
}

/// Appends one frame carrying `payload` to `out`.
pub fn push_frame(out: &mut Vec<u8>, payload: &[u8]) {
    // Payloads here are at most a chunk or the threshold, far below u32::MAX.
    let length = u32::try_from(payload.len()).unwrap_or(u32::MAX);
    out.extend_from_slice(&length.to_ne_bytes());
    out.extend_from_slice(payload);
}

/// Cuts `text` into slices of at most `max_bytes`, never inside a UTF-8 character.
pub fn split_on_char_boundaries(text: &str, max_bytes: usize) -> Vec<&str> {
    let mut slices = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let mut end = max_bytes.min(rest.len());
        while !rest.is_char_boundary(end) {
            end -= 1;
        }
        // A character longer than max_bytes cannot happen for max_bytes >= 4; guard anyway.
        if end == 0 {
            end = rest
                .char_indices()
                .nth(1)
                .map_or(rest.len(), |(index, _)| index);
        }
        let (slice, tail) = rest.split_at(end);
        slices.push(slice);
        rest = tail;
    }
    slices
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(payload: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        push_frame(&mut out, payload);
        out
    }

    #[test]
    fn incomplete_frames_wait_for_more_bytes() {
        let whole = frame(br#"{"type":"hello"}"#);
        for cut in 0..whole.len() {
            let mut buffer = whole[..cut].to_vec();
            assert!(
                take_frame(&mut buffer).expect("not an error").is_none(),
                "cut at {cut}"
            );
            assert_eq!(buffer.len(), cut, "nothing consumed");
        }
        let mut buffer = whole.clone();
        buffer.extend_from_slice(&frame(b"{}"));
        assert_eq!(
            take_frame(&mut buffer).expect("ok"),
            Some(br#"{"type":"hello"}"#.to_vec())
        );
        assert_eq!(take_frame(&mut buffer).expect("ok"), Some(b"{}".to_vec()));
        assert!(buffer.is_empty());
    }
    #[test]
    fn absurd_lengths_are_refused_before_allocation() {
        let mut buffer = u32::MAX.to_ne_bytes().to_vec();
        assert!(matches!(
            take_frame(&mut buffer),
            Err(NativeMessagingError::FrameTooLarge { .. })
        ));
    }
    #[tokio::test]
    async fn clean_end_is_none_and_a_cut_frame_is_an_error() {
        let mut reader = FrameReader::new(&b""[..]);
        assert!(reader.read_frame().await.expect("clean").is_none());
        let mut bytes = frame(b"{}");
        bytes.extend_from_slice(&frame(b"{\"a\":1}")[..6]);
        let mut reader = FrameReader::new(&bytes[..]);
        assert_eq!(
            reader.read_frame().await.expect("first frame"),
            Some(b"{}".to_vec())
        );
        assert!(matches!(
            reader.read_frame().await,
            Err(NativeMessagingError::TruncatedFrame {
                received: 6,
                expected: 11
            })
        ));
    }
    #[test]
    fn slices_never_split_a_character() {
        let text = "a😀b€c";
        for max in 4..12 {
            let slices = split_on_char_boundaries(text, max);
            assert_eq!(slices.concat(), text);
            assert!(slices.iter().all(|slice| slice.len() <= max));
        }
        assert_eq!(split_on_char_boundaries("😀😀", 1), vec!["😀", "😀"]);
    }
}
