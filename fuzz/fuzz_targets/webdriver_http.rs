//! The reader of WebDriver HTTP answers (crates/allwright-surface-web/src/webdriver_http/
//! framing.rs) on any bytes a remote end could send, cut into any read sizes, and on well-formed
//! answers built from arbitrary parts. Properties: no panic; the bytes the reader keeps never
//! exceed its limit; a decoded body holds no more values than the answer has bytes; a well-formed
//! answer is complete exactly when its last byte has arrived (never earlier, whatever its body
//! holds) and reads back as its status and body.

#![no_main]

use arbitrary::{Arbitrary, Result as ArbitraryResult, Unstructured};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

#[path = "../../crates/allwright-surface-web/src/webdriver_http/framing.rs"]
#[allow(dead_code)]
mod framing;

#[path = "common/arbitrary_json.rs"]
mod arbitrary_json;

use framing::{parse_response, response_is_complete, HttpResponse};

/// How the well-formed answer frames its body.
#[derive(Arbitrary, Debug)]
enum BodyFraming {
    ContentLength,
    /// Chunked, cut after each of these many bytes (cycled; 0 reads as 1), with a chunk
    /// extension (`;name=value`) on the size lines when asked.
    Chunked {
        chunk_sizes: Vec<u8>,
        with_extension: bool,
    },
}

#[derive(Debug)]
struct WellFormed {
    status: u16,
    /// Extra header lines (names and values without CR, LF or colons in the name).
    extra_headers: Vec<(String, String)>,
    body: Value,
    /// JSON whitespace (space, tab, CR, LF) around the body text: `0\r\n\r\n` is a whole JSON
    /// body, and also what ends a chunked body.
    whitespace_before: String,
    whitespace_after: String,
    framing: BodyFraming,
    /// Whether the framing header's name is written in lower case.
    lower_case_names: bool,
}

fn json_whitespace(input: &mut Unstructured) -> ArbitraryResult<String> {
    let count = input.int_in_range(0..=6)?;
    (0..count)
        .map(|_| Ok(*input.choose(&[' ', '\t', '\r', '\n'])?))
        .collect()
}

fn header_text(input: &mut Unstructured, is_name: bool) -> ArbitraryResult<String> {
    let text: String = input.arbitrary()?;
    Ok(text
        .chars()
        .filter(|character| !matches!(character, '\r' | '\n') && !(is_name && *character == ':'))
        .collect())
}

impl<'a> Arbitrary<'a> for WellFormed {
    fn arbitrary(input: &mut Unstructured<'a>) -> ArbitraryResult<Self> {
        let header_count = input.int_in_range(0..=3)?;
        let mut extra_headers = Vec::with_capacity(header_count);
        for _ in 0..header_count {
            let name = header_text(input, true)?;
            let lowered = name.trim().to_ascii_lowercase();
            // A second framing header would make another answer; so would a name that is empty
            // (a line without a name is skipped).
            if lowered.is_empty()
                || lowered.starts_with("content-length")
                || lowered.starts_with("transfer-encoding")
            {
                continue;
            }
            extra_headers.push((format!("X-{}", name.trim()), header_text(input, false)?));
        }
        Ok(Self {
            status: input.int_in_range(100..=599)?,
            extra_headers,
            body: arbitrary_json::arbitrary_value(input)?,
            whitespace_before: json_whitespace(input)?,
            whitespace_after: json_whitespace(input)?,
            framing: input.arbitrary()?,
            lower_case_names: input.arbitrary()?,
        })
    }
}

impl WellFormed {
    fn bytes(&self) -> Vec<u8> {
        let body_text = format!(
            "{}{}{}",
            self.whitespace_before, self.body, self.whitespace_after
        );
        let mut raw = format!("HTTP/1.1 {} Whatever It Says\r\n", self.status).into_bytes();
        for (name, value) in &self.extra_headers {
            raw.extend_from_slice(format!("{name}: {value}\r\n").as_bytes());
        }
        match &self.framing {
            BodyFraming::ContentLength => {
                let name = if self.lower_case_names {
                    "content-length"
                } else {
                    "Content-Length"
                };
                raw.extend_from_slice(format!("{name}: {}\r\n\r\n", body_text.len()).as_bytes());
                raw.extend_from_slice(body_text.as_bytes());
            }
            BodyFraming::Chunked {
                chunk_sizes,
                with_extension,
            } => {
                let name = if self.lower_case_names {
                    "transfer-encoding"
                } else {
                    "Transfer-Encoding"
                };
                raw.extend_from_slice(format!("{name}: chunked\r\n\r\n").as_bytes());
                let extension = if *with_extension { ";a=b" } else { "" };
                let body = body_text.as_bytes();
                let mut offset = 0;
                let mut index = 0;
                while offset < body.len() {
                    let size = chunk_sizes
                        .get(index % chunk_sizes.len().max(1))
                        .copied()
                        .unwrap_or(u8::MAX)
                        .max(1) as usize;
                    index += 1;
                    let end = (offset + size).min(body.len());
                    raw.extend_from_slice(format!("{:x}{extension}\r\n", end - offset).as_bytes());
                    raw.extend_from_slice(&body[offset..end]);
                    raw.extend_from_slice(b"\r\n");
                    offset = end;
                }
                raw.extend_from_slice(format!("0{extension}\r\n\r\n").as_bytes());
            }
        }
        raw
    }
}

#[derive(Arbitrary, Debug)]
enum Input {
    /// Any bytes, as a remote end could send them, in reads of these sizes.
    Bytes {
        raw: Vec<u8>,
        read_sizes: Vec<u8>,
    },
    WellFormed(WellFormed),
}

fuzz_target!(|input: Input| {
    match input {
        Input::Bytes { raw, read_sizes } => {
            check_any_bytes(&raw);
            check_reads(&raw, &read_sizes);
        }
        Input::WellFormed(answer) => check_well_formed(&answer),
    }
});

fn check_any_bytes(raw: &[u8]) {
    if let Ok(HttpResponse { body, .. }) = parse_response(raw) {
        assert!(arbitrary_json::count_values(&body) <= raw.len().max(1));
    }
    let _ = response_is_complete(raw);
}

/// Reads `raw` as the client does, piece by piece, and checks it never keeps more than the limit.
fn check_reads(raw: &[u8], read_sizes: &[u8]) {
    let mut kept = Vec::new();
    let mut offset = 0;
    let mut index = 0;
    while offset < raw.len() {
        let size = read_sizes
            .get(index % read_sizes.len().max(1))
            .copied()
            .unwrap_or(u8::MAX)
            .max(1) as usize;
        index += 1;
        let end = (offset + size).min(raw.len());
        match framing::take_read(&mut kept, &raw[offset..end]) {
            Ok(true) | Err(_) => break,
            Ok(false) => {}
        }
        assert!(kept.len() <= framing::MAX_ANSWER_BYTES);
        offset = end;
    }
}

fn check_well_formed(answer: &WellFormed) {
    let raw = answer.bytes();
    // An answer can only look complete early where the bytes so far end a line: at the blank
    // line after the headers, or after a chunk's size line or data.
    for end in (0..raw.len()).filter(|&end| end > 0 && raw[end - 1] == b'\n') {
        assert!(
            !response_is_complete(&raw[..end]),
            "complete after {end} of {} bytes",
            raw.len()
        );
    }
    assert!(response_is_complete(&raw), "a whole answer is not complete");
    assert_eq!(
        parse_response(&raw),
        Ok(HttpResponse {
            status: answer.status,
            body: answer.body.clone()
        })
    );
}
