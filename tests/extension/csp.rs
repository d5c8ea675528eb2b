//! Strict-CSP pages: the tools work on them (where Chromium may not compile WASM in the content
//! script, the core runs in the extension's service worker: `engine` "wasm-worker"; Firefox
//! reads every page with the core in the content script), and the extension never reveals
//! itself to the page: no
//! `securitypolicyviolation` event, no ReportingObserver report and no CSP report, for enforced
//! and report-only policies, in the top document and in its about:blank and srcdoc frames.

use std::time::Duration;

use serde_json::json;

use crate::support::{find, fixtures, Session};
use crate::surface::snapshot;

pub async fn strict_pages_work_and_stay_silent(session: &Session) {
    let browser = session.browser.name();
    let server = fixtures();
    for (page, has_listener, frames) in [
        ("script-self", true, 3),
        ("default-none", false, 2),
        ("report-only", true, 3),
        ("meta", true, 3),
    ] {
        session
            .open(&server.url(&format!("/pages/csp/{page}.html")))
            .await;
        let tree = session.ok("get_accessibility_tree", json!({})).await;
        // Report-only policies count like enforced ones: trying WASM would report.
        let engine = match session.browser {
            crate::support::Browser::Chromium => "wasm-worker",
            crate::support::Browser::Firefox => "wasm-page",
        };
        assert_eq!(tree["engine"], engine, "{browser} {page}: {tree}");
        let text = tree["tree"].as_str().unwrap_or("");
        assert!(
            text.contains("button \"Pay now\" [ref_"),
            "{browser} {page}: {text}"
        );
        assert!(
            text.contains("textbox \"Card number\""),
            "{browser} {page}: {text}"
        );
        let parsed = snapshot(session, false).await;
        let documents = parsed["documents"].as_array().expect("documents");
        assert_eq!(
            documents.len(),
            frames,
            "{browser} {page}: top + srcdoc (+ about:blank) frames: {parsed}"
        );
        for document in &documents[1..] {
            let has_button = ["Button in srcdoc", "Button in about:blank"]
                .iter()
                .any(|name| find(&document["root"], "button", name).is_some());
            assert!(
                has_button,
                "{browser} {page}: a frame document was read: {document}"
            );
        }
        let ai = snapshot(session, true).await;
        assert!(find(&ai["documents"][0]["root"], "button", "Pay now").is_some());
        // Reports travel asynchronously: give them time to arrive before concluding none came.
        tokio::time::sleep(Duration::from_millis(700)).await;
        if has_listener {
            let seen = session
                .evaluate("document.getElementById('violations').textContent")
                .await;
            let last = session
                .evaluate("document.getElementById('violations').getAttribute('data-last')")
                .await;
            assert_eq!(
                seen, "0",
                "{browser} {page}: the page saw a CSP violation: {last}"
            );
        }
        // Firefox fetches /favicon.ico for every page, and default-src 'none' forbids that image:
        // the browser's own request, not the extension's, so it is left out.
        let reports: Vec<_> = server
            .reports()
            .into_iter()
            .filter(|report| report.query.contains(&format!("page={page}")))
            .filter(|report| !report.body.contains("/favicon.ico"))
            .collect();
        let bodies: Vec<&str> = reports.iter().map(|report| report.body.as_str()).collect();
        assert!(
            bodies.is_empty(),
            "{browser} {page}: CSP reports were sent: {bodies:?}"
        );
    }
}

