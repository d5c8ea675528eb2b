//! The text of the HTTP/1.1 messages `webdriver_http.rs` exchanges: the `Host` header it writes,
//! and the status, headers and body framing (`Content-Length`, chunked, or the end of the
//! connection) of the answer it reads (RFC 9112). Pure functions over bytes, with no other
//! dependency, so that the fuzz target `webdriver_http` compiles them as they are.

use serde_json::Value;

#[derive(Debug, PartialEq)]
pub(crate) struct HttpResponse {
    pub status: u16,
    pub body: Value,
}

/// The `Host` header value: IPv6 literals go in brackets (RFC 9110, section 7.2).
pub(crate) fn host_header(host: &str, port: u16) -> String {
    if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

/// Whether `raw` holds a whole response: headers plus a `Content-Length` body, or a chunked
/// body up to its last chunk. A body framed by the end of the stream is never complete here.
pub(crate) fn response_is_complete(raw: &[u8]) -> bool {
    let Some(header_end) = raw.windows(4).position(|window| window == b"\r\n\r\n") else {
        return false;
    };
    let head = String::from_utf8_lossy(&raw[..header_end]).to_ascii_lowercase();
    let body_length = raw.len() - header_end - 4;
    for line in head.split("\r\n") {
        if let Some(value) = line.strip_prefix("content-length:") {
            return value
                .trim()
                .parse::<usize>()
                .is_ok_and(|length| body_length >= length);
        }
        if line.starts_with("transfer-encoding:") && line.contains("chunked") {
            return raw.ends_with(b"0\r\n\r\n");
        }
    }
    false
}

/// Reads a complete HTTP/1.1 response: the status line, headers, and a body framed by
/// `Content-Length`, by chunked transfer coding, or by the end of the connection.
pub(crate) fn parse_response(raw: &[u8]) -> Result<HttpResponse, String> {
    let header_end = raw
        .windows(4)
        .position(|window| window == b"\r\n\r\n")
        .ok_or("the HTTP response has no end of headers")?;
    let head =
        std::str::from_utf8(&raw[..header_end]).map_err(|_| "the HTTP headers are not UTF-8")?;
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse::<u16>().ok())
        .ok_or_else(|| format!("unreadable HTTP status line {status_line:?}"))?;
    let mut content_length = None;
    let mut chunked = false;
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        if name.eq_ignore_ascii_case("content-length") {
            content_length = value.parse::<usize>().ok();
        } else if name.eq_ignore_ascii_case("transfer-encoding")
            && value.eq_ignore_ascii_case("chunked")
        {
            chunked = true;
        }
    }
    let rest = &raw[header_end + 4..];
    let body_bytes = if chunked {
        decode_chunked(rest)?
    } else if let Some(length) = content_length {
        rest.get(..length)
            .ok_or("the HTTP body is shorter than its Content-Length")?
            .to_vec()
    } else {
        rest.to_vec()
    };
    let body = if body_bytes.iter().all(u8::is_ascii_whitespace) {
        Value::Null
    } else {
        serde_json::from_slice(&body_bytes)
            .map_err(|error| format!("the HTTP body is not JSON: {error}"))?
    };
    Ok(HttpResponse { status, body })
}

fn decode_chunked(mut rest: &[u8]) -> Result<Vec<u8>, String> {
    let mut body = Vec::new();
    loop {
        let line_end = rest
            .windows(2)
            .position(|window| window == b"\r\n")
            .ok_or("a chunk size line has no end")?;
        let size_text =
            std::str::from_utf8(&rest[..line_end]).map_err(|_| "a chunk size is not text")?;
        let size_text = size_text.split(';').next().unwrap_or_default().trim();
        let size = usize::from_str_radix(size_text, 16)
            .map_err(|_| format!("bad chunk size {size_text:?}"))?;
        rest = &rest[line_end + 2..];
        if size == 0 {
            return Ok(body);
        }
        body.extend_from_slice(rest.get(..size).ok_or("a chunk is shorter than its size")?);
        rest = rest.get(size + 2..).ok_or("a chunk has no end")?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_response_with_content_length_is_read() {
        let raw = b"HTTP/1.1 200 OK\r\nContent-Length: 11\r\nContent-Type: application/json\r\n\r\n{\"value\":1}";
        assert_eq!(
            parse_response(raw),
            Ok(HttpResponse {
                status: 200,
                body: json!({"value": 1})
            })
        );
    }

    #[test]
    fn a_chunked_response_is_reassembled() {
        let raw = b"HTTP/1.1 500 Internal Server Error\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"val\r\n6\r\nue\":2}\r\n0\r\n\r\n";
        assert_eq!(
            parse_response(raw),
            Ok(HttpResponse {
                status: 500,
                body: json!({"value": 2})
            })
        );
    }

    #[test]
    fn completeness_follows_the_framing_not_the_end_of_stream() {
        assert!(!response_is_complete(
            b"HTTP/1.1 200 OK\r\nContent-Length:5\r\n\r\n{}"
        ));
        assert!(response_is_complete(
            b"HTTP/1.1 200 OK\r\nContent-Length:2\r\n\r\n{}"
        ));
        assert!(!response_is_complete(
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n"
        ));
        assert!(response_is_complete(
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"
        ));
    }

    #[test]
    fn ipv6_hosts_are_bracketed_in_the_host_header() {
        assert_eq!(host_header("::1", 4444), "[::1]:4444");
        assert_eq!(host_header("grid.example", 4444), "grid.example:4444");
    }

    #[test]
    fn broken_responses_are_errors() {
        assert!(parse_response(b"HTTP/1.1 200 OK\r\n").is_err());
        assert!(parse_response(b"garbage\r\n\r\n").is_err());
        assert!(parse_response(b"HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n{}").is_err());
    }
}
