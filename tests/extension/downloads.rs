//! Downloads and PDFs (docs/agent-tools.md, "Downloads" and "save_pdf"): every way a page
//! downloads a file (fixtures/pages/downloads/), each named in its action's evidence, listed by
//! list_downloads and read back by get_download with the bytes the fixture server sent; a
//! download a person starts by hand in another tab is never the agent's; save_pdf prints
//! fixtures/pages/downloads/print.html to a PDF of three pages. In the extension alone
//! ([`every_way_a_page_downloads`], [`a_pdf_of_the_page`]) and in a browser allwright launched
//! ([`launched_downloads_land_in_the_session_folder`], [`launched_pdf_of_any_tab`]).

use std::time::{Duration, Instant};

use rmcp::model::{CallToolResult, ResourceContents};
use serde_json::{json, Value};

use crate::actions::{ref_of, state_when};
use crate::bridge::LaunchedMcp;
use crate::support::fixture_server::{BIG_DOWNLOAD_BYTES, REPORT_CSV};
use crate::support::{fixtures, record_time, Browser, Session, PATIENCE};

/// What the blob button's script builds (fixtures/pages/downloads/index.html).
const EXPORT_CSV: &str = "name,total\nAda,3\nGrace,5\n";
/// fixtures/pages/downloads/notes.txt.
const NOTES: &str = "Meeting notes\nShip the downloads tools.\n";
/// The data: link's text.
const DATA_TEXT: &str = "hello data\n";

/// The ways of the fixture: the link or button, the file it saves, and its bytes.
const WAYS: &[(&str, &str, &str, &str)] = &[
    ("link", "Attachment report", "report.csv", REPORT_CSV),
    ("link", "Notes (download attribute)", "notes.txt", NOTES),
    ("button", "Export CSV (blob)", "export.csv", EXPORT_CSV),
    ("link", "Data URL", "data.txt", DATA_TEXT),
];

/// Records one operation's time (the timings file has tenths of a second; the milliseconds are
/// printed too, for docs/performance.md).
fn timed(what: &str, started: Instant) {
    let elapsed = started.elapsed();
    eprintln!("[ms] {:.1}\t{what}", elapsed.as_secs_f64() * 1000.0);
    record_time(what, elapsed);
}

async fn open_downloads_page(session: &Session) {
    session
        .open(&fixtures().url("/pages/downloads/index.html"))
        .await;
    state_when(session, "the fixture published no state", |value| {
        !value.is_null()
    })
    .await;
}

/// The id of the one download an action's or navigation's result names.
fn download_id(browser: &str, what: &str, result: &Value) -> u64 {
    let downloads = result["observed"]["downloads"]
        .as_array()
        .or_else(|| result["downloads"].as_array())
        .unwrap_or_else(|| panic!("{browser}: {what} names no download: {result}"));
    downloads
        .iter()
        .find_map(|download| download["id"].as_u64())
        .unwrap_or_else(|| panic!("{browser}: {what}'s download has no id: {result}"))
}

/// get_download's header (the reply's text block) and the embedded text, if any.
fn download_reply(result: &CallToolResult) -> (Value, Option<String>) {
    let header = result
        .content
        .iter()
        .find_map(|block| block.as_text())
        .map(|text| serde_json::from_str::<Value>(&text.text).expect("a JSON header"))
        .expect("a text block");
    let text = result.content.iter().find_map(|block| {
        block
            .as_resource()
            .and_then(|resource| match &resource.resource {
                ResourceContents::TextResourceContents { text, .. } => Some(text.clone()),
                _ => None,
            })
    });
    (header, text)
}

/// The PDF of a save_pdf reply: its header and bytes.
pub fn pdf_reply(browser: &str, result: &CallToolResult) -> (Value, Vec<u8>) {
    assert_ne!(
        result.is_error,
        Some(true),
        "{browser}: save_pdf failed: {result:?}"
    );
    let header = result
        .content
        .iter()
        .find_map(|block| block.as_text())
        .map(|text| serde_json::from_str::<Value>(&text.text).expect("a JSON header"))
        .expect("a text block");
    let blob = result
        .content
        .iter()
        .find_map(|block| {
            block
                .as_resource()
                .and_then(|resource| match &resource.resource {
                    ResourceContents::BlobResourceContents {
                        blob, mime_type, ..
                    } => {
                        assert_eq!(mime_type.as_deref(), Some("application/pdf"), "{browser}");
                        Some(blob.clone())
                    }
                    _ => None,
                })
        })
        .unwrap_or_else(|| panic!("{browser}: save_pdf returned no PDF resource: {header}"));
    let bytes = allwright_surface_web::base64::decode(&blob).expect("base64");
    (header, bytes)
}

