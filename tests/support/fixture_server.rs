//! A small HTTP server for browser tests: serves `fixtures/` (and, under `/wpt/`, the shared
//! web-platform-tests copy) from two loopback origins, so that cross-origin frames are real
//! cross-origin frames, and records Content-Security-Policy reports.
//!
//! - `X.html.headers` next to a file adds its lines as response headers (CSP pages use it).
//! - `?csp=strict` on a page serves it with `Content-Security-Policy: script-src 'self'`, the
//!   policy under which Chromium runs the tree core in the extension's service worker
//!   (docs/protocol/core.md, "The core in the service worker"): one page, both core paths.
//! - `{{OTHER_ORIGIN}}` and `{{SELF_ORIGIN}}` in HTML are replaced by the two origins.
//! - `POST /csp-report?...` stores the report; `reports()` returns them.
//! - `GET /slow/MS` answers after MS milliseconds (a page that loads slowly).
//! - `GET /generated/large-policy?bytes=N` answers a small page with a `script-src` policy of
//!   about N bytes (at most 100,000), and `GET /generated/many-frames?count=C&bytes=N` a page
//!   of C (at most 200) iframes of it: the CSP records of a page with many frames and long
//!   policies (tests/extension/csp.rs).
//! - `GET /redirect?to=URL` answers 302 to URL, as given (a page that sends the browser on to a
//!   `file:` URL, which browsers refuse to follow from the web).
//! - Endpoints of the action fixtures (`fixtures/pages/actions/`), with the effects an action
//!   must notice: `POST /api/mutate[?delay=MS]` (a mutating request, answered with JSON after MS
//!   milliseconds), `POST /telemetry/...` (a beacon, 204), `GET /download/report.csv` (an
//!   attachment, so a link to it downloads), `GET /download/data.bin` and `/download/big.txt`
//!   (a binary attachment and one of 300,000 bytes of text, for get_download), and
//!   `/download/broken.csv` (an attachment whose connection closes after 10 of 1,000 bytes). `GET /api/log` answers their counts as JSON,
//!   `{"mutate": N, "telemetry": N, "download": N}`.
//! - `POST /upload[?format=json]` (upload_file's fixtures, `fixtures/pages/upload/`): a
//!   multipart/form-data body's files echoed as `name size fnv1a64-hex` lines, in an HTML page
//!   (`<pre id="received">`) or as JSON `{"files": [{name, size, hash}]}`.
//! - Endpoints of the safety fixtures (`fixtures/pages/safety/`): `POST /forms/NAME` (a form's
//!   submission, answered with a small HTML page naming it) and `POST /events`, `POST /log`,
//!   `POST /stats` (paths that merely sound like telemetry; JSON `{"ok":true}`).
//! - Every request is recorded with its browser's `User-Agent`; `request_count_from(mark,
//!   path_prefix)` counts one browser's, so a test can prove that an action did not send its
//!   request twice while the other browser's tests use the same paths.
//!
//! Standard library only, one thread per connection, `Connection: close`: simple and enough for
//! tests on loopback.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;

/// The size of `GET /download/big.txt`: over get_download's cap for embedded text.
pub const BIG_DOWNLOAD_BYTES: usize = 300_000;

/// The body of `GET /download/report.csv`.
pub const REPORT_CSV: &str = "month,visits\nJanuary,120\nFebruary,98\n";

/// A CSP report the server received.
#[derive(Clone, Debug)]
pub struct CspReport {
    pub query: String,
    pub body: String,
}

/// A request the server received (the path without its query).
struct RecordedRequest {
    method: String,
    path: String,
    /// The request's `Cache-Control` header, if it had one: how a reload is told from a hard
    /// reload (browsers send `no-cache` for a hard reload only).
    cache_control: Option<String>,
    /// The request's `User-Agent`: which kind of browser sent it, since the tests of both
    /// browsers (and two of one kind) share this server at the same time.
    user_agent: String,
}

pub struct FixtureServer {
    /// `http://127.0.0.1:PORT`
    pub origin: String,
    /// `http://localhost:PORT2`: a different origin served from the same files.
    pub other_origin: String,
    reports: Arc<Mutex<Vec<CspReport>>>,
    requests: Arc<Mutex<Vec<RecordedRequest>>>,
    stopping: Arc<AtomicBool>,
}

struct Shared {
    roots: Vec<(String, PathBuf)>,
    origin: String,
    other_origin: String,
    reports: Arc<Mutex<Vec<CspReport>>>,
    requests: Arc<Mutex<Vec<RecordedRequest>>>,
}

