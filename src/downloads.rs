//! list_downloads' and get_download's host side (docs/agent-tools.md, "Downloads"). The
//! extension answers the browser's facts about the agent's own downloads
//! (extension/background/records/agent-downloads.js), and for a finished one the path the browser wrote;
//! this module masks the URLs as network_requests masks them (src/page_observations.rs), prints
//! one line per download, and reads a text file's bytes into an MCP embedded resource.
//!
//! The file is read here, by the MCP server, and nowhere else: only for an id the extension
//! recorded as the agent's (it refuses any other with `download_not_found`), only a regular file
//! reached without following a link at its last step, only up to [`MAX_TEXT_BYTES`], and only
//! when its type is text. In a browser allwright launched the path must lie in the session's
//! private downloads folder (src/browser_launch.rs), and a file not embedded is named by that
//! path (`savedAt`); in the person's own browser no path is ever repeated to the agent.

use std::io::Read;
use std::path::{Path, PathBuf};

use rmcp::model::{CallToolResult, ContentBlock, ResourceContents};
use serde_json::{json, Map, Value};

use crate::page_observations::{bytes_text, url_shown, word_or_quoted};

pub const LIST_DOWNLOADS_TOOL: &str = "list_downloads";
pub const GET_DOWNLOAD_TOOL: &str = "get_download";

/// The largest download get_download embeds as text: about 64k tokens of the agent's context.
pub const MAX_TEXT_BYTES: u64 = 256 * 1024;

/// MIME types outside `text/*` whose bytes are text (a `+json` or `+xml` suffix counts too).
const TEXT_MIME_TYPES: &[&str] = &[
    "application/json",
    "application/ld+json",
    "application/x-ndjson",
    "application/xml",
    "application/javascript",
    "application/ecmascript",
    "application/x-javascript",
    "application/x-yaml",
    "application/yaml",
    "application/toml",
    "application/sql",
    "application/x-sh",
    "application/csv",
    "application/x-csv",
];

/// File name endings whose bytes are text, for a download the server sent as
/// `application/octet-stream` or without a type.
const TEXT_FILE_ENDINGS: &[&str] = &[
    ".txt", ".csv", ".tsv", ".json", ".ndjson", ".xml", ".js", ".mjs", ".md", ".html", ".htm",
    ".yaml", ".yml", ".toml", ".log", ".svg", ".ics", ".vcf", ".sql", ".ini",
];

/// Whether a download's bytes are text by its MIME type or, when that says nothing, its name.
pub fn is_text_like(mime_type: Option<&str>, filename: Option<&str>) -> bool {
    let essence = mime_type
        .map(|mime| {
            mime.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        })
        .unwrap_or_default();
    if essence.starts_with("text/")
        || essence.ends_with("+json")
        || essence.ends_with("+xml")
        || TEXT_MIME_TYPES.contains(&essence.as_str())
    {
        return true;
    }
    let says_nothing = essence.is_empty() || essence == "application/octet-stream";
    says_nothing
        && filename.is_some_and(|name| {
            let name = name.to_ascii_lowercase();
            TEXT_FILE_ENDINGS
                .iter()
                .any(|ending| name.ends_with(ending))
        })
}

/// A download's URL as the agent sees it: credentials and token-looking query values masked, a
/// data: URL by its type and length only (its bytes are the download itself).
fn download_url_shown(url: &str) -> String {
    if let Some(rest) = url.strip_prefix("data:") {
        let kind: String = rest
            .split(',')
            .next()
            .unwrap_or("")
            .chars()
            .take(100)
            .collect();
        return format!("data:{kind},… ({} characters)", url.chars().count());
    }
    url_shown(url).into_owned()
}

/// Masks the URLs of the downloads an action's evidence (`observed.downloads`) or navigate's
/// result (`downloads`) names, as list_downloads masks them.
pub fn mask_evidence(result: &mut Value) {
    mask_urls(result.pointer_mut("/observed/downloads"));
    mask_urls(result.get_mut("downloads"));
}

