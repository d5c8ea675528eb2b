//! The ref registry (`window.__wbElementMap` of WeakRefs in the content script's world): lookup
//! by ref, stale refs answered with "not found" and nearby valid suggestions, refs that never
//! move to another element, sweep of dead entries, and (Chromium, with `gc()` exposed) removed
//! elements that the registry does not keep alive.

use serde_json::{json, Value};

use crate::devtools::DevTools;
use crate::support::{fixtures, reference_of, strings, Browser, Session};

pub async fn lookup_stale_refs_and_suggestions(session: &Session) {
    let browser = session.browser.name();
    let server = fixtures();
    session.open(&server.url("/pages/registry.html")).await;
    let tree = session.ok("get_accessibility_tree", json!({})).await["tree"]
        .as_str()
        .expect("tree")
        .to_string();
    let temporary = reference_of(&tree, "button \"Temporary 5\"");
    let kept = reference_of(&tree, "button \"Kept button\"");
    let anchored = session
        .ok("get_accessibility_tree", json!({"ref_id": temporary}))
        .await;
    assert!(
        anchored["tree"]
            .as_str()
            .unwrap_or("")
            .starts_with("button \"Temporary 5\""),
        "{browser}: lookup"
    );

    session
        .evaluate("document.getElementById('temporary').remove(); true")
        .await;
    let error = session
        .call("get_accessibility_tree", json!({"ref_id": temporary}))
        .await
        .expect_err("a removed element's ref no longer resolves");
    assert_eq!(error.code(), "ref_not_found", "{browser}: {:?}", error.0);
    let message = error.0["message"].as_str().unwrap_or("").to_lowercase();
    assert!(message.contains("not found"), "{browser}: {message}");
    let suggestions = strings(&error.0["suggestions"]);
    assert!(
        !suggestions.is_empty(),
        "{browser}: a stale ref comes with nearby valid refs"
    );
    for suggestion in &suggestions {
        session
            .ok("get_accessibility_tree", json!({"ref_id": suggestion}))
            .await;
    }
    // The kept element keeps its ref; a ref never names another element.
    let again = session.ok("get_accessibility_tree", json!({})).await["tree"]
        .as_str()
        .expect("tree")
        .to_string();
    assert_eq!(
        reference_of(&again, "button \"Kept button\""),
        kept,
        "{browser}: refs are stable"
    );
    assert!(
        !again.contains(&format!("[{temporary}]")),
        "{browser}: the stale ref was not reissued"
    );
    let malformed = session
        .call("get_accessibility_tree", json!({"ref_id": "button 5"}))
        .await
        .expect_err("malformed ref");
    assert_eq!(
        malformed.code(),
        "invalid_arguments",
        "{browser}: {:?}",
        malformed.0
    );
}

/// Chromium only: removed elements are collected and swept, which proves the registry holds them
/// weakly (a strong map would keep every one alive).
pub async fn removed_elements_are_not_pinned(session: &Session) {
    assert_eq!(session.browser, Browser::Chromium);
    let server = fixtures();
    let url = server.url("/pages/registry.html");
    session.open(&url).await;
    session.ok("get_accessibility_tree", json!({})).await;
    let address = session
        .chromium_debugger_address()
        .expect("Chromium's DevTools address");
    let mut devtools = DevTools::attach_to_page(&address, &url).await;
    let identity: Value = serde_json::from_str(
        &std::fs::read_to_string(crate::support::repository_root().join("manifest/identity.json"))
            .expect("identity"),
    )
    .expect("JSON");
    let world = devtools
        .extension_world(identity["chromeExtensionId"].as_str().expect("id"))
        .await
        .expect("the extension's isolated world in the page");
    let live = "Object.keys(window.__wbElementMap).filter((key) => window.__wbElementMap[key].deref() !== undefined).length";
    let before = devtools
        .evaluate_in(world, live)
        .await
        .as_i64()
        .unwrap_or(-1);
    assert!(before >= 42, "the registry holds the page's refs: {before}");
    session
        .evaluate("document.getElementById('temporary').remove(); true")
        .await;
    // Collect until the removed elements are gone, at most ten rounds: WeakRef targets survive
    // the job that last dereferenced them, and a collection may run while a task of the
    // extension's world still holds one (it failed now and then with two fixed rounds on a
    // loaded machine). Something that pins them keeps them alive through every round.
    let mut alive = before;
    for _ in 0..10 {
        session
            .evaluate("gc(); new Promise((resolve) => setTimeout(() => resolve(true), 200))")
            .await;
        alive = devtools
            .evaluate_in(world, live)
            .await
            .as_i64()
            .unwrap_or(-1);
        if alive <= before - 40 {
            break;
        }
    }
    assert!(
        alive <= before - 40,
        "removed elements are still alive in the registry: {alive} of {before}"
    );
    // The next build sweeps the dead entries.
    session.ok("get_accessibility_tree", json!({})).await;
    let entries = devtools
        .evaluate_in(world, "Object.keys(window.__wbElementMap).length")
        .await
        .as_i64()
        .unwrap_or(-1);
    assert!(
        entries <= before - 40,
        "dead entries were swept: {entries} left of {before}"
    );
}
