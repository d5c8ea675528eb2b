//! A tiny HTTP server on 127.0.0.1 for `allwright snapshot FILE`: content scripts do not run on
//! file:// pages by default, so a local file is served over http from its own folder (relative
//! links, styles and frames keep working). GET and HEAD only, and only the files the page
//! references below its folder ([`ServedFiles`]): no dotfile, nothing above the folder, nothing
//! else in it.

use std::path::Path;
use std::sync::Arc;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

use crate::served_files::ServedFiles;

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
    /// Serves `file` (canonical) and what it references below its folder, on a free port.
    pub async fn start_for_file(file: &Path) -> Result<Self, String> {
        let folder = file
            .parent()
            .ok_or_else(|| format!("{} has no parent folder", file.display()))?;
        let root = folder
            .canonicalize()
            .map_err(|error| format!("cannot serve {}: {error}", folder.display()))?;
        let served = Arc::new(ServedFiles::collect(&root, file));
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|error| format!("cannot start the local file server: {error}"))?;
        let port = listener
            .local_addr()
            .map_err(|error| error.to_string())?
            .port();
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let served = Arc::clone(&served);
                tokio::spawn(async move {
                    let _ = serve_one(stream, &served).await;
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

async fn serve_one(mut stream: TcpStream, served: &ServedFiles) -> std::io::Result<()> {
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
    let (status, content_type, body) =
        match (method.as_str(), served.file_for_request_target(&target)) {
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
        let served = ServedFiles::collect(&root_path, &root_path.join("page one.html"));
        assert_eq!(
            served.file_for_request_target("/page%20one.html?x=1"),
            Some(root_path.join("page one.html"))
        );
        assert_eq!(served.file_for_request_target("/../etc/passwd"), None);
        assert_eq!(served.file_for_request_target("/%2e%2e/etc/passwd"), None);
        assert_eq!(served.file_for_request_target("/missing.html"), None);
        assert_eq!(percent_encode_segment("page one.html"), "page%20one.html");
    }

    /// Sends one raw request line (bytes as given: no client normalises `%2e%2e` or `..` away)
    /// and returns the status code.
    async fn status_of(port: u16, target: &str) -> u16 {
        let mut stream = TcpStream::connect(("127.0.0.1", port))
            .await
            .expect("connect");
        stream
            .write_all(format!("GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").as_bytes())
            .await
            .expect("request");
        let mut response = Vec::new();
        stream.read_to_end(&mut response).await.expect("response");
        let text = String::from_utf8_lossy(&response);
        text.split_whitespace()
            .nth(1)
            .and_then(|code| code.parse().ok())
            .expect("a status line")
    }

    #[tokio::test]
    async fn over_http_only_the_page_and_what_it_references_are_served() {
        let temporary = tempfile::tempdir().expect("temp dir");
        let top = temporary.path().canonicalize().expect("canonical");
        let folder = top.join("downloads");
        std::fs::create_dir_all(folder.join(".git")).expect("folders");
        std::fs::create_dir_all(folder.join("assets")).expect("folders");
        std::fs::create_dir_all(top.join("private")).expect("folders");
        std::fs::write(top.join("outside.txt"), "above the folder").expect("file");
        std::fs::write(top.join("private/key.txt"), "secret").expect("file");
        std::fs::write(
            folder.join("page.html"),
            r#"<img src="assets/logo.png"><img src="link-out/key.txt"><img src=".env">"#,
        )
        .expect("page");
        std::fs::write(folder.join("assets/logo.png"), "png").expect("file");
        std::fs::write(folder.join(".env"), "TOKEN=1").expect("file");
        std::fs::write(folder.join(".git/config"), "[core]").expect("file");
        std::fs::write(folder.join("other-download.pdf"), "%PDF").expect("file");
        std::os::unix::fs::symlink(top.join("private"), folder.join("link-out")).expect("symlink");
        std::os::unix::fs::symlink(top.join("outside.txt"), folder.join("assets/out.txt"))
            .expect("symlink");

        let server = LocalFileServer::start_for_file(&folder.join("page.html"))
            .await
            .expect("start");
        let port = server.port;
        assert_eq!(status_of(port, "/page.html").await, 200);
        assert_eq!(status_of(port, "/assets/logo.png").await, 200);
        for forbidden in [
            "/.env",
            "/%2eenv",
            "/.git/config",
            "/%2Egit/config",
            "/assets/../.env",
            "/../outside.txt",
            "/%2e%2e/outside.txt",
            "/assets/%2e%2e/%2e%2e/outside.txt",
            "/..%2foutside.txt",
            "/link-out/key.txt",
            "/assets/out.txt",
            "/other-download.pdf",
            "/",
            "//etc/passwd",
            "/%2fetc%2fpasswd",
        ] {
            assert_eq!(status_of(port, forbidden).await, 404, "{forbidden}");
        }
    }
}
