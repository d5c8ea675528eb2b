//! Chromium's extension service worker can be stopped at any moment. After a stop, the next
//! browser event wakes it, it reconnects to a new native host, `allwright mcp` reconnects to that
//! host, and tool calls work again: no lost session, no stale state.

use std::time::Duration;

use serde_json::{json, Value};

use crate::devtools::DevTools;
use crate::support::{fixtures, repository_root, Browser, Session};

pub async fn service_worker_restart(session: &Session) {
    assert_eq!(session.browser, Browser::Chromium);
    let server = fixtures();
    session
        .open(&server.url("/pages/csp/script-self.html"))
        .await;
    session.ok("get_accessibility_tree", json!({})).await;
    stop_service_worker(session).await;
    // Any event wakes the worker: a load in the tab fires webNavigation and webRequest events.
    session
        .navigate_from_outside(&server.url("/pages/surface.html"))
        .await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    let mut last_error = None;
    loop {
        match session.call("get_accessibility_tree", json!({})).await {
            Ok(result) => {
                let tree = result["tree"].as_str().unwrap_or("");
                assert!(tree.contains("textbox \"Email address\""), "the page after the restart: {tree}");
                break;
            }
            Err(error) if tokio::time::Instant::now() < deadline => {
                last_error = Some(error);
                tokio::time::sleep(Duration::from_millis(300)).await;
            }
            Err(error) => panic!("no tool call worked after the service worker restart: {:?} (before: {last_error:?})", error.0),
        }
    }
    // And the CSP record of the strict page survived in storage.session: reading it again works
    // without a violation (the JS core is chosen again).
    session
        .open(&server.url("/pages/csp/script-self.html"))
        .await;
    session.ok("get_accessibility_tree", json!({})).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        session
            .evaluate("document.getElementById('violations').textContent")
            .await,
        "0"
    );
}

/// Stops Chromium's extension service worker through the DevTools protocol, as the browser does
/// when it is idle, and waits until it is really gone. The next extension event wakes it.
pub async fn stop_service_worker(session: &Session) {
    let identity: Value = serde_json::from_str(
        &std::fs::read_to_string(repository_root().join("manifest/identity.json"))
            .expect("identity"),
    )
    .expect("JSON");
    let worker_prefix = format!(
        "chrome-extension://{}/",
        identity["chromeExtensionId"].as_str().expect("id")
    );
    let address = session
        .chromium_debugger_address()
        .expect("DevTools address");
    let mut devtools = DevTools::attach_to_browser(&address).await;
    let targets = devtools
        .command("Target.getTargets", json!({}))
        .await
        .expect("targets");
    let worker = targets["targetInfos"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|target| {
            target["type"] == "service_worker"
                && target["url"]
                    .as_str()
                    .is_some_and(|url| url.starts_with(&worker_prefix))
        })
        .expect("the extension's service worker is running")
        .clone();
    devtools
        .command(
            "Target.closeTarget",
            json!({"targetId": worker["targetId"]}),
        )
        .await
        .expect("stop the service worker");
    // The worker is really gone before anything wakes it.
    let stopped_by = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        let targets = devtools
            .command("Target.getTargets", json!({}))
            .await
            .expect("targets");
        let still_there = targets["targetInfos"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|target| target["targetId"] == worker["targetId"]);
        if !still_there {
            break;
        }
        assert!(
            tokio::time::Instant::now() < stopped_by,
            "the service worker did not stop"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Wakes a stopped service worker with a browser event that leaves the agent's tab alone: a
/// background tab opened from outside (BiDi) fires `tabs.onCreated`, and the worker's start
/// connects its native host again (background/main.js). Without it the next call waits for the
/// keep-alive alarm (every 3 s in the build for tests, 30 s in a product build); only the check
/// of that alarm (safety.rs) waits for it. Returns the tab's context, for [`close_from_outside`]
/// once the call that needed the worker answered.
pub async fn wake_service_worker(session: &Session) -> String {
    let (bidi, _) = session.bidi();
    let opened = bidi
        .command(
            "browsingContext.create",
            json!({"type": "tab", "background": true}),
        )
        .await
        .expect("a background tab");
    opened["context"]
        .as_str()
        .expect("the background tab's context")
        .to_owned()
}

/// Closes a tab opened from outside ([`wake_service_worker`]).
pub async fn close_from_outside(session: &Session, context: &str) {
    let (bidi, _) = session.bidi();
    bidi.command("browsingContext.close", json!({"context": context}))
        .await
        .expect("close the background tab");
}
