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
