//! The local socket's line reader (src/socket_lines.rs) on any bytes a client could write:
//! messages are read one per line, blank lines skipped, an unreadable line reported and read past
//! (as the host does), the stream ending at end of input. Property: no panic and no endless loop.

#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../src/socket_lines.rs"]
#[allow(dead_code)]
mod socket_lines;

fuzz_target!(|stream: &[u8]| {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a current-thread runtime");
    runtime.block_on(async {
        let mut reader = socket_lines::LineReader::new(stream);
        let mut lines = 0usize;
        loop {
            match reader.read_message::<serde_json::Value>().await {
                Ok(Some(_)) | Err(socket_lines::LineError::Unreadable { .. }) => {
                    lines += 1;
                    assert!(
                        lines <= stream.len() + 1,
                        "a line reader that does not advance"
                    );
                }
                Ok(None) | Err(_) => break,
            }
        }
    });
});