fn mask_urls(list: Option<&mut Value>) {
    for download in list.and_then(Value::as_array_mut).into_iter().flatten() {
        if let Some(url) = download.get("url").and_then(Value::as_str) {
            let shown = download_url_shown_in_evidence(url);
            download["url"] = json!(shown);
        }
    }
}

/// A URL the extension already shortened (a data: URL by its type and length, a long one cut)
/// is masked as it stands.
fn download_url_shown_in_evidence(url: &str) -> String {
    if url.starts_with("data:") {
        return url.to_owned();
    }
    url_shown(url).into_owned()
}

/// The extension's download object with its URL masked and its file path taken out.
fn masked_download(download: &Value) -> Map<String, Value> {
    let mut shown = download.as_object().cloned().unwrap_or_default();
    shown.remove("filePath");
    if let Some(url) = shown.get("url").and_then(Value::as_str) {
        let masked = download_url_shown(url);
        shown.insert("url".into(), json!(masked));
    }
    shown
}

/// One line of list_downloads: `#7 complete report.csv text/csv 38 B
/// https://a.test/download/report.csv tab 12 click_ax`. The file name and the reason are the
/// page's words: printed bare only when they are one plain word, else as JSON strings.
fn download_line(download: &Map<String, Value>) -> String {
    let text = |field: &str| download.get(field).and_then(Value::as_str);
    let mut parts = vec![format!(
        "#{}",
        download.get("id").and_then(Value::as_u64).unwrap_or(0)
    )];
    parts.push(text("state").unwrap_or("unknown").to_owned());
    if let Some(reason) = text("reason") {
        parts.push(word_or_quoted(reason).into_owned());
    }
    if let Some(name) = text("filename") {
        parts.push(word_or_quoted(name).into_owned());
    }
    if let Some(mime) = text("mimeType") {
        parts.push(word_or_quoted(mime).into_owned());
    }
    if let Some(bytes) = download.get("bytes").and_then(Value::as_u64) {
        let total = download.get("totalBytes").and_then(Value::as_u64);
        match total {
            Some(total) if text("state") == Some("in_progress") && total > bytes => {
                parts.push(format!("{} of {}", bytes_text(bytes), bytes_text(total)));
            }
            _ => parts.push(bytes_text(bytes)),
        }
    }
    if let Some(url) = text("url") {
        parts.push(word_or_quoted(url).into_owned());
    }
    if let Some(tab) = download.get("tabId").and_then(Value::as_i64) {
        parts.push(format!("tab {tab}"));
    }
    if let Some(tool) = text("startedBy") {
        parts.push(word_or_quoted(tool).into_owned());
    }
    parts.join(" ")
}

/// list_downloads' result: `{count, olderDropped?, tree}`, one line per download under `tree`
/// (printed after the header line, src/mcp_reply.rs), or with `verbose` the masked objects.
pub fn list_result(result: &Value, verbose: bool) -> Value {
    let downloads: Vec<Map<String, Value>> = result
        .get("downloads")
        .and_then(Value::as_array)
        .map(|items| items.iter().map(masked_download).collect())
        .unwrap_or_default();
    let mut header = Map::new();
    header.insert("count".into(), json!(downloads.len()));
    if let Some(dropped) = result.get("olderDropped").and_then(Value::as_u64) {
        header.insert("olderDropped".into(), json!(dropped));
    }
    if verbose {
        header.insert("downloads".into(), json!(downloads));
        return Value::Object(header);
    }
    let lines: Vec<String> = downloads.iter().map(download_line).collect();
    header.insert("tree".into(), Value::String(lines.join("\n")));
    Value::Object(header)
}

/// Why a finished download's bytes were not embedded.
#[derive(Debug, PartialEq, Eq)]
enum NotEmbedded {
    Binary,
    TooLarge(u64),
    Unreadable(String),
}