/// Issue 27: storage.session (10 MB in Chromium, shared by the CSP records, the ref records, the
/// call log and thread coverage) may be full, filled by another part of the extension or by a
/// page with many frames. Reads and actions keep working then, on a strict-CSP page too, and the
/// page still sees nothing: a frame whose CSP record could not be kept is "unknown", which gives
/// the JS core in the service worker, never WASM in the page. Chromium only: Firefox keeps no CSP
/// records (it compiles WebAssembly in content scripts whatever the page's policy).
pub async fn reads_and_actions_work_when_storage_session_is_full(session: &Session) {
    let browser = session.browser.name();
    let server = fixtures();
    let panel = crate::panel::open_panel(session).await;
    let filled = session
        .evaluate_json_in(
            &panel,
            r#"(async () => {
                const area = chrome.storage.session;
                let index = 0;
                for (const size of [1 << 20, 1 << 16, 1 << 12, 1 << 8, 16]) {
                  const chunk = "x".repeat(size);
                  for (let tries = 0; tries < 64; tries += 1) {
                    try { await area.set({ [`filler/${index}`]: chunk }); index += 1; } catch { break; }
                  }
                }
                let refused = null;
                try { await area.set({ "filler/last": "x".repeat(1024) }); } catch (error) { refused = String(error.message); }
                return { index, bytes: await area.getBytesInUse(null), quota: area.QUOTA_BYTES, refused };
              })()"#,
        )
        .await
        .expect("fill storage.session");
    eprintln!("{browser}: storage.session filled: {filled}");
    assert!(
        filled["refused"]
            .as_str()
            .is_some_and(|message| !message.is_empty()),
        "{browser}: storage.session refuses more: {filled}"
    );

    // A strict page, loaded while storage.session is full: read, act, read again.
    session
        .open(&server.url("/pages/csp/script-self.html"))
        .await;
    let tree = session.ok("get_accessibility_tree", json!({})).await;
    assert_eq!(tree["engine"], "wasm-worker", "{browser}: {tree}");
    let text = tree["tree"].as_str().unwrap_or_default();
    assert!(
        text.contains("button \"Pay now\" [ref_"),
        "{browser}: {text}"
    );
    let pay = crate::support::reference_of(text, "button \"Pay now\"");
    let clicked = session.ok("click_ax", json!({ "ref_id": pay })).await;
    eprintln!("{browser}: click_ax with storage.session full: {clicked}");
    let card = crate::support::reference_of(text, "textbox \"Card number\"");
    session
        .ok(
            "set_field",
            json!({ "ref_id": card, "text": "4000 0000 0000 0002" }),
        )
        .await;
    let again = session.ok("get_accessibility_tree", json!({})).await;
    assert!(
        again["tree"]
            .as_str()
            .unwrap_or_default()
            .contains("4000 0000 0000 0002"),
        "{browser}: {again}"
    );
    // An ordinary page in a new tab, and the tab tools.
    let opened = session
        .ok(
            "new_tab",
            json!({ "url": server.url("/pages/surface.html") }),
        )
        .await;
    let surface = session.ok("get_accessibility_tree", json!({})).await;
    assert!(
        surface["tree"]
            .as_str()
            .unwrap_or_default()
            .contains("textbox \"Email address\""),
        "{browser}: {surface}"
    );
    session
        .ok("close_tab", json!({ "tabId": opened["tabId"] }))
        .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        session
            .evaluate("document.getElementById('violations').textContent")
            .await,
        "0",
        "{browser}: the strict page saw the extension"
    );

    let emptied = session
        .evaluate_json_in(
            &panel,
            r#"(async () => {
                const all = await chrome.storage.session.get(null);
                await chrome.storage.session.remove(Object.keys(all).filter((key) => key.startsWith("filler/")));
                return chrome.storage.session.getBytesInUse(null);
              })()"#,
        )
        .await
        .expect("empty storage.session");
    eprintln!("{browser}: storage.session after the test: {emptied} bytes");
    let (bidi, _) = session.bidi();
    bidi.command("browsingContext.close", json!({ "context": panel }))
        .await
        .expect("close the panel");
}

/// What the CSP records of the open tabs take in storage.session, from the side panel's page.
const CSP_RECORD_USAGE: &str = r#"(async () => {
    const all = await chrome.storage.session.get(null);
    const keys = Object.keys(all).filter((key) => key.startsWith("csp/"));
    return {
      records: keys.length,
      bytes: keys.length === 0 ? 0 : await chrome.storage.session.getBytesInUse(keys),
      total: await chrome.storage.session.getBytesInUse(null),
    };
  })()"#;

/// Issue 27: a page with 70 frames whose policies are long once filled 10.4 of storage.session's
/// 10.5 MB while no agent was working. Now a tab no agent uses gets no records at all, and the
/// agent's tab stays within the bounds (csp.js, CSP_RECORD_BOUNDS: 256 records, 1 MiB), its
/// tree still read.
pub async fn csp_records_stay_within_bounds_on_a_page_with_many_frames(session: &Session) {
    let browser = session.browser.name();
    let server = fixtures();
    let page = server.url("/generated/many-frames?count=70&bytes=40000");
    let panel = crate::panel::open_panel(session).await;
    let (bidi, _) = session.bidi();
    let before = session
        .evaluate_json_in(&panel, CSP_RECORD_USAGE)
        .await
        .expect("usage");
    let created = bidi
        .command(
            "browsingContext.create",
            json!({"type": "tab", "background": true}),
        )
        .await
        .expect("a tab no agent uses");
    let idle_tab = created["context"].as_str().expect("context").to_owned();
    bidi.navigate(&idle_tab, &page, Duration::from_secs(60))
        .await
        .expect("load the page with 70 frames");
    let idle = session
        .evaluate_json_in(&panel, CSP_RECORD_USAGE)
        .await
        .expect("usage");
    eprintln!("{browser}: 70 frames with 40 kB policies in a tab no agent uses: {before} before, {idle} after");
    assert_eq!(
        idle["records"], before["records"],
        "{browser}: a tab no agent uses gets no CSP records"
    );
    bidi.command("browsingContext.close", json!({ "context": idle_tab }))
        .await
        .expect("close the tab");

    session.open(&page).await;
    let used = session
        .evaluate_json_in(&panel, CSP_RECORD_USAGE)
        .await
        .expect("usage");
    eprintln!("{browser}: the same page in the agent's tab: {used}");
    let records = used["records"].as_u64().unwrap_or(u64::MAX);
    let bytes = used["bytes"].as_u64().unwrap_or(u64::MAX);
    assert!(records > 0 && records <= 256, "{browser}: {used}");
    assert!(bytes <= 1024 * 1024, "{browser}: {used}");
    let tree = session.ok("get_accessibility_tree", json!({})).await;
    assert!(
        tree["tree"]
            .as_str()
            .unwrap_or_default()
            .contains("heading \"Many frames\""),
        "{browser}: {tree}"
    );
    session.open("about:blank").await;
    bidi.command("browsingContext.close", json!({ "context": panel }))
        .await
        .expect("close the panel");
}
