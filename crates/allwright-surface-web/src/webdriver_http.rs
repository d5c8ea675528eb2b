//! The few WebDriver classic HTTP requests allwright needs (`GET /status`, `POST /session`,
//! `DELETE /session/{id}`), over a plain HTTP/1.1 connection to a remote end named by a
//! `--webdriver http://host:port/base` URL. A full HTTP client would be a large dependency for
//! three requests.
//!
//! `https` goes through `tls.rs` (rustls with the system's roots).

use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;

mod framing;
pub(crate) use framing::{host_header, HttpResponse};
use framing::{parse_response, take_read};

/// Where a request goes: `host:port` (a name or an IP address, IPv6 without brackets), over TLS
/// or not, with the value of an `Authorization` header (basic authentication of a grid), which
/// no error message repeats.
pub(crate) struct HttpTarget<'a> {
    pub host: &'a str,
    pub port: u16,
    pub tls: bool,
    pub authorization: Option<&'a str>,
}

/// Sends one request with `Connection: close` to the target and reads the whole answer, at most
/// `timeout`.
pub(crate) async fn request_to(
    target: &HttpTarget<'_>,
    method: &str,
    path: &str,
    body: Option<&Value>,
    timeout: Duration,
) -> Result<HttpResponse, String> {
    let HttpTarget {
        host,
        port,
        tls,
        authorization,
    } = *target;
    let exchange = async {
        let stream = TcpStream::connect((host, port))
            .await
            .map_err(|error| format!("cannot connect to {}: {error}", host_header(host, port)))?;
        let body_text = body.map(Value::to_string).unwrap_or_default();
        let authorization_line = authorization
            .map(|value| format!("Authorization: {value}\r\n"))
            .unwrap_or_default();
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\n{authorization_line}Connection: close\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: {}\r\n\r\n",
            host_header(host, port),
            body_text.len()
        );
        if tls {
            let stream = crate::tls::connect(host, stream).await?;
            exchange_over(stream, head.as_bytes(), body_text.as_bytes()).await
        } else {
            exchange_over(stream, head.as_bytes(), body_text.as_bytes()).await
        }
    };
    tokio::time::timeout(timeout, exchange).await.map_err(|_| {
        format!(
            "{method} {path} got no answer within {} s",
            timeout.as_secs()
        )
    })?
}

/// Writes the request and reads the answer over a connected stream, plain or TLS.
async fn exchange_over<Stream>(
    mut stream: Stream,
    head: &[u8],
    body: &[u8],
) -> Result<HttpResponse, String>
where
    Stream: AsyncRead + AsyncWrite + Unpin,
{
    stream
        .write_all(head)
        .await
        .map_err(|error| error.to_string())?;
    stream
        .write_all(body)
        .await
        .map_err(|error| error.to_string())?;
    // chromedriver keeps the connection open despite `Connection: close`, so the response
    // ends where its framing says, not at the end of the stream.
    let mut raw = Vec::new();
    let mut buffer = [0u8; 16 * 1024];
    loop {
        let read = stream
            .read(&mut buffer)
            .await
            .map_err(|error| error.to_string())?;
        if read == 0 || take_read(&mut raw, &buffer[..read])? {
            return parse_response(&raw);
        }
    }
}
