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
    // A control: 40 buttons the extension never read, added now (the registry and every read
    // before this one never saw them), laid out, then removed together with the read ones. Both
    // are detached in the same operation, so anything the browser itself keeps of a removed
    // subtree (a cache not yet cleared by a rendering update, say) keeps both; only a reference
    // held by the extension keeps the read ones and not the control.
    session
        .evaluate(
            "(() => { const control = document.createElement('div');              for (let index = 0; index < 40; index += 1) control.append(document.createElement('button'));              document.body.append(control);              window.__controlRefs = Array.from(control.children, (button) => new WeakRef(button));              window.__control = control;              return new Promise((resolve) => setTimeout(() => resolve(true), 100)); })()",
        )
        .await;
    session
        .evaluate(
            "document.getElementById('temporary').remove(); window.__control.remove();              delete window.__control; true",
        )
        .await;
    // Collect until the removed elements are gone, at most twenty rounds. A WeakRef's target
    // survives until the microtask checkpoint after the job that dereferenced it (ECMAScript,
    // ClearKeptObjects), and every count below dereferences them: `gc()` runs two timer tasks
    // later, so that a checkpoint has passed in the page whatever ran the last count (it failed
    // now and then with the collection in the same task as the BiDi command, the last count
    // made over DevTools just before). Something that pins them keeps them alive through every
    // round; the control says whether the browser collected removed elements at all.
    let collect = "new Promise((resolve) => setTimeout(() => setTimeout(() => { gc();                    setTimeout(() => resolve(true), 200); }, 0), 0))";
    let control_live =
        "window.__controlRefs.filter((reference) => reference.deref() !== undefined).length";
    let mut alive = before;
    let mut control_alive = -1;
    for _ in 0..20 {
        session.evaluate(collect).await;
        alive = devtools
            .evaluate_in(world, live)
            .await
            .as_i64()
            .unwrap_or(-1);
        control_alive = session.evaluate(control_live).await.as_i64().unwrap_or(-1);
        if alive <= before - 40 {
            break;
        }
    }
    let visibility = session.evaluate("document.visibilityState").await;
    assert!(
        alive <= before - 40,
        "removed elements are still alive in the registry: {alive} of {before}; of the 40 \
         control buttons the extension never read, {control_alive} are alive ({}; page {visibility})",
        if control_alive > 0 {
            "the browser kept removed elements of its own accord"
        } else {
            "the extension pins what it read"
        }
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
