//! An action is never done twice (issue 27, item 5), through `allwright mcp --launch`:
//!
//! - With `--input synthetic`, a click whose effect shows 2 s later, however the page arranges
//!   it (a timer, a request then a render, animation frames, a promise chain, a handler
//!   delegated to the document, the window in the capture phase, an open shadow root or the
//!   app's container, an inline `onclick` attribute, an `onclick` property, a handler of the
//!   press), runs its handler exactly once: Chrome's trusted fallback asks the debugger which
//!   listeners are on the click's path and does not click again when one is. A target that no
//!   listener hears still gets the fallback in Chrome.
//! - With real input (`--input trusted`, the default), input that fails after
//!   `input.performActions` was sent (a handler that holds the page's thread 35 s, past the
//!   client's 30 s wait) answers `outcome_unknown` with `retryAllowed: false`, and the handler
//!   ran once, for a click and for a key alike.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::bridge::LaunchedMcp;
use crate::support::{fixtures, strings, Browser};

/// The page's status line once the tree shows `wanted`, read again and again for up to `within`.
async fn wait_for_text(session: &LaunchedMcp, wanted: &str, within: Duration) -> String {
    let deadline = Instant::now() + within;
    loop {
        let tree = session.tree_text().await;
        if tree.contains(wanted) {
            return tree;
        }
        assert!(
            Instant::now() < deadline,
            "{}: no {wanted:?} in the tree:\n{tree}",
            session.browser.name()
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// Every way fixtures/pages/actions/late-effects.html arranges a late effect.
const LATE_EFFECT_CASES: [&str; 11] = [
    "timer",
    "fetch",
    "animation-frames",
    "promise-chain",
    "document",
    "window-capture",
    "shadow",
    "root-container",
    "inline-attribute",
    "property",
    "press",
];

/// Each late effect, clicked once: after the effect showed, the handler ran once. In Chromium
/// no trusted click followed, the result names the listener that heard the click, and it
/// forbids a retry (a second click could act twice) while saying that nothing showed yet.
pub async fn a_late_effect_gets_one_activation(session: &LaunchedMcp) {
    let name = session.browser.name();
    for case in LATE_EFFECT_CASES {
        let url = fixtures().url(&format!("/pages/actions/late-effects.html?case={case}"));
        session.ok("navigate", json!({"url": url})).await;
        let button = session.ref_of("button", "Show result").await;
        let clicked = session.ok("click_ax", json!({"ref_id": button})).await;
        assert_eq!(clicked["method"], "synthetic", "{name} {case}: {clicked}");
        assert_eq!(clicked["input"], "synthetic", "{name} {case}: {clicked}");
        // The effect comes 2 s after the handler ran; a second run would show "Ran 2 times"
        // at the same moment.
        let tree = wait_for_text(session, "Ran ", Duration::from_secs(10)).await;
        assert!(
            tree.contains("Ran 1 time") && !tree.contains("Ran 2 times"),
            "{name} {case}: the handler ran once:\n{tree}"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
        let tree = session.tree_text().await;
        assert!(tree.contains("Ran 1 time"), "{name} {case}:\n{tree}");
        if session.browser == Browser::Chromium && case != "fetch" {
            // The request of "fetch" stops the fallback before the debugger is asked.
            let hints = strings(&clicked["hints"]);
            assert!(
                hints.iter().any(|hint| hint
                    .starts_with("no trusted fallback: the click reached the page's listeners")),
                "{name} {case}: {clicked}"
            );
            assert_eq!(clicked["progress"], "none", "{name} {case}: {clicked}");
            assert_eq!(clicked["retryAllowed"], false, "{name} {case}: {clicked}");
            assert!(
                clicked["hint"]
                    .as_str()
                    .is_some_and(|hint| hint.starts_with("No visible effect yet")),
                "{name} {case}: {clicked}"
            );
        }
    }
}

/// Where no listener hears a click (fixtures/pages/actions/late-effects.html?case=none), Chrome's
/// trusted fallback still runs, once: the page counts trusted pointer moves on its window, which
/// only the trusted click makes.
pub async fn a_target_no_listener_hears_keeps_the_trusted_fallback(session: &LaunchedMcp) {
    let name = session.browser.name();
    let url = fixtures().url("/pages/actions/late-effects.html?case=none");
    session.ok("navigate", json!({"url": url})).await;
    let button = session.ref_of("button", "Show result").await;
    let clicked = session.ok("click_ax", json!({"ref_id": button})).await;
    let show = session.ref_of("button", "Show moves").await;
    session.ok("click_ax", json!({"ref_id": show})).await;
    match session.browser {
        Browser::Chromium => {
            assert_eq!(clicked["method"], "trusted-fallback", "{name}: {clicked}");
            assert_eq!(clicked["retryAllowed"], false, "{name}: {clicked}");
            wait_for_text(session, "Trusted moves: some", Duration::from_secs(5)).await;
        }
        Browser::Firefox => {
            assert_eq!(clicked["method"], "synthetic", "{name}: {clicked}");
            wait_for_text(session, "Trusted moves: none", Duration::from_secs(5)).await;
        }
    }
}

/// How long a call into the busy page may take: the page's 8 s, and the abort of the input
/// after it (the extension answers once the page is free).
const BUSY_PATIENCE: Duration = Duration::from_secs(60);

/// A handler that holds the page's thread for 8 s in `mousedown` (fixtures/pages/bridge/
/// busy-input.html): the real click's `input.performActions` gets no answer within the 5 s
/// these tests give real input (`ALLWRIGHT_INPUT_TIMEOUT_MS`; 30 s by default), after it was
/// sent. The answer is `outcome_unknown`, `retryAllowed: false`,
/// with no retry hint; the press, and then the click, reached the page once. The same for a
/// key whose `keydown` handler holds the thread.
pub async fn real_input_that_fails_after_sending_is_outcome_unknown(session: &LaunchedMcp) {
    let name = session.browser.name();
    // The page holds its thread 3 s longer than real input waits for the browser.
    let busy = crate::bridge::REAL_INPUT_TIMEOUT + Duration::from_secs(3);
    let url = fixtures().url(&format!(
        "/pages/bridge/busy-input.html?ms={}",
        busy.as_millis()
    ));
    session.ok("navigate", json!({"url": url})).await;

    let hold = session.ref_of("button", "Hold").await;
    let started = Instant::now();
    let error = session
        .call_within("click_ax", json!({"ref_id": hold}), BUSY_PATIENCE)
        .await
        .expect_err("the click's answer is lost to the busy page");
    let error = error.0;
    assert_eq!(error["code"], "outcome_unknown", "{name}: {error}");
    assert_eq!(error["retryAllowed"], false, "{name}: {error}");
    let hint = error["hint"].as_str().unwrap_or_default();
    assert!(
        hint.contains("do not repeat") && !hint.to_lowercase().contains("retry once"),
        "{name}: {error}"
    );
    eprintln!(
        "{name}: click_ax answered outcome_unknown after {:?}",
        started.elapsed()
    );
    let tree = wait_for_text(session, "mousedowns: 1, clicks: 1", Duration::from_secs(30)).await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let again = session.tree_text().await;
    assert!(
        again.contains("mousedowns: 1, clicks: 1"),
        "{name}: the handler ran once:\n{tree}\n{again}"
    );

    let field = session.ref_of("textbox", "Busy field").await;
    let started = Instant::now();
    let error = session
        .call_within(
            "press_key",
            json!({"ref_id": field, "key": "a"}),
            BUSY_PATIENCE,
        )
        .await
        .expect_err("the key's answer is lost to the busy page");
    let error = error.0;
    assert_eq!(error["code"], "outcome_unknown", "{name}: {error}");
    assert_eq!(error["retryAllowed"], false, "{name}: {error}");
    eprintln!(
        "{name}: press_key answered outcome_unknown after {:?}",
        started.elapsed()
    );
    wait_for_text(session, "keydowns: 1", Duration::from_secs(30)).await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let again = session.tree_text().await;
    assert!(
        again.contains("keydowns: 1"),
        "{name}: the handler ran once:\n{again}"
    );
}