impl FixtureServer {
    /// Starts both origins. `fixtures` is served at `/`, `wpt` (when given) at `/wpt/`.
    pub fn start(fixtures: &Path, wpt: Option<&Path>) -> std::io::Result<FixtureServer> {
        let first = TcpListener::bind("127.0.0.1:0")?;
        let second = TcpListener::bind("127.0.0.1:0")?;
        let origin = format!("http://127.0.0.1:{}", first.local_addr()?.port());
        let other_origin = format!("http://localhost:{}", second.local_addr()?.port());
        let mut roots = vec![("/".to_string(), fixtures.to_path_buf())];
        if let Some(wpt) = wpt {
            roots.insert(0, ("/wpt/".to_string(), wpt.to_path_buf()));
        }
        let reports = Arc::new(Mutex::new(Vec::new()));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stopping = Arc::new(AtomicBool::new(false));
        let shared = Arc::new(Shared {
            roots,
            origin: origin.clone(),
            other_origin: other_origin.clone(),
            reports: reports.clone(),
            requests: requests.clone(),
        });
        for listener in [first, second] {
            let shared = shared.clone();
            let stopping = stopping.clone();
            thread::spawn(move || {
                for stream in listener.incoming() {
                    if stopping.load(Ordering::Relaxed) {
                        break;
                    }
                    let Ok(stream) = stream else { continue };
                    let shared = shared.clone();
                    thread::spawn(move || {
                        let _ = serve(stream, &shared);
                    });
                }
            });
        }
        Ok(FixtureServer {
            origin,
            other_origin,
            reports,
            requests,
            stopping,
        })
    }

    /// A URL on the first origin.
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.origin, path)
    }

    /// Every CSP report received so far.
    pub fn reports(&self) -> Vec<CspReport> {
        self.reports
            .lock()
            .map(|reports| reports.clone())
            .unwrap_or_default()
    }

    /// How many requests so far, of any method and on either origin, had a path starting with
    /// `path_prefix`.
    /// How many requests whose path starts with `path_prefix` came from a browser whose
    /// `User-Agent` contains `user_agent_mark` (`"Firefox/"`, or `"Chrome/"` for Chromium): the
    /// count a test of one browser may compare before and after its action while a test of the
    /// other browser requests the same paths beside it.
    pub fn request_count_from(&self, user_agent_mark: &str, path_prefix: &str) -> usize {
        let Ok(requests) = self.requests.lock() else {
            return 0;
        };
        requests
            .iter()
            .filter(|request| request.path.starts_with(path_prefix))
            .filter(|request| request.user_agent.contains(user_agent_mark))
            .count()
    }

    /// The `Cache-Control` header of the latest request for exactly `path` (None when that
    /// request had none, or when there was no request for it).
    pub fn latest_cache_control(&self, path: &str) -> Option<String> {
        let requests = self.requests.lock().ok()?;
        requests
            .iter()
            .rev()
            .find(|request| request.path == path)
            .and_then(|request| request.cache_control.clone())
    }
}

impl Drop for FixtureServer {
    fn drop(&mut self) {
        self.stopping.store(true, Ordering::Relaxed);
    }
}

