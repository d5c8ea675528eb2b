//! Native messaging, the browser's side of the host (docs/protocol/channels.md, section 2). Only this
//! module knows the wire format: framing.rs cuts the byte streams into frames (a 4-byte length in
//! native byte order, then UTF-8 JSON, on the host's stdin from the browser and stdout to it);
//! this file reads and writes the messages they carry, and chunks the large ones.

mod framing;

use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};

use self::framing::{
    push_frame, split_on_char_boundaries, FrameReader, CHUNKING_THRESHOLD_BYTES, CHUNK_DATA_BYTES,
};
pub use self::framing::{NativeMessagingError, MAX_MESSAGE_FROM_EXTENSION_BYTES};
use crate::wire::{ExtensionToHost, HostToExtension};

/// A payload that is not a message we understand: described for the log, not fatal. The
/// description never quotes the payload (docs/protocol/action-safety.md, "Secrets stay secret": a message may
/// carry page text or typed secrets), only where and how it failed to parse.
#[derive(Debug)]
pub struct UnreadableMessage {
    pub reason: String,
}

/// Reads messages from the browser.
pub struct NativeMessageReader<Reader> {
    frames: FrameReader<Reader>,
}

impl<Reader: AsyncRead + Unpin> NativeMessageReader<Reader> {
    pub fn new(reader: Reader) -> Self {
        Self {
            frames: FrameReader::new(reader),
        }
    }

    /// The next frame's payload; `Ok(None)` at a clean end of stream.
    pub async fn read_frame(&mut self) -> Result<Option<Vec<u8>>, NativeMessagingError> {
        self.frames.read_frame().await
    }

    /// The next message: `Ok(None)` at a clean end of stream, `Ok(Some(Err(_)))` for a complete
    /// frame that is not a message we know (the caller logs it and reads on).
    pub async fn read_message(
        &mut self,
    ) -> Result<Option<Result<ExtensionToHost, UnreadableMessage>>, NativeMessagingError> {
        let Some(payload) = self.read_frame().await? else {
            return Ok(None);
        };
        Ok(Some(
            serde_json::from_slice::<ExtensionToHost>(&payload).map_err(|error| {
                // serde_json's own message may quote a value of the payload, so only its
                // category and position are kept.
                UnreadableMessage {
                    reason: format!(
                        "{:?} error at line {}, column {} of a {}-byte message",
                        error.classify(),
                        error.line(),
                        error.column(),
                        payload.len()
                    ),
                }
            }),
        ))
    }
}

/// Frames `message` for the browser: one frame when its JSON is at most
/// [`CHUNKING_THRESHOLD_BYTES`], otherwise a series of `chunk` messages carrying slices of that
/// JSON text cut on character boundaries. `chunk_series_id` names the series.
pub fn encode_for_browser(
    message: &HostToExtension,
    chunk_series_id: &str,
) -> Result<Vec<u8>, serde_json::Error> {
    let json = serde_json::to_string(message)?;
    let mut framed = Vec::with_capacity(json.len() + 64);
    if json.len() <= CHUNKING_THRESHOLD_BYTES {
        push_frame(&mut framed, json.as_bytes());
        return Ok(framed);
    }
    let slices = split_on_char_boundaries(&json, CHUNK_DATA_BYTES);
    let count = slices.len();
    for (index, slice) in slices.into_iter().enumerate() {
        let chunk = HostToExtension::Chunk {
            id: chunk_series_id.to_owned(),
            index,
            count,
            data: slice.to_owned(),
        };
        push_frame(&mut framed, serde_json::to_string(&chunk)?.as_bytes());
    }
    Ok(framed)
}

/// Writes framed messages to the browser.
pub struct NativeMessageWriter<Writer> {
    writer: Writer,
    next_chunk_series: u64,
}

impl<Writer: AsyncWrite + Unpin> NativeMessageWriter<Writer> {
    pub fn new(writer: Writer) -> Self {
        Self {
            writer,
            next_chunk_series: 1,
        }
    }

    pub async fn write_message(
        &mut self,
        message: &HostToExtension,
    ) -> Result<(), NativeMessagingError> {
        let series_id = format!("chunks-{}", self.next_chunk_series);
        self.next_chunk_series += 1;
        let framed = encode_for_browser(message, &series_id)
            .map_err(|error| NativeMessagingError::Io(error.into()))?;
        self.writer.write_all(&framed).await?;
        self.writer.flush().await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::framing::take_frame;
    use super::*;
    use serde_json::{json, Value};

    #[test]
    fn small_messages_are_one_frame_and_large_ones_are_chunked_under_the_limit() {
        let small = HostToExtension::Call {
            id: "h1".into(),
            tool: "navigate".into(),
            arguments: json!({"url": "about:blank"}),
            access: None,
            budget_ms: None,
        };
        let framed = encode_for_browser(&small, "s").expect("encode");
        let mut buffer = framed;
        let payload = take_frame(&mut buffer).expect("ok").expect("one frame");
        assert!(buffer.is_empty());
        assert_eq!(
            serde_json::from_slice::<Value>(&payload).expect("json")["tool"],
            "navigate"
        );

        // 1.5 MB of quotes and multi-byte characters: the worst case for escaping and cutting.
        let big_text: String = "\"é€😀\\".repeat(150_000);
        let big = HostToExtension::Call {
            id: "h2".into(),
            tool: "type_ax".into(),
            arguments: json!({"text": big_text}),
            access: None,
            budget_ms: None,
        };
        let mut buffer = encode_for_browser(&big, "series-9").expect("encode");
        let mut joined = String::new();
        let mut expected_index = 0;
        while let Some(payload) = take_frame(&mut buffer).expect("ok") {
            assert!(
                payload.len() < 1024 * 1024,
                "a chunk frame of {} bytes exceeds the browser's limit",
                payload.len()
            );
            let chunk: Value = serde_json::from_slice(&payload).expect("chunk json");
            assert_eq!(chunk["type"], "chunk");
            assert_eq!(chunk["id"], "series-9");
            assert_eq!(chunk["index"], expected_index);
            expected_index += 1;
            joined.push_str(chunk["data"].as_str().expect("data"));
        }
        assert!(expected_index > 1);
        let reassembled: Value =
            serde_json::from_str(&joined).expect("the slices join into the original JSON");
        assert_eq!(reassembled["arguments"]["text"], json!(big_text));
    }
}