/// Where get_download may read: in a launched browser, inside its session's downloads folder;
/// in the person's own browser, wherever the browser saved the agent's download.
#[derive(Debug, Clone, Default)]
pub struct DownloadFolder {
    pub private_folder: Option<PathBuf>,
}

/// Reads a text download: a regular file, opened without following a link at its last step
/// (and without blocking on a FIFO), at most [`MAX_TEXT_BYTES`], valid UTF-8.
fn read_text_file(path: &Path, folder: &DownloadFolder) -> Result<String, NotEmbedded> {
    if !path.is_absolute() {
        return Err(NotEmbedded::Unreadable(
            "the browser gave no absolute path".into(),
        ));
    }
    // The folder resolved once; the file is opened through that resolved folder, so that what
    // was checked is what is opened.
    let (Some(parent), Some(name)) = (
        path.parent().and_then(|parent| parent.canonicalize().ok()),
        path.file_name(),
    ) else {
        return Err(NotEmbedded::Unreadable("its folder is gone".into()));
    };
    if let Some(private) = &folder.private_folder {
        let private = private.canonicalize().unwrap_or_else(|_| private.clone());
        if !parent.starts_with(&private) {
            return Err(NotEmbedded::Unreadable(
                "it is not in the session's downloads folder".into(),
            ));
        }
    }
    let path = parent.join(name);
    use rustix::fs::{Mode, OFlags};
    let descriptor = rustix::fs::open(
        &path,
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK | OFlags::NOCTTY,
        Mode::empty(),
    )
    .map_err(|error| NotEmbedded::Unreadable(format!("it cannot be opened: {error}")))?;
    let file = std::fs::File::from(descriptor);
    let metadata = file
        .metadata()
        .map_err(|error| NotEmbedded::Unreadable(error.to_string()))?;
    if !metadata.is_file() {
        return Err(NotEmbedded::Unreadable("it is not a regular file".into()));
    }
    if metadata.len() > MAX_TEXT_BYTES {
        return Err(NotEmbedded::TooLarge(metadata.len()));
    }
    let mut bytes = Vec::with_capacity(metadata.len() as usize);
    file.take(MAX_TEXT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|error| NotEmbedded::Unreadable(error.to_string()))?;
    if bytes.len() as u64 > MAX_TEXT_BYTES {
        return Err(NotEmbedded::TooLarge(bytes.len() as u64));
    }
    String::from_utf8(bytes).map_err(|_| NotEmbedded::Binary)
}

/// A resource URI for a download: `allwright-download://<id>/<file name>`, the name
/// percent-encoded.
fn resource_uri(id: u64, filename: &str) -> String {
    let mut encoded = String::new();
    for byte in filename.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            encoded.push(byte as char);
        } else {
            encoded.push_str(&format!("%{byte:02X}"));
        }
    }
    format!("allwright-download://{id}/{encoded}")
}