fn serve(stream: TcpStream, shared: &Shared) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let mut parts = request_line.split_whitespace();
    let method = parts.next().unwrap_or("").to_string();
    let target = parts.next().unwrap_or("/").to_string();
    let mut content_length = 0usize;
    let mut host = String::new();
    let mut cache_control = None;
    let mut user_agent = String::new();
    let mut content_type = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line == "\r\n" || line == "\n" {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            let value = value.trim();
            if name.eq_ignore_ascii_case("content-length") {
                content_length = value.parse().unwrap_or(0);
            } else if name.eq_ignore_ascii_case("host") {
                host = value.to_string();
            } else if name.eq_ignore_ascii_case("cache-control") {
                cache_control = Some(value.to_string());
            } else if name.eq_ignore_ascii_case("user-agent") {
                user_agent = value.to_string();
            } else if name.eq_ignore_ascii_case("content-type") {
                content_type = value.to_string();
            }
        }
    }
    let mut body = vec![0; content_length.min(1 << 20)];
    reader.read_exact(&mut body)?;
    let (path, query) = target.split_once('?').unwrap_or((target.as_str(), ""));
    let mut stream = stream;
    if let Ok(mut requests) = shared.requests.lock() {
        requests.push(RecordedRequest {
            method: method.clone(),
            path: path.to_string(),
            cache_control,
            user_agent: user_agent.clone(),
        });
    }
    if method == "POST" && path == "/csp-report" {
        if let Ok(mut reports) = shared.reports.lock() {
            reports.push(CspReport {
                query: query.to_string(),
                body: String::from_utf8_lossy(&body).into_owned(),
            });
        }
        return respond(&mut stream, 204, "text/plain", &[], b"");
    }
    // `/slow/MS`: an empty image after MS milliseconds (at most 10 s), to hold a page's load
    // event back.
    if let Some(delay) = path
        .strip_prefix("/slow/")
        .and_then(|ms| ms.parse::<u64>().ok())
    {
        thread::sleep(std::time::Duration::from_millis(delay.min(10_000)));
        return respond(&mut stream, 200, "image/gif", &[], b"");
    }
    if method == "GET" && path.starts_with("/generated/") {
        let number = |name: &str, most: usize| {
            query_parameter(query, name)
                .and_then(|text| text.parse::<usize>().ok())
                .unwrap_or(0)
                .min(most)
        };
        let bytes = number("bytes", 100_000);
        if path == "/generated/large-policy" {
            let mut policy = String::from("script-src 'self'");
            let mut host = 0;
            while policy.len() < bytes {
                policy.push_str(&format!(" https://h{host}.example"));
                host += 1;
            }
            let headers = [("Content-Security-Policy".to_string(), policy)];
            let body = b"<!doctype html><title>Large policy</title><button>In a frame</button>";
            return respond(&mut stream, 200, "text/html; charset=utf-8", &headers, body);
        }
        if path == "/generated/many-frames" {
            let frames: String = (0..number("count", 200))
                .map(|index| {
                    format!("<iframe title=\"Frame {index}\" src=\"/generated/large-policy?bytes={bytes}&n={index}\"></iframe>")
                })
                .collect();
            let body =
                format!("<!doctype html><title>Many frames</title><h1>Many frames</h1>{frames}");
            return respond(
                &mut stream,
                200,
                "text/html; charset=utf-8",
                &[],
                body.as_bytes(),
            );
        }
    }
    // `/user-agent`: the request's User-Agent header, as text (emulate's user agent reaches
    // the requests, tests/extension/viewport.rs).
    if method == "GET" && path == "/user-agent" {
        let headers = [("Cache-Control".to_string(), "no-store".to_string())];
        return respond(
            &mut stream,
            200,
            "text/plain",
            &headers,
            user_agent.as_bytes(),
        );
    }
    if method == "GET" && path == "/redirect" {
        let to = query_parameter(query, "to").unwrap_or("/");
        let headers = [("Location".to_string(), to.to_string())];
        return respond(&mut stream, 302, "text/plain", &headers, b"redirecting");
    }
    if method == "POST" && path == "/upload" {
        let files = uploaded_files(&content_type, &body);
        if query_parameter(query, "format") == Some("json") {
            let listed: Vec<String> = files
                .iter()
                .map(|(name, size, hash)| {
                    format!("{{\"name\":{name:?},\"size\":{size},\"hash\":\"{hash:016x}\"}}")
                })
                .collect();
            let body = format!("{{\"files\":[{}]}}", listed.join(","));
            return respond(&mut stream, 200, "application/json", &[], body.as_bytes());
        }
        let lines: Vec<String> = files
            .iter()
            .map(|(name, size, hash)| format!("{name} {size} {hash:016x}"))
            .collect();
        let body = format!(
            "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Uploaded</title></head><body><h1>Uploaded</h1><pre id=\"received\">{}</pre></body></html>",
            lines.join("\n").replace('<', "&lt;")
        );
        return respond(
            &mut stream,
            200,
            "text/html; charset=utf-8",
            &[],
            body.as_bytes(),
        );
    }
    if let Some(answered) = serve_action_endpoint(&mut stream, &method, path, query, shared) {
        return answered;
    }
    if method != "GET" && method != "HEAD" {
        return respond(&mut stream, 405, "text/plain", &[], b"method not allowed");
    }
    let Some(file) = resolve(&shared.roots, path) else {
        return respond(&mut stream, 404, "text/plain", &[], b"not found");
    };
    let Ok(mut contents) = std::fs::read(&file) else {
        return respond(&mut stream, 404, "text/plain", &[], b"not found");
    };
    let content_type = content_type_of(&file);
    if content_type.starts_with("text/html") {
        let self_origin = if host.starts_with("localhost") {
            &shared.other_origin
        } else {
            &shared.origin
        };
        let other = if host.starts_with("localhost") {
            &shared.origin
        } else {
            &shared.other_origin
        };
        let text = String::from_utf8_lossy(&contents)
            .replace("{{OTHER_ORIGIN}}", other)
            .replace("{{SELF_ORIGIN}}", self_origin);
        contents = text.into_bytes();
    }
    let mut headers = Vec::new();
    if content_type.starts_with("text/html") && query.split('&').any(|pair| pair == "csp=strict") {
        headers.push((
            "Content-Security-Policy".to_string(),
            "script-src 'self'".to_string(),
        ));
    }
    let sidecar = PathBuf::from(format!("{}.headers", file.display()));
    if let Ok(text) = std::fs::read_to_string(&sidecar) {
        for line in text.lines() {
            if let Some((name, value)) = line.split_once(':') {
                headers.push((name.trim().to_string(), value.trim().to_string()));
            }
        }
    }
    let body = if method == "HEAD" {
        Vec::new()
    } else {
        contents
    };
    respond(&mut stream, 200, content_type, &headers, &body)
}

