//! A tiny HTTP server on 127.0.0.1 for `allwright snapshot FILE`: content scripts do not run on
//! file:// pages by default, so a local file is served over http from its own folder (relative
//! links, styles and frames keep working). GET and HEAD only; nothing outside the folder.

use std::path::{Component, Path, PathBuf};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

/// A running server; dropping it stops it.
pub struct LocalFileServer {
    port: u16,
    task: JoinHandle<()>,
}

impl Drop for LocalFileServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl LocalFileServer {
    /// Serves `folder` on a free port.
    pub async fn start(folder: &Path) -> Result<Self, String> {
        let root = folder
            .canonicalize()
            .map_err(|error| format!("cannot serve {}: {error}", folder.display()))?;
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|error| format!("cannot start the local file server: {error}"))?;
        let port = listener
            .local_addr()
            .map_err(|error| error.to_string())?
            .port();
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let root = root.clone();
                tokio::spawn(async move {
                    let _ = serve_one(stream, &root).await;
                });
            }
        });
        Ok(Self { port, task })
    }

    /// The URL of `relative_path` (a file inside the served folder).
    pub fn url_of(&self, relative_path: &str) -> String {
        let encoded: String = relative_path
            .split('/')
            .map(percent_encode_segment)
            .collect::<Vec<_>>()
            .join("/");
        format!("http://127.0.0.1:{}/{encoded}", self.port)
    }
}

async fn serve_one(mut stream: TcpStream, root: &Path) -> std::io::Result<()> {
    let mut request = Vec::new();
    let mut buffer = [0u8; 4096];
    while !request.windows(4).any(|window| window == b"\r\n\r\n") {
        let read = stream.read(&mut buffer).await?;
        if read == 0 || request.len() > 64 * 1024 {
            return Ok(());
        }
        request.extend_from_slice(&buffer[..read]);
    }
    let head = String::from_utf8_lossy(&request);
    let mut parts = head.split_whitespace();
    let method = parts.next().unwrap_or_default().to_owned();
    let target = parts.next().unwrap_or("/").to_owned();
    let (status, content_type, body) = match (method.as_str(), resolve(root, &target)) {
        ("GET" | "HEAD", Some(path)) => match tokio::fs::read(&path).await {
            Ok(bytes) => ("200 OK", content_type_of(&path), bytes),
            Err(_) => (
                "404 Not Found",
                "text/plain; charset=utf-8",
                b"not found\n".to_vec(),
            ),
        },
        ("GET" | "HEAD", None) => (
            "404 Not Found",
            "text/plain; charset=utf-8",
            b"not found\n".to_vec(),
        ),
        _ => (
            "405 Method Not Allowed",
            "text/plain; charset=utf-8",
            b"GET only\n".to_vec(),
        ),
    };
    let header = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(header.as_bytes()).await?;
    if method != "HEAD" {
        stream.write_all(&body).await?;
    }
    stream.shutdown().await
}

/// Maps a request target to a file under `root`, or `None` for anything that would leave it.
fn resolve(root: &Path, target: &str) -> Option<PathBuf> {
    let path_part = target.split(['?', '#']).next().unwrap_or_default();
    let decoded = percent_decode(path_part)?;
    let mut path = root.to_path_buf();
    for component in Path::new(decoded.trim_start_matches('/')).components() {
        match component {
            Component::Normal(segment) => path.push(segment),
            Component::CurDir => {}
            _ => return None,
        }
    }
    if path.is_dir() {
        path.push("index.html");
    }
    // Symbolic links could still point outside; the canonical path must stay under the root.
    let canonical = path.canonicalize().ok()?;
    canonical.starts_with(root).then_some(canonical)
}

fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        if bytes[index] == b'%' {
            let hex = text.get(index + 1..index + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            index += 3;
        } else {
            out.push(bytes[index]);
            index += 1;
        }
    }
    String::from_utf8(out).ok()
}

fn percent_encode_segment(segment: &str) -> String {
    segment
        .bytes()
        .map(|byte| match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (byte as char).to_string()
            }
            other => format!("%{other:02X}"),
        })
        .collect()
}

/// Content types by extension: the few a test page or a saved page uses.
fn content_type_of(path: &Path) -> &'static str {
    match path
        .extension()
        .and_then(|extension| extension.to_str())
        .unwrap_or_default()
    {
        "html" | "htm" => "text/html; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "json" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "wasm" => "application/wasm",
        "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_cannot_leave_the_served_folder() {
        let root = tempfile::tempdir().expect("temp dir");
        let root_path = root.path().canonicalize().expect("canonical");
        std::fs::write(root_path.join("page one.html"), "<p>x</p>").expect("write");
        assert_eq!(
            resolve(&root_path, "/page%20one.html?x=1"),
            Some(root_path.join("page one.html"))
        );
        assert_eq!(resolve(&root_path, "/../etc/passwd"), None);
        assert_eq!(resolve(&root_path, "/%2e%2e/etc/passwd"), None);
        assert_eq!(resolve(&root_path, "/missing.html"), None);
        assert_eq!(percent_encode_segment("page one.html"), "page%20one.html");
    }
}