/// get_download's MCP answer: a header line of the download's facts (`content` says whether
/// its bytes follow: "text", or "binary", "too_large", "unreadable", "not_finished" (still in
/// progress), "none" (interrupted or removed) with no
/// bytes), then for a text file an embedded resource with its text. `verbose` adds every field
/// the extension gave, the path still left out.
pub fn get_reply(result: &Value, folder: &DownloadFolder, verbose: bool) -> CallToolResult {
    let mut header = masked_download(result);
    if !verbose {
        header.remove("startedAt");
        header.remove("totalBytes");
    }
    let file_path = result
        .get("filePath")
        .and_then(Value::as_str)
        .map(PathBuf::from);
    let state = result.get("state").and_then(Value::as_str);
    let complete = state == Some("complete");
    let mime = result.get("mimeType").and_then(Value::as_str);
    let filename = result.get("filename").and_then(Value::as_str);
    let id = result.get("id").and_then(Value::as_u64).unwrap_or(0);
    let outcome = match (&file_path, complete) {
        (Some(path), true) if is_text_like(mime, filename) => read_text_file(path, folder),
        (Some(_), true) => Err(NotEmbedded::Binary),
        _ => Err(NotEmbedded::Unreadable(String::new())),
    };
    let mut blocks = Vec::new();
    match outcome {
        Ok(text) => {
            header.insert("content".into(), json!("text"));
            let uri = resource_uri(id, filename.unwrap_or("download"));
            let mut resource = ResourceContents::text(text, uri);
            if let Some(mime) = mime {
                resource = resource.with_mime_type(mime);
            }
            blocks.push(ContentBlock::resource(resource));
        }
        Err(why) => {
            let content = match &why {
                _ if state == Some("in_progress") => "not_finished",
                _ if !complete => "none",
                NotEmbedded::Binary => "binary",
                NotEmbedded::TooLarge(_) => "too_large",
                NotEmbedded::Unreadable(_) => "unreadable",
            };
            header.insert("content".into(), json!(content));
            match why {
                NotEmbedded::TooLarge(size) => {
                    header.insert("bytes".into(), json!(size));
                    header.insert("maxTextBytes".into(), json!(MAX_TEXT_BYTES));
                }
                NotEmbedded::Unreadable(reason) if complete && !reason.is_empty() => {
                    header.insert("why".into(), json!(reason));
                }
                _ => {}
            }
            // Only a launched browser's private folder is named: the person's own folders stay
            // theirs.
            if let (Some(path), Some(_), true) = (&file_path, &folder.private_folder, complete) {
                header.insert("savedAt".into(), json!(path.display().to_string()));
            }
        }
    }
    blocks.insert(0, ContentBlock::text(Value::Object(header).to_string()));
    CallToolResult::success(blocks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_known_by_its_type_or_else_by_its_name() {
        assert!(is_text_like(Some("text/csv; charset=utf-8"), None));
        assert!(is_text_like(Some("application/json"), Some("a.bin")));
        assert!(is_text_like(Some("application/vnd.api+json"), None));
        assert!(is_text_like(
            Some("application/octet-stream"),
            Some("data.CSV")
        ));
        assert!(is_text_like(None, Some("notes.txt")));
        assert!(!is_text_like(Some("application/pdf"), Some("x.txt")));
        assert!(!is_text_like(Some("image/png"), None));
        assert!(!is_text_like(None, Some("archive.zip")));
    }

    #[test]
    fn lines_mask_credentials_and_quote_the_pages_words() {
        let result = json!({"downloads": [{
            "id": 7, "state": "complete", "filename": "a b\nc.csv", "mimeType": "text/csv",
            "bytes": 38, "url": "https://user:pw@a.test/r.csv?token=abc&x=1", "tabId": 3,
            "startedBy": "click_ax", "filePath": "/home/person/Downloads/r.csv"
        }], "olderDropped": 2});
        let listed = list_result(&result, false);
        assert_eq!(listed["count"], 1);
        assert_eq!(listed["olderDropped"], 2);
        let tree = listed["tree"].as_str().expect("lines");
        assert_eq!(
            tree,
            "#7 complete \"a b\\nc.csv\" text/csv 38 B https://user:MASKED@a.test/r.csv?token=MASKED(3)&x=1 tab 3 click_ax"
        );
        let verbose = list_result(&result, true);
        assert!(verbose["downloads"][0].get("filePath").is_none());
        assert!(!verbose.to_string().contains("/home/person"));
    }

    #[test]
    fn evidence_urls_are_masked() {
        let mut action = json!({"observed": {"downloads": [{"id": 1, "url": "https://a.test/f.csv?access_token=abc"}]}});
        mask_evidence(&mut action);
        assert_eq!(
            action["observed"]["downloads"][0]["url"],
            "https://a.test/f.csv?access_token=MASKED(3)"
        );
        let mut navigated = json!({"url": "https://a.test/", "downloads": [{"id": 2, "url": "https://u:p@a.test/f"}]});
        mask_evidence(&mut navigated);
        assert_eq!(
            navigated["downloads"][0]["url"],
            "https://u:MASKED@a.test/f"
        );
    }

    #[test]
    fn a_data_url_is_named_by_its_type_and_length() {
        assert_eq!(
            download_url_shown("data:text/csv;base64,YSxi"),
            "data:text/csv;base64,… (25 characters)"
        );
    }

    #[test]
    fn a_text_file_is_embedded_and_a_link_or_a_binary_is_not() {
        let folder = tempfile::tempdir().expect("folder");
        let text = folder.path().join("report.csv");
        std::fs::write(&text, "month,visits\n").expect("write");
        let link = folder.path().join("link.csv");
        std::os::unix::fs::symlink(&text, &link).expect("link");
        let private = DownloadFolder {
            private_folder: Some(folder.path().to_owned()),
        };
        let answer = |path: &Path, mime: &str| {
            get_reply(
                &json!({"id": 1, "state": "complete", "filename": path.file_name().and_then(|name| name.to_str()),
                        "mimeType": mime, "bytes": 13, "url": "https://a.test/r.csv",
                        "filePath": path.display().to_string()}),
                &private,
                false,
            )
        };
        let embedded = answer(&text, "text/csv");
        let header: Value =
            serde_json::from_str(&embedded.content[0].as_text().expect("header").text)
                .expect("JSON");
        assert_eq!(header["content"], "text");
        assert!(header.get("filePath").is_none());
        let resource = embedded.content[1].as_resource().expect("a resource");
        assert_eq!(resource.get_text(), "month,visits\n");

        let through_link = answer(&link, "text/csv");
        let header: Value =
            serde_json::from_str(&through_link.content[0].as_text().expect("header").text)
                .expect("JSON");
        assert_eq!(header["content"], "unreadable", "{header}");
        assert_eq!(through_link.content.len(), 1);

        let binary = answer(&text, "application/zip");
        let header: Value =
            serde_json::from_str(&binary.content[0].as_text().expect("header").text).expect("JSON");
        assert_eq!(header["content"], "binary");
        assert_eq!(header["savedAt"], text.display().to_string());

        let outside = tempfile::tempdir().expect("another folder");
        let elsewhere = outside.path().join("x.csv");
        std::fs::write(&elsewhere, "a").expect("write");
        let header: Value = serde_json::from_str(
            &answer(&elsewhere, "text/csv").content[0]
                .as_text()
                .expect("header")
                .text,
        )
        .expect("JSON");
        assert_eq!(header["content"], "unreadable", "{header}");
    }

    #[test]
    fn the_persons_folder_is_never_named() {
        let reply = get_reply(
            &json!({"id": 2, "state": "complete", "filename": "x.zip", "mimeType": "application/zip",
                    "filePath": "/home/person/Downloads/x.zip", "url": "https://a.test/x.zip"}),
            &DownloadFolder::default(),
            true,
        );
        let text = &reply.content[0].as_text().expect("header").text;
        assert!(!text.contains("/home/person"), "{text}");
    }

    #[test]
    fn a_file_over_the_cap_says_its_size() {
        let folder = tempfile::tempdir().expect("folder");
        let big = folder.path().join("big.txt");
        std::fs::write(&big, vec![b'a'; MAX_TEXT_BYTES as usize + 1]).expect("write");
        let reply = get_reply(
            &json!({"id": 3, "state": "complete", "filename": "big.txt", "mimeType": "text/plain",
                    "filePath": big.display().to_string(), "url": "https://a.test/big.txt"}),
            &DownloadFolder::default(),
            false,
        );
        let header: Value =
            serde_json::from_str(&reply.content[0].as_text().expect("header").text).expect("JSON");
        assert_eq!(header["content"], "too_large");
        assert_eq!(header["bytes"], MAX_TEXT_BYTES + 1);
        assert!(header.get("savedAt").is_none());
    }
}