/// Answers a request for one of the action fixtures' endpoints; `None` when it is for none of
/// them.
fn serve_action_endpoint(
    stream: &mut TcpStream,
    method: &str,
    path: &str,
    query: &str,
    shared: &Shared,
) -> Option<std::io::Result<()>> {
    let requests = &shared.requests;
    let answer = match (method, path) {
        ("POST", "/api/mutate") => {
            let delay = query_parameter(query, "delay").and_then(|ms| ms.parse::<u64>().ok());
            thread::sleep(std::time::Duration::from_millis(
                delay.unwrap_or(0).min(10_000),
            ));
            let mutations = count_requests(requests, "/api/mutate", Some("POST"));
            let body = format!("{{\"ok\":true,\"mutations\":{mutations}}}");
            respond(stream, 200, "application/json", &[], body.as_bytes())
        }
        ("POST", _) if path.starts_with("/forms/") => {
            let name: String = path["/forms/".len()..]
                .chars()
                .filter(char::is_ascii_alphanumeric)
                .collect();
            let body = format!(
                "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Submitted {name}</title></head><body><h1>Submitted {name}</h1></body></html>"
            );
            respond(
                stream,
                200,
                "text/html; charset=utf-8",
                &[],
                body.as_bytes(),
            )
        }
        ("POST", "/events" | "/log" | "/stats") => {
            respond(stream, 200, "application/json", &[], b"{\"ok\":true}")
        }
        ("POST", _) if path.starts_with("/telemetry/") => {
            respond(stream, 204, "text/plain", &[], b"")
        }
        ("GET", "/download/report.csv") => {
            let disposition = "attachment; filename=\"report.csv\"".to_string();
            let headers = [("Content-Disposition".to_string(), disposition)];
            respond(
                stream,
                200,
                "text/csv; charset=utf-8",
                &headers,
                REPORT_CSV.as_bytes(),
            )
        }
        // The downloads fixture (fixtures/pages/downloads/): a binary attachment (the bytes
        // 0..=255) and a text attachment over get_download's 256 KiB cap.
        ("GET", "/download/data.bin") => {
            let disposition = "attachment; filename=\"data.bin\"".to_string();
            let headers = [("Content-Disposition".to_string(), disposition)];
            let body: Vec<u8> = (0..=255u8).collect();
            respond(stream, 200, "application/octet-stream", &headers, &body)
        }
        // An attachment cut short: the header promises 1,000 bytes, 10 come, and the
        // connection closes (the browser interrupts the download).
        ("GET", "/download/broken.csv") => {
            let head = "HTTP/1.1 200 OK\r\nContent-Type: text/csv\r\nContent-Length: 1000\r\nContent-Disposition: attachment; filename=\"broken.csv\"\r\nCache-Control: no-store\r\nConnection: close\r\n\r\nmonth,visi";
            stream
                .write_all(head.as_bytes())
                .and_then(|()| stream.flush())
        }
        ("GET", "/download/big.txt") => {
            let disposition = "attachment; filename=\"big.txt\"".to_string();
            let headers = [("Content-Disposition".to_string(), disposition)];
            let body = vec![b'a'; BIG_DOWNLOAD_BYTES];
            respond(stream, 200, "text/plain; charset=utf-8", &headers, &body)
        }
        // console_messages and network_requests (fixtures/pages/observe/app.html): a session
        // cookie that network_requests must never show.
        ("GET", "/api/session") => {
            let headers = [(
                "Set-Cookie".to_string(),
                "session_id=s3cr3t-cookie-value; Path=/; SameSite=Lax".to_string(),
            )];
            respond(
                stream,
                200,
                "application/json",
                &headers,
                b"{\"signedIn\":true}",
            )
        }
        // A request that fails: the connection is closed without an answer.
        ("GET", "/api/hang-up") => Ok(()),
        ("GET", "/api/log") => {
            let body = format!(
                "{{\"mutate\":{},\"telemetry\":{},\"download\":{}}}",
                count_requests(requests, "/api/mutate", Some("POST")),
                count_requests(requests, "/telemetry/", Some("POST")),
                count_requests(requests, "/download/", Some("GET"))
            );
            respond(stream, 200, "application/json", &[], body.as_bytes())
        }
        _ => return None,
    };
    Some(answer)
}