/// Checks a save_pdf reply of print.html: a PDF of three pages, its size as said.
pub fn assert_three_page_pdf(browser: &str, header: &Value, bytes: &[u8]) {
    assert!(bytes.starts_with(b"%PDF-"), "{browser}: not a PDF");
    assert!(
        bytes.windows(5).any(|window| window == b"%%EOF"),
        "{browser}: the PDF has no end"
    );
    assert_eq!(header["pages"], 3, "{browser}: {header}");
    assert_eq!(header["bytes"], bytes.len(), "{browser}: {header}");
}

/// Starts the binary file's download in a tab of the person's, outside any agent action: a
/// background tab opened, navigated and clicked from outside (WebDriver BiDi), as a person would.
async fn download_by_hand_in_another_tab(session: &Session, origin: &str) {
    let browser = session.browser.name();
    let (bidi, main) = session.bidi();
    let before =
        fixtures().request_count_from(session.browser.user_agent_mark(), "/download/data.bin");
    let created = bidi
        .command(
            "browsingContext.create",
            json!({"type": "tab", "background": true}),
        )
        .await
        .expect("a tab of the person's");
    let tab = created["context"].as_str().expect("context").to_owned();
    bidi.navigate(
        &tab,
        &format!("{origin}/pages/downloads/index.html"),
        PATIENCE,
    )
    .await
    .expect("open the page by hand");
    let clicked = bidi
        .command(
            "script.evaluate",
            json!({"expression": "document.getElementById('binary').click()", "target": {"context": tab},
                   "awaitPromise": false, "userActivation": true}),
        )
        .await
        .expect("click by hand");
    assert_ne!(clicked["type"], "exception", "{browser}: {clicked}");
    let deadline = Instant::now() + PATIENCE;
    while fixtures().request_count_from(session.browser.user_agent_mark(), "/download/data.bin")
        == before
    {
        assert!(
            Instant::now() < deadline,
            "{browser}: the hand-started download never reached the server"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // The browser records it a moment after the request.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let _ = bidi
        .command("browsingContext.close", json!({"context": tab}))
        .await;
    let _ = bidi
        .command("browsingContext.activate", json!({"context": main}))
        .await;
}

pub async fn every_way_a_page_downloads(session: &Session) {
    let browser = session.browser.name();
    let mut ids = Vec::new();
    // Each way, from a freshly opened page: Chrome allows one download per page without a
    // person's gesture, and a synthetic click is none.
    for (role, name, filename, bytes) in WAYS {
        open_downloads_page(session).await;
        let target = ref_of(session, role, name).await;
        let clicked = session.ok("click_ax", json!({"ref_id": target})).await;
        assert_eq!(
            clicked["progress"], "inconclusive",
            "{browser}: {name}: {clicked}"
        );
        assert_eq!(
            clicked["retryAllowed"], false,
            "{browser}: {name}: {clicked}"
        );
        let id = download_id(browser, name, &clicked);
        let started = Instant::now();
        let reply = session.call_result("get_download", json!({"id": id})).await;
        timed(&format!("{browser}: one get_download"), started);
        let (header, text) = download_reply(&reply);
        assert_eq!(header["state"], "complete", "{browser}: {name}: {header}");
        assert_eq!(header["filename"], *filename, "{browser}: {name}: {header}");
        assert_eq!(header["content"], "text", "{browser}: {name}: {header}");
        assert_eq!(
            header["startedBy"], "click_ax",
            "{browser}: {name}: {header}"
        );
        assert_eq!(
            text.as_deref(),
            Some(*bytes),
            "{browser}: {name}: the bytes read back are the ones the page or server gave"
        );
        ids.push(id);
    }

    // A navigation to a URL the server answers as an attachment: the tab stays, the download
    // is named, and it is the agent's.
    open_downloads_page(session).await;
    let page_url = fixtures().url("/pages/downloads/index.html");
    let navigated = session
        .ok(
            "navigate",
            json!({"url": fixtures().url("/download/report.csv")}),
        )
        .await;
    assert_eq!(
        navigated["url"], page_url,
        "{browser}: the tab stays: {navigated}"
    );
    let id = download_id(browser, "navigate", &navigated);
    let (header, text) =
        download_reply(&session.call_result("get_download", json!({"id": id})).await);
    assert_eq!(header["startedBy"], "navigate", "{browser}: {header}");
    assert_eq!(text.as_deref(), Some(REPORT_CSV), "{browser}");
    ids.push(id);

    // A person's own download in another tab is never the agent's: neither while the agent
    // does nothing, nor while its navigation of its own tab waits for a slow page (the watch
    // that records the agent's downloads is open then), when it comes from another site.
    let server = fixtures();
    download_by_hand_in_another_tab(session, &server.origin).await;
    let (slow, ()) = tokio::join!(
        session.ok("navigate", json!({"url": server.url("/slow/4000")})),
        async {
            tokio::time::sleep(Duration::from_millis(300)).await;
            download_by_hand_in_another_tab(session, &server.other_origin).await;
        }
    );
    assert!(
        slow["url"]
            .as_str()
            .is_some_and(|url| url.ends_with("/slow/4000")),
        "{browser}: {slow}"
    );
    // The navigation's watch saw it (its evidence names any download while it runs: a retry is
    // never safe then), yet it is not recorded as the agent's.
    assert!(
        slow["downloads"]
            .as_array()
            .is_some_and(|downloads| downloads.iter().any(|download| download["url"]
                .as_str()
                .is_some_and(|url| url.starts_with(&server.other_origin)))),
        "{browser}: the person's download came after the navigation: {slow}"
    );
    let listed = session
        .ok("list_downloads", json!({"verbose": false}))
        .await;
    assert_eq!(listed["count"], ids.len(), "{browser}: {listed}");
    let lines = listed["tree"].as_str().expect("lines");
    assert!(
        !lines.contains("data.bin"),
        "{browser}: the person's download is listed:\n{lines}"
    );
    for (_, _, filename, _) in WAYS {
        assert!(
            lines.contains(filename),
            "{browser}: {filename} not in\n{lines}"
        );
    }
    let home = session.folder().display().to_string();
    assert!(
        !lines.contains(&home),
        "{browser}: a path is shown:\n{lines}"
    );
    let largest = *ids.iter().max().expect("ids");
    for other in (1..=largest + 3).filter(|id| !ids.contains(id)) {
        let refused = session.call("get_download", json!({"id": other})).await;
        assert_eq!(
            refused.expect_err("not the agent's").code(),
            "download_not_found",
            "{browser}: download {other}"
        );
    }

    // A binary file and one over the cap come without bytes, and without the person's path.
    for (name, content) in [("Binary file", "binary"), ("Large text", "too_large")] {
        open_downloads_page(session).await;
        let target = ref_of(session, "link", name).await;
        let clicked = session.ok("click_ax", json!({"ref_id": target})).await;
        let id = download_id(browser, name, &clicked);
        let reply = session.call_result("get_download", json!({"id": id})).await;
        let (header, text) = download_reply(&reply);
        assert_eq!(header["content"], content, "{browser}: {name}: {header}");
        assert_eq!(text, None, "{browser}: {name}");
        assert!(header.get("savedAt").is_none(), "{browser}: {header}");
        assert!(!header.to_string().contains(&home), "{browser}: {header}");
        if content == "too_large" {
            assert_eq!(header["bytes"], BIG_DOWNLOAD_BYTES, "{browser}: {header}");
        }
    }

    // A download the network cut short is interrupted, with the browser's reason, and no bytes.
    open_downloads_page(session).await;
    let target = ref_of(session, "link", "Broken file").await;
    let clicked = session.ok("click_ax", json!({"ref_id": target})).await;
    let id = download_id(browser, "Broken file", &clicked);
    let (header, text) =
        download_reply(&session.call_result("get_download", json!({"id": id})).await);
    assert_eq!(header["state"], "interrupted", "{browser}: {header}");
    assert!(header["reason"].is_string(), "{browser}: {header}");
    assert_eq!(header["content"], "none", "{browser}: {header}");
    assert_eq!(text, None, "{browser}");
    let listed = session
        .ok("list_downloads", json!({"verbose": false}))
        .await;
    let line = listed["tree"]
        .as_str()
        .and_then(|lines| {
            lines
                .lines()
                .find(|line| line.starts_with(&format!("#{id} ")))
        })
        .unwrap_or_else(|| panic!("{browser}: no line for {id}: {listed}"))
        .to_owned();
    assert!(
        line.starts_with(&format!("#{id} interrupted ")),
        "{browser}: {line}"
    );
}

pub async fn a_pdf_of_the_page(session: &Session) {
    let browser = session.browser.name();
    session
        .open(&fixtures().url("/pages/downloads/print.html"))
        .await;
    let started = Instant::now();
    let result = session.call_result("save_pdf", json!({})).await;
    if session.browser == Browser::Firefox {
        let error = crate::support::outcome_of(result).expect_err("Firefox gives no PDF");
        assert_eq!(error.code(), "not_supported_here", "{browser}: {}", error.0);
        return;
    }
    timed(&format!("{browser}: one save_pdf"), started);
    let (header, bytes) = pdf_reply(browser, &result);
    assert_three_page_pdf(browser, &header, &bytes);
    assert_eq!(header["method"], "printToPDF", "{browser}: {header}");
}

pub async fn launched_downloads_land_in_the_session_folder(session: &LaunchedMcp) {
    let browser = session.browser.name();
    let page = fixtures().url("/pages/downloads/index.html");
    for (role, name, _, bytes) in WAYS {
        // A fresh page for each: with synthetic input Chrome allows one download per page.
        session.ok("navigate", json!({"url": page})).await;
        let target = session.ref_of(role, name).await;
        let clicked = session.ok("click_ax", json!({"ref_id": target})).await;
        let id = download_id(browser, name, &clicked);
        let started = Instant::now();
        let reply = session
            .call_result("get_download", json!({"id": id}))
            .await
            .expect("get_download");
        timed(&format!("{browser} (launched): one get_download"), started);
        let (header, text) = download_reply(&reply);
        assert_eq!(header["content"], "text", "{browser}: {name}: {header}");
        assert_eq!(text.as_deref(), Some(*bytes), "{browser}: {name}");
    }
    let navigated = session
        .ok(
            "navigate",
            json!({"url": fixtures().url("/download/report.csv")}),
        )
        .await;
    let id = download_id(browser, "navigate", &navigated);
    let (header, text) = download_reply(
        &session
            .call_result("get_download", json!({"id": id}))
            .await
            .expect("get_download"),
    );
    assert_eq!(text.as_deref(), Some(REPORT_CSV), "{browser}: {header}");

    // A binary file is named by its place in the session's private folder, where it holds the
    // server's bytes.
    session.ok("navigate", json!({"url": page})).await;
    let target = session.ref_of("link", "Binary file").await;
    let clicked = session.ok("click_ax", json!({"ref_id": target})).await;
    let id = download_id(browser, "Binary file", &clicked);
    let (header, _) = download_reply(
        &session
            .call_result("get_download", json!({"id": id}))
            .await
            .expect("get_download"),
    );
    assert_eq!(header["content"], "binary", "{browser}: {header}");
    let saved_at = header["savedAt"].as_str().expect("savedAt").to_owned();
    assert!(
        saved_at.contains("/allwright-session-") && saved_at.ends_with("/downloads/data.bin"),
        "{browser}: {saved_at}"
    );
    let saved = std::fs::read(&saved_at).expect("the saved file");
    assert_eq!(saved, (0..=255u8).collect::<Vec<u8>>(), "{browser}");

    let listed = session.ok("list_downloads", json!({})).await;
    assert_eq!(listed["count"], WAYS.len() + 2, "{browser}: {listed}");
}

pub async fn launched_pdf_of_any_tab(session: &LaunchedMcp) {
    let browser = session.browser.name();
    let printed = session
        .ok(
            "navigate",
            json!({"url": fixtures().url("/pages/downloads/print.html")}),
        )
        .await;
    let started = Instant::now();
    let result = session
        .call_result("save_pdf", json!({}))
        .await
        .expect("save_pdf");
    timed(&format!("{browser} (launched): one save_pdf"), started);
    let (header, bytes) = pdf_reply(browser, &result);
    assert_three_page_pdf(browser, &header, &bytes);
    assert_eq!(header["method"], "bidi", "{browser}: {header}");

    // A tab that is not shown prints too.
    let tabs = session.ok("list_tabs", json!({})).await;
    let printed_tab = tabs["tabs"]
        .as_array()
        .and_then(|tabs| tabs.iter().find(|tab| tab["active"] == true))
        .map(|tab| tab["tabId"].clone())
        .unwrap_or_else(|| panic!("{browser}: no active tab in {tabs} ({printed})"));
    let opened = session.ok("new_tab", json!({"url": "about:blank"})).await;
    let result = session
        .call_result("save_pdf", json!({"tabId": printed_tab}))
        .await
        .expect("save_pdf of a hidden tab");
    let (header, bytes) = pdf_reply(browser, &result);
    assert_three_page_pdf(browser, &header, &bytes);
    session
        .ok("close_tab", json!({"tabId": opened["tabId"]}))
        .await;
}
