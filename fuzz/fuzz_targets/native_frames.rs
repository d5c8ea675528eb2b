//! The native-messaging frame reader (src/native_messaging/framing.rs) on any bytes the browser's
//! end of the pipe could deliver, cut into any read sizes; and the chunk splitter on any text.
//! Properties: no panic; a frame is never larger than the limit; the frames taken out plus the
//! bytes left over are exactly the bytes put in; slices of a split rejoin into the text.

#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;

#[path = "../../src/native_messaging/framing.rs"]
#[allow(dead_code)]
mod framing;

#[derive(Arbitrary, Debug)]
struct Input {
    /// The bytes on the pipe.
    stream: Vec<u8>,
    /// How many bytes each read delivers (cycled; 0 reads as 1).
    read_sizes: Vec<u8>,
    /// A text to split for chunking, and the slice size.
    text: String,
    slice_bytes: u8,
}

fuzz_target!(|input: Input| {
    take_frames_piece_by_piece(&input);
    read_frames_through_the_async_reader(&input.stream);
    split_text(&input.text, input.slice_bytes);
});

fn take_frames_piece_by_piece(input: &Input) {
    let mut buffer = Vec::new();
    let mut taken_bytes = 0usize;
    let mut offset = 0usize;
    let mut read_index = 0usize;
    while offset < input.stream.len() {
        let size = input
            .read_sizes
            .get(read_index % input.read_sizes.len().max(1))
            .copied()
            .unwrap_or(1)
            .max(1) as usize;
        read_index += 1;
        let end = (offset + size).min(input.stream.len());
        buffer.extend_from_slice(&input.stream[offset..end]);
        offset = end;
        loop {
            match framing::take_frame(&mut buffer) {
                Ok(Some(payload)) => {
                    assert!(payload.len() <= framing::MAX_MESSAGE_FROM_EXTENSION_BYTES);
                    taken_bytes += 4 + payload.len();
                }
                Ok(None) => break,
                // A refused length ends the stream, as the host ends the connection.
                Err(_) => return,
            }
        }
    }
    assert_eq!(taken_bytes + buffer.len(), input.stream.len());
}

fn read_frames_through_the_async_reader(stream: &[u8]) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a current-thread runtime");
    runtime.block_on(async {
        let mut reader = framing::FrameReader::new(stream);
        let mut frames = 0usize;
        while let Ok(Some(_)) = reader.read_frame().await {
            frames += 1;
            assert!(frames <= stream.len() / 4 + 1);
        }
    });
}

fn split_text(text: &str, slice_bytes: u8) {
    let max = (slice_bytes as usize).max(1);
    let slices = framing::split_on_char_boundaries(text, max);
    assert_eq!(slices.concat(), text);
    // A slice exceeds `max` only when one character alone is longer.
    assert!(slices
        .iter()
        .all(|slice| slice.len() <= max || slice.chars().count() == 1));
}