/// FNV-1a, 64 bits: a hash of an upload's bytes that the test computes the same way.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The files of a multipart/form-data body: `(file name, size, fnv1a64)` of each part that has
/// a `filename` (fields without one are left out).
fn uploaded_files(content_type: &str, body: &[u8]) -> Vec<(String, usize, u64)> {
    let Some(boundary) = content_type
        .split(';')
        .find_map(|part| part.trim().strip_prefix("boundary="))
    else {
        return Vec::new();
    };
    let delimiter = format!("--{}", boundary.trim_matches('"'));
    let delimiter = delimiter.as_bytes();
    let find = |haystack: &[u8], needle: &[u8], from: usize| {
        haystack
            .get(from..)?
            .windows(needle.len())
            .position(|window| window == needle)
            .map(|at| at + from)
    };
    let mut files = Vec::new();
    let mut at = find(body, delimiter, 0);
    while let Some(start) = at {
        let part_start = start + delimiter.len() + 2;
        let Some(next) = find(body, delimiter, part_start) else {
            break;
        };
        if let Some(headers_end) = find(body, b"\r\n\r\n", part_start).filter(|end| *end < next) {
            let headers = String::from_utf8_lossy(&body[part_start..headers_end]);
            let name = headers.split(';').find_map(|field| {
                field.trim().strip_prefix("filename=").map(|name| {
                    name.split("\r\n")
                        .next()
                        .unwrap_or("")
                        .trim_matches('"')
                        .to_string()
                })
            });
            // The part's content ends with the CRLF before the next delimiter.
            let content = &body[headers_end + 4..next.saturating_sub(2).max(headers_end + 4)];
            if let Some(name) = name.filter(|name| !name.is_empty()) {
                files.push((name, content.len(), fnv1a64(content)));
            }
        }
        at = Some(next);
    }
    files
}

/// How many recorded requests had a path starting with `path_prefix` (and `method`, if given).
fn count_requests(
    requests: &Mutex<Vec<RecordedRequest>>,
    path_prefix: &str,
    method: Option<&str>,
) -> usize {
    let Ok(requests) = requests.lock() else {
        return 0;
    };
    requests
        .iter()
        .filter(|request| request.path.starts_with(path_prefix))
        .filter(|request| method.is_none_or(|method| request.method == method))
        .count()
}

/// The value of a query parameter, undecoded (the fixtures use plain values).
fn query_parameter<'a>(query: &'a str, name: &str) -> Option<&'a str> {
    query
        .split('&')
        .find_map(|pair| pair.strip_prefix(name)?.strip_prefix('='))
}

/// Maps a URL path to a file under one of the roots, refusing `..` and absolute components.
fn resolve(roots: &[(String, PathBuf)], path: &str) -> Option<PathBuf> {
    let decoded = path.replace("%20", " ");
    for (prefix, root) in roots {
        let Some(rest) = decoded.strip_prefix(prefix.as_str()) else {
            continue;
        };
        let relative = Path::new(rest);
        if relative
            .components()
            .any(|component| !matches!(component, Component::Normal(_)))
        {
            return None;
        }
        let mut file = root.join(relative);
        if file.is_dir() {
            file = file.join("index.html");
        }
        if file.is_file() {
            return Some(file);
        }
    }
    None
}

fn content_type_of(file: &Path) -> &'static str {
    match file.extension().and_then(|extension| extension.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js") | Some("mjs") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("json") => "application/json",
        Some("png") => "image/png",
        Some("svg") => "image/svg+xml",
        Some("txt") => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

fn respond(
    stream: &mut TcpStream,
    status: u16,
    content_type: &str,
    headers: &[(String, String)],
    body: &[u8],
) -> std::io::Result<()> {
    let reason = match status {
        200 => "OK",
        204 => "No Content",
        302 => "Found",
        404 => "Not Found",
        _ => "Error",
    };
    let mut head = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    stream.write_all(body)?;
    stream.flush()
}
